/**
 * The order of a scenario's cleanups (steps/hooks.ts After): which undo steps may run at once.
 */

/** Device deletions of one batch sent at once (cleanupBatches). */
const DELETIONS_AT_ONCE = 8;

/**
 * The scenario's cleanups, last-first: the harness's own client connections (`connection`), and the
 * rest in batches run one after another.
 * - The connections are closed all at once, started before the first batch and awaited after the
 *   last: closing one needs nothing of the platform's state and no other undo needs one open (they
 *   go through the admin API). Its DISCONNECT is written before the first deletion is sent, so no
 *   device or gateway publishes while its device is deleted; what is left of a close is the
 *   target's FIN, a round trip that the deletions need not wait for (a round trip of about 100 of
 *   the platform features' scenarios across a network). In their last-first place a gateway's
 *   connection closed between the deletion of its sub-devices and its own, a round trip between
 *   two others.
 * - The deletions of devices that follow each other go together (up to DELETIONS_AT_ONCE at once),
 *   every other undo (a setting put back, a session closed after the undo that used it, a device
 *   profile after the devices that use it) alone in its place.
 * No device's deletion waits on another's, and against a target across a network each one is a
 * round trip or two (a lookup by name, then the delete): one after another they were the costliest
 * step of a remote run (the platform features through 50 ms each way: 57 of 261 scenario-seconds in
 * After hooks, 3 on loopback).
 */
export function cleanupBatches<T extends { entity?: string; connection?: boolean }>(
  lastFirst: readonly T[],
): { connections: T[]; batches: T[][] } {
  const connections = lastFirst.filter((cleanup) => cleanup.connection === true);
  const batches: T[][] = [];
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
  return { connections, batches };
}
