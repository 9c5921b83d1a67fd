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
import { runLoadProfile } from '../load/contract';
import { mqttConnectProfile } from '../load/mqtt-connect';
import { settledMemory } from './settled-memory';

/** One point's line: its memory after the GC settled (settled-memory.ts). */
function reading(point: number, connected: number): string {
  return `${JSON.stringify({ point, connected, ...settledMemory() })}\n`;
}

async function main(): Promise<void> {
  const [target, pointsText, rate, holdS] = process.argv.slice(2);
  process.stdout.write(reading(0, 0));
  for (const point of pointsText.split(',').map(Number)) {
    const { report } = await runLoadProfile(
      mqttConnectProfile,
      { connections: point, rate: Number(rate), protocolVersion: 5, holdS: Number(holdS) },
      {
        target,
        log: (line) => {
          const connected = /^(\d+) connected, .*holding/.exec(line);
          // during the hold (HOLD_S in connection-memory.ts, well beyond the reading's settling)
          if (connected) process.stdout.write(reading(point, Number(connected[1])));
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
