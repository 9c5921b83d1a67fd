/**
 * f) Memory per held MQTT connection, the generator and the reference side by side in one run:
 * `iotc load mqtt-connect` (bench/connect-memory-child.ts, its own process) holds 1,000 → 10,000
 * connections, one device each, against the reference platform as `iotc simulate` starts it
 * (bench/platform-memory-child.ts); at each point, while the connections are held, both processes
 * force full GCs and report their memory. The generator's figure is what a held connection costs
 * it; the reference's is what a connected device costs it with its device record (created through
 * the admin API, as the profile does).
 *
 * Bytes per connection are the least-squares slope through every point (bench/slope.ts), so the
 * fixed costs of a run (code, JIT, the recorder, the admin session) cancel out; the slope between
 * each two neighbouring points is printed too, to show the line is straight. RSS decides (what the
 * machine gives the process); the heap is printed beside it. A slope that is not positive, readings
 * that do not grow with the connections, or readings scattered about the line give no verdict
 * (INFO, with the reason): the allocator decided them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  children,
  memoryOf,
  positiveEnv,
  referenceProfile,
  ROOT,
  startPlatformMemoryChild,
  stopServer,
} from './children';
import { fitSlope, type SlopeFit, slopeVerdict } from './slope';

export const GOAL_GENERATOR_BYTES_PER_CONNECTION = 10 * 1024;
export const GOAL_REFERENCE_BYTES_PER_CONNECTION = 6 * 1024;
/**
 * The points (connections held), from BENCH_CONNECTION_POINTS (comma-separated) or 1,000, 4,000,
 * 7,000, 10,000: four points, so that R² judges a line through more than its ends and a middle.
 */
export const CONNECTION_POINTS = (process.env.BENCH_CONNECTION_POINTS ?? '1000,4000,7000,10000')
  .split(',')
  .map(Number)
  .filter((point) => Number.isInteger(point) && point > 0);
const CONNECT_RATE = positiveEnv('BENCH_CONNECTION_RATE', 1000);
const HOLD_S = 5;

interface Reading {
  point: number;
  connected: number;
  rss: number;
  heapUsed: number;
  /** The generator's young generation's resident pages (connect-memory-child.ts). */
  youngGeneration?: number;
}

interface PerConnection {
  rssPerConnection: number;
  heapPerConnection: number;
  /** The fit of the RSS readings (its R², and why it gives no verdict, if so). */
  rss: SlopeFit;
}

export interface ConnectionMemory {
  generator: PerConnection;
  reference: PerConnection;
  lines: string[];
}

/** Bytes per connection between two readings, by the connections actually held. */
function slope(from: Reading, to: Reading, key: 'rss' | 'heapUsed'): number {
  return (to[key] - from[key]) / Math.max(to.connected - from.connected, 1);
}

export async function memoryPerConnection(): Promise<ConnectionMemory> {
  const server = await startPlatformMemoryChild();
  const dir = mkdtempSync(join(tmpdir(), 'iotc-bench-connections-'));
  try {
    const profilePath = join(dir, 'reference.json');
    writeFileSync(profilePath, JSON.stringify(referenceProfile(server, 'bench-connections')));
    const referenceIdle = await memoryOf(server);
    const generator: Reading[] = [];
    const reference: Reading[] = [];
    await new Promise<void>((resolveRun, rejectRun) => {
      const child = spawn(
        process.execPath,
        [
          '--expose-gc',
          '-r',
          'ts-node/register/transpile-only',
          join(ROOT, 'bench', 'connect-memory-child.ts'),
          profilePath,
          CONNECTION_POINTS.join(','),
          String(CONNECT_RATE),
          String(HOLD_S),
        ],
        {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, NODE_ENV: 'production', IOTC_STATE_DIR: join(dir, 'state') },
        },
      );
      children.add(child);
      let stdout = '';
      let stderr = '';
      let reading = Promise.resolve();
      child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk).slice(-4000)));
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const lines = stdout.split('\n');
        stdout = lines.pop() ?? '';
        for (const line of lines) {
          const parsed = JSON.parse(line) as Reading;
          generator.push(parsed);
          if (parsed.point > 0)
            // during the hold: the reference holds the same connections now
            reading = reading.then(async () => {
              const memory = await memoryOf(server);
              reference.push({
                point: parsed.point,
                connected: parsed.connected,
                rss: memory.rss,
                heapUsed: memory.heapUsed,
              });
            });
        }
      });
      child.once('exit', (code) => {
        children.delete(child);
        void reading.then(() =>
          code === 0
            ? resolveRun()
            : rejectRun(new Error(`the generator child exited ${code}: ${stderr.trim()}`)),
        );
      });
    });
    const held = generator.filter((entry) => entry.point > 0);
    if (held.length < 2) throw new Error('fewer than two points measured');
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
    const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
    const per = (readings: Reading[]): PerConnection => {
      const rss = fitSlope(readings.map((entry) => ({ x: entry.connected, y: entry.rss })));
      const heap = fitSlope(readings.map((entry) => ({ x: entry.connected, y: entry.heapUsed })));
      return { rssPerConnection: rss.slope, heapPerConnection: heap.slope, rss };
    };
    const steps = (readings: Reading[]) =>
      readings
        .slice(1)
        .map(
          (to, i) =>
            `${readings[i].connected}→${to.connected}: ${kib(slope(readings[i], to, 'rss'))} RSS, ${kib(slope(readings[i], to, 'heapUsed'))} heap`,
        )
        .join('; ');
    const at = (readings: Reading[]) =>
      readings
        .map(
          (entry) =>
            `${entry.connected}: ${mib(entry.rss)}${entry.youngGeneration === undefined ? '' : ` (young generation ${mib(entry.youngGeneration)})`}`,
        )
        .join(', ');
    return {
      generator: per(held),
      reference: per(reference),
      lines: [
        `      generator RSS idle ${mib(generator[0].rss)}, held ${at(held)}; per step ${steps(held)}`,
        `      reference RSS idle ${mib(referenceIdle.rss)}, held ${at(reference)}; per step ${steps(reference)}`,
      ],
    };
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Prints the two lines (generator, reference) with their goals and verdicts; true when both goals
 * hold.
 */
export async function connectionMemoryLines(): Promise<boolean> {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
  const result = await memoryPerConnection();
  for (const line of result.lines) console.log(line);
  const points = CONNECTION_POINTS.join(' → ');
  const generatorWord = slopeVerdict(result.generator.rss, GOAL_GENERATOR_BYTES_PER_CONNECTION);
  const referenceWord = slopeVerdict(result.reference.rss, GOAL_REFERENCE_BYTES_PER_CONNECTION);
  // no verdict is not a failure: the allocator, not the connections, decided the readings
  const generatorOk = generatorWord !== 'FAIL';
  const referenceOk = referenceWord !== 'FAIL';
  const fit = (rss: SlopeFit) =>
    `R² ${rss.r2.toFixed(3)}${rss.noVerdict ? `; no verdict: ${rss.noVerdict}` : ''}`;
  const average = loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  console.log(
    `${generatorWord}  generator memory per held MQTT connection (iotc load mqtt-connect, ${points}): ${kib(result.generator.rssPerConnection)} RSS (goal <= 10 KiB), ${fit(result.generator.rss)}; heap ${kib(result.generator.heapPerConnection)}; load average ${average}`,
  );
  console.log(
    `${referenceWord}  reference memory per held MQTT connection with its device record (iotc simulate, ${points}): ${kib(result.reference.rssPerConnection)} RSS (goal <= 6 KiB), ${fit(result.reference.rss)}; heap ${kib(result.reference.heapPerConnection)}; load average ${average}`,
  );
  return generatorOk && referenceOk;
}

if (require.main === module)
  connectionMemoryLines()
    .then((ok) => {
      process.exitCode = ok ? 0 : 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
