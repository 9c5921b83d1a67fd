/**
 * The generator side of the memory-per-held-connection line (bench/connection-memory.ts): runs of
 * the mqtt-connect load profile (`iotc load mqtt-connect`) in this process only, one per point
 * (connections: 1,000 → 10,000 by default), against the target profile file given. When a run's
 * connections are all in and held (its `holding` line), it forces full GCs, reads its memory and
 * prints one JSON line `{"point", "connected", "rss", "heapUsed", "youngGeneration"}`; the parent reads the
 * reference's memory on that line, during the hold. Before the first run it prints the same reading
 * with `point` 0 (modules loaded, nothing held). In one process, every run reuses what the previous
 * ones warmed (code, JIT, the allocator's pages): the differences between points are what the
 * connections hold. Arguments: <target profile file> <points, comma-separated> <CONNECTs per
 * second> <hold s>. Needs --expose-gc.
 */
import { setTimeout } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { runLoadProfile } from '../load/contract';
import { mqttConnectProfile } from '../load/mqtt-connect';

/** Between the forced GCs of a reading, so that V8's background threads free what they swept. */
const SETTLE_MS = 300;

/**
 * Forces full GCs, lets V8's background threads release the freed pages (SETTLE_MS, twice), forces
 * them again and reads the memory. Read at once after `gc()` (until 2026-11-27), the RSS still held
 * pages the sweeper and unmapper threads had not given back yet: 15 MiB more at the idle point than
 * 0.6 s later in one run, and how much more depended on how soon those threads got a CPU (the last
 * full bench read 222.9 MiB at 4,000 connections and 218.6 at 10,000: R² 0.44, no verdict).
 * `youngGeneration` is the new space's resident pages: empty after a full GC, its size is V8's
 * sizing (16–32 MiB), printed so that a reading it moved shows.
 */
async function reading(point: number, connected: number): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let settle = 0; settle < 2; settle++) {
    gc();
    await setTimeout(SETTLE_MS);
  }
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  const youngGeneration =
    getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
      ?.physical_space_size ?? 0;
  return `${JSON.stringify({ point, connected, rss, heapUsed, youngGeneration })}\n`;
}

async function main(): Promise<void> {
  const [target, pointsText, rate, holdS] = process.argv.slice(2);
  process.stdout.write(await reading(0, 0));
  for (const point of pointsText.split(',').map(Number)) {
    const { report } = await runLoadProfile(
      mqttConnectProfile,
      { connections: point, rate: Number(rate), protocolVersion: 5, holdS: Number(holdS) },
      {
        target,
        log: (line) => {
          const connected = /^(\d+) connected, .*holding/.exec(line);
          // during the hold (HOLD_S in connection-memory.ts, well beyond the reading's settling)
          if (connected)
            void reading(point, Number(connected[1])).then((line) => process.stdout.write(line));
        },
        progress: () => {},
      },
    );
    if (report.metrics.left_behind)
      process.stderr.write(`point ${point}: ${report.metrics.left_behind} devices left behind\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
