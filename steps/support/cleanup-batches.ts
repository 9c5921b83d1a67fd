/**
 * The order of a scenario's cleanups (steps/hooks.ts After): which undo steps may run at once.
 */

/** Device deletions of one batch sent at once (cleanupBatches). */
const DELETIONS_AT_ONCE = 8;

/**
 * The scenario's cleanups, last-first, in batches run one after another:
 * - first the harness's own client connections (`connection`), all at once: closing one needs
 *   nothing of the platform's state and no other undo needs one open (they go through the admin
 *   API). Closed first, no device or gateway publishes while its device is deleted; in their
 *   last-first place a gateway's connection closed between the deletion of its sub-devices and its
 *   own, a round trip between two others (about 70 of the platform features' scenarios);
 * - then the deletions of devices that follow each other together (up to DELETIONS_AT_ONCE at
 *   once), every other undo (a setting put back, a session closed after the undo that used it, a
 *   device profile after the devices that use it) alone in its place.
 * No device's deletion waits on another's, and against a target across a network each one is a
 * round trip or two (a lookup by name, then the delete): one after another they were the costliest
 * step of a remote run (the platform features through 50 ms each way: 57 of 261 scenario-seconds in
 * After hooks, 3 on loopback).
 */
export function cleanupBatches<T extends { entity?: string; connection?: boolean }>(
  lastFirst: readonly T[],
): T[][] {
  const connections = lastFirst.filter((cleanup) => cleanup.connection === true);
  const batches: T[][] = connections.length ? [connections] : [];
  for (const cleanup of lastFirst) {
    if (cleanup.connection === true) continue;
    const previous = batches.at(-1);
    const isDevice = cleanup.entity?.startsWith('device:') === true;
    if (
      isDevice &&
      previous &&
      previous.length < DELETIONS_AT_ONCE &&
      previous[0]!.entity?.startsWith('device:')
    )
      previous.push(cleanup);
    else batches.push([cleanup]);
  }
  return batches;
}
