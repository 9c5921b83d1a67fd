/**
 * The order of a scenario's cleanups (steps/hooks.ts After): which undo steps may run at once.
 */

/** Device deletions of one batch sent at once (cleanupBatches). */
const DELETIONS_AT_ONCE = 8;

/**
 * The scenario's cleanups, last-first, in batches run one after another: the deletions of devices
 * that follow each other go together (up to DELETIONS_AT_ONCE at once), every other undo (a
 * connection closed, a setting put back, a device profile after the devices that use it) alone in
 * its place. No device's deletion waits on another's, and against a target across a network each
 * one is a round trip or two (a lookup by name, then the delete): one after another they were the
 * costliest step of a remote run (the platform features through 50 ms each way: 57 of 261
 * scenario-seconds in After hooks, 3 on loopback).
 */
export function cleanupBatches<T extends { entity?: string }>(lastFirst: readonly T[]): T[][] {
  const batches: T[][] = [];
  for (const cleanup of lastFirst) {
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
