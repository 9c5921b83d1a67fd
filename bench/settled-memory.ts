/**
 * A memory child's reading after the GC has settled (bench/connect-memory-child.ts,
 * bench/load-memory-child.ts): forced full GCs, SETTLE_MS twice for V8's background threads to
 * release the freed pages, a last full GC, then `process.memoryUsage()` and the young generation's
 * resident pages. Read at once after `gc()` (until 2026-11-27), the RSS still held pages the
 * sweeper and unmapper threads had not given back yet: 15–20 MiB more at an idle point than 0.6 s
 * later, and how much more depended on how soon those threads got a CPU (the generator's memory
 * per held connection once read 222.9 MiB at 4,000 connections and 218.6 at 10,000: R² 0.44).
 * The wait blocks this thread (Atomics.wait), not V8's background threads: a load profile's `log`
 * callback is synchronous, and what its run holds must still be held when read (the profile closes
 * its gateways as soon as the callback returns). Needs --expose-gc.
 */
import { getHeapSpaceStatistics } from 'node:v8';

/** Between the forced GCs of a reading, so that V8's background threads free what they swept. */
const SETTLE_MS = 300;

export interface SettledMemory {
  rss: number;
  heapUsed: number;
  /**
   * The new space's resident pages: empty after a full GC, its size is V8's sizing (16–32 MiB),
   * printed so that a reading it moved shows.
   */
  youngGeneration: number;
}

export function settledMemory(): SettledMemory {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let settle = 0; settle < 2; settle++) {
    gc();
    Atomics.wait(pause, 0, 0, SETTLE_MS);
  }
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  const youngGeneration =
    getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
      ?.physical_space_size ?? 0;
  return { rss, heapUsed, youngGeneration };
}
