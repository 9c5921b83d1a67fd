/**
 * g) Generator capacity: is the load generator the bottleneck of a load run?
 *  - Throughput: `iotc load mqtt-gateway` (a child process, bare target, one gateway × 10 devices,
 *    QoS 1, MQTT 5, a window of BENCH_MQTT_WINDOW unacknowledged publishes and a rate it cannot
 *    reach, so the window is the limit; its accounting included: per-device seqs, the recorder's
 *    histograms and per-second samples) against the bench's minimal mqtt-packet sink, ÷ the bare
 *    gateway driver (MqttGateway, one device, the same window; bench/mqtt-driver-child.ts, a fresh
 *    child each round as the generator is) against the same sink, rounds alternating A/B in the
 *    same run, each side counted after the same warm-up; the median of the per-round ratios. Goal:
 *    ≥ 0.8, no failed publish. From the same rounds, the CPU each side spends per acknowledged
 *    publish (each child's run time from /proc, sampled and interpolated at its counted window's
 *    ends): driver ÷ generator, goal ≥ 0.8. (The driver once published from the bench process,
 *    after every earlier line of the bench: there its CPU per publish spread by 41 %.) The
 *    throughput of each side is what the machine's other load left it; the CPU per publish is the
 *    generator's own cost.
 *  - Memory: the generator's resident memory per simulated device: in one child
 *    (bench/load-memory-child.ts), runs with BENCH_GENERATOR_GATEWAYS gateways × 1 (a warm-up, not
 *    counted), 1, then ¼, ½ and all of BENCH_GENERATOR_DEVICES devices each, RSS read after forced
 *    full GCs at the end of each run's publishing; bytes per device = the least-squares slope
 *    through the four readings (bench/slope.ts), which gives no verdict (INFO, saying why) when it
 *    is not positive, the readings do not grow with the devices, or they scatter about the line
 *    (two readings once gave −764 bytes and PASS). (Two separate processes differed by more than
 *    the devices' cost: their RSS moved by tens of MiB with compilation and heap sizing.) Goal: ≤ 2
 *    KiB.
 * Children are killed on every way out.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LoadReport } from '../load/contract';
import { children, positiveEnv, ROOT } from './children';
import { MQTT_WINDOW } from './mqtt-throughput';
import { STEADY_SPREAD, steadiness } from './peers';
import { fitSlope, slopeVerdict } from './slope';
import { onClientCpu, serverCommand } from './pinning';
import { processCpuSeconds } from './mqtt-publish-cpu';
import { DURATION_S, ROUNDS, WARMUP_S } from './rounds';

export const GOAL_GENERATOR_RATIO = 0.8;
export const GOAL_GENERATOR_BYTES_PER_DEVICE = 2048;

const WINDOW = MQTT_WINDOW;
const GENERATOR_GATEWAYS = positiveEnv('BENCH_GENERATOR_GATEWAYS', 100);
const GENERATOR_DEVICES = positiveEnv('BENCH_GENERATOR_DEVICES', 200);

/**
 * Starts a child and resolves with it and its first stdout line (JSON), killing it if it fails
 * first.
 */
async function startChild(args: string[], env: NodeJS.ProcessEnv = process.env, pinned = false) {
  const command = pinned ? serverCommand(args) : { file: process.execPath, args };
  const child = spawn(command.file, command.args, {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  try {
    const line = await Promise.race([
      once(createInterface({ input: child.stdout! }), 'line').then(([first]) => first as string),
      once(child, 'exit').then(([code]) => {
        throw new Error(`${args.at(-1)} exited with ${code}:\n${errors}`);
      }),
    ]);
    return { child, answer: JSON.parse(line) as Record<string, unknown> };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/**
 * Runs a bench client in a fresh child (both sides of the line: `iotc load mqtt-gateway` and the
 * bare driver, mqtt-driver-child.ts) to its end, its CPU (every thread's run time, /proc) read
 * every CPU_SAMPLE_MS meanwhile, so that both sides are measured alike: what the child printed and
 * the readings, to be interpolated at its counted window's ends. Killed on every way out.
 */
async function sampledChild(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-8000)));
  child.stderr!.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  const cpu: CpuReading[] = [];
  const sampler = setInterval(() => {
    const seconds = child.pid === undefined ? undefined : processCpuSeconds(child.pid);
    if (seconds !== undefined) cpu.push({ at: Date.now(), seconds });
  }, CPU_SAMPLE_MS);
  try {
    const [code] = await once(child, 'exit');
    return { code: code as number | null, output, errors, cpu };
  } finally {
    clearInterval(sampler);
    await kill(child);
    children.delete(child);
  }
}

/**
 * Acknowledged publishes per second of `iotc load mqtt-gateway` against the sink, from its report's
 * per-second samples after the first GENERATOR_WARMUP_S seconds: the child is a fresh process each
 * round, and its first second (code compiled, connections opened) ran at a rate that depended on
 * how busy the machine was then, which spread the rounds. The last sample, cut short by the run's
 * end, is left out too. (The whole run's rate when the report has too few samples.)
 */
async function profileRound(url: string): Promise<Round> {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-bench-generator-'));
  try {
    // the child's CPU over the counted seconds is interpolated from the readings at the report's
    // own clock (startedAt + the samples' elapsedMs)
    // (its exit code is the load run's own verdict, not the bench's: the report is read either way)
    const run = await sampledChild(
      [
        join(ROOT, 'bin', 'iotc.js'),
        'load',
        'mqtt-gateway',
        '--mqtt-url',
        url,
        '--gateway-token-env',
        'BENCH_SINK_TOKENS',
        '-g',
        '1',
        '-d',
        '10',
        '--total-rate',
        '1000000',
        '--window',
        String(WINDOW),
        '--duration',
        String(GENERATOR_WARMUP_S + DURATION_S),
        '-r',
        reports,
      ],
      { ...process.env, BENCH_SINK_TOKENS: 'bench-token' },
    );
    let report: LoadReport;
    try {
      report = JSON.parse(readFileSync(join(reports, 'load', 'mqtt-gateway.json'), 'utf8'));
    } catch {
      throw new Error(`iotc load mqtt-gateway wrote no report (exit ${run.code}):\n${run.errors}`);
    }
    const steady = report.series.filter(
      (sample) =>
        sample.elapsedMs - sample.intervalMs >= GENERATOR_WARMUP_S * 1000 &&
        sample.intervalMs >= 900,
    );
    const steadyMs = steady.reduce((sum, sample) => sum + sample.intervalMs, 0);
    const succeeded = steady.reduce((sum, sample) => sum + sample.succeeded, 0);
    const origin = Date.parse(report.startedAt);
    const first = steady[0];
    const last = steady.at(-1);
    return {
      perSecond:
        steady.length >= 2
          ? (succeeded * 1000) / steadyMs
          : report.totals.succeeded / (report.durationMs.sending / 1000),
      failures: report.totals.errorCount,
      cpuMicros:
        first && last && steady.length >= 2
          ? cpuMicrosPer(
              run.cpu,
              origin + first.elapsedMs - first.intervalMs,
              origin + last.elapsedMs,
              succeeded,
            )
          : Number.NaN,
    };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

/**
 * Acknowledged publishes per second of the bare gateway driver against the sink, the same window,
 * in a fresh child (mqtt-driver-child.ts) as the generator is, counted after the same first
 * GENERATOR_WARMUP_S seconds, its CPU read from /proc the same way.
 */
async function driverRound(url: string): Promise<Round> {
  const run = await sampledChild([
    '-r',
    './lib/compile-cache.js',
    '-r',
    './lib/ts-register.js',
    join(ROOT, 'bench', 'mqtt-driver-child.ts'),
    url,
    String(WINDOW),
    String(GENERATOR_WARMUP_S),
    String(DURATION_S),
  ]);
  if (run.code !== 0)
    throw new Error(`the bare driver's child exited with ${run.code}:\n${run.errors}`);
  const counted = JSON.parse(run.output.trim().split('\n').at(-1) ?? '') as {
    acknowledged: number;
    failures: number;
    countedFrom: number;
    countedTo: number;
  };
  return {
    perSecond: (counted.acknowledged * 1000) / Math.max(counted.countedTo - counted.countedFrom, 1),
    failures: counted.failures,
    cpuMicros: cpuMicrosPer(run.cpu, counted.countedFrom, counted.countedTo, counted.acknowledged),
  };
}

/** One side of a round: acknowledged publishes per second, failures, CPU-µs per acknowledged one. */
interface Round {
  perSecond: number;
  failures: number;
  cpuMicros: number;
}

/**
 * Seconds of a generator round not counted: the child is a fresh process, and over its first
 * seconds V8's compiler threads (whose run time the child's CPU includes) were still optimising
 * its hot path: at one second, its CPU per publish scattered by ±20 % from round to round.
 */
const GENERATOR_WARMUP_S = Math.max(WARMUP_S, positiveEnv('BENCH_GENERATOR_WARMUP_S', 3));

/** How often the generator child's CPU is read (its counted window is interpolated between). */
const CPU_SAMPLE_MS = 100;

/** A child's CPU-seconds (every thread's run time) read at `at` (Date.now()). */
interface CpuReading {
  at: number;
  seconds: number;
}

/** The CPU-seconds at `at` (Date.now()), interpolated between the readings around it. */
function cpuAt(readings: CpuReading[], at: number): number {
  const after = readings.findIndex((reading) => reading.at >= at);
  if (after <= 0) return after === 0 ? readings[0]!.seconds : Number.NaN;
  const before = readings[after - 1]!;
  const next = readings[after]!;
  return (
    before.seconds + ((next.seconds - before.seconds) * (at - before.at)) / (next.at - before.at)
  );
}

/** CPU-µs per acknowledged publish between `from` and `to` (Date.now()), from a child's readings. */
function cpuMicrosPer(readings: CpuReading[], from: number, to: number, acknowledged: number) {
  return ((cpuAt(readings, to) - cpuAt(readings, from)) * 1e6) / Math.max(acknowledged, 1);
}

interface Reading {
  /** Devices in all (gateways × devices per gateway). */
  devices: number;
  rss: number;
  heapUsed: number;
  sent: number;
}

/** RSS and heap of a generator child after `gateways` × each count of devices, smallest first. */
async function generatorMemory(url: string, gateways: number, counts: number[]) {
  const { child, answer } = await startChild(
    [
      '--expose-gc',
      '-r',
      'ts-node/register/transpile-only',
      join(ROOT, 'bench', 'load-memory-child.ts'),
      url,
      String(gateways),
      counts.join(','),
    ],
    { ...process.env, BENCH_SINK_TOKENS: Array(gateways).fill('bench-token').join(',') },
  );
  await kill(child);
  return (answer as unknown as { readings: Reading[] }).readings;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** Prints the two lines (and the rounds); resolves with whether both goals hold. */
export async function generatorCapacityLines(): Promise<boolean> {
  // the sink on the servers' CPU, both clients (the driver's child, the generator's) on the
  // client's when the bench pins (pinning.ts; a child inherits this process's CPUs)
  const sink = await startChild(
    ['-r', './lib/ts-register.js', join(ROOT, 'bench', 'mqtt-sink-child.ts')],
    process.env,
    true,
  );
  try {
    const url = sink.answer.mqttUrl as string;
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    let failures = 0;
    await onClientCpu(async () => {
      // a round of each, not counted: the sink's first seconds run slower, and the first child of
      // each side fills the code caches (lib/compile-cache.js, lib/ts-register.js) its later ones
      // read; every round's child then starts alike and is counted after the same warm-up
      await profileRound(url);
      await driverRound(url);
      for (let round = 1; round <= ROUNDS; round++) {
        // alternating which goes first, so that neither always gets the quieter slot
        const [profile, driver] =
          round % 2
            ? [await profileRound(url), await driverRound(url)]
            : await driverRound(url).then(async (first) => [await profileRound(url), first]);
        failures += profile.failures + driver.failures;
        ratios.push(profile.perSecond / driver.perSecond);
        cpuRatios.push(driver.cpuMicros / profile.cpuMicros);
        console.log(
          `      round ${round}: iotc load mqtt-gateway ${Math.round(profile.perSecond)} msg/s, bare driver ${Math.round(driver.perSecond)} msg/s, ratio ${ratios.at(-1)?.toFixed(2)}; CPU per acknowledged publish ${profile.cpuMicros.toFixed(1)} against ${driver.cpuMicros.toFixed(1)} µs, ratio ${cpuRatios.at(-1)?.toFixed(2)}; load average ${loadAverage()}`,
        );
      }
    });
    // rounds that differ by more than ±15 % measured the machine, not the generator: no verdict
    // then. The throughput of each side is what the machine's other load left it, seconds apart;
    // the CPU each spends per acknowledged publish is what the generator costs, whatever the load
    // (the verdict that holds on a busy machine, as the platform's MQTT headroom has beside its
    // throughput)
    const judge = (values: number[], what: string, unit: string) => {
      const ratio = median(values);
      const { steady, spread } = steadiness(values);
      const ok = failures === 0 && (!steady || ratio >= GOAL_GENERATOR_RATIO);
      const word = failures > 0 || (steady && !ok) ? 'FAIL' : steady ? 'PASS' : 'INFO';
      console.log(
        `${word}  generator/driver MQTT QoS 1 ${what} against the sink (accounting included), median of ${ROUNDS}: ${ratio.toFixed(2)} ${unit} (goal >= ${GOAL_GENERATOR_RATIO}), failed publishes: ${failures} (goal 0); ${
          steady
            ? `rounds within ${Math.round(spread * 100)} % of their median`
            : `rounds differ by up to ${Math.round(spread * 100)} % from their median (more than ±${STEADY_SPREAD * 100} %): the machine was too noisy, no verdict`
        }; load average ${loadAverage()}`,
      );
      return ok;
    };
    const throughputOk = judge(ratios, 'throughput', '(generator ÷ driver)');
    const cpuOk = judge(
      cpuRatios,
      'CPU per acknowledged publish',
      "(driver ÷ generator: the driver's CPU-µs per publish over the generator's)",
    );

    const counts = [
      ...new Set([
        1,
        Math.round(GENERATOR_DEVICES / 4),
        Math.round(GENERATOR_DEVICES / 2),
        GENERATOR_DEVICES,
      ]),
    ];
    // a first run of the smallest fleet, not counted: a process's first run grows it by code, JIT
    // and heap sizing (tens of MiB) whatever its devices
    const readings = (await generatorMemory(url, GENERATOR_GATEWAYS, [counts[0], ...counts])).slice(
      1,
    );
    const rss = fitSlope(readings.map((reading) => ({ x: reading.devices, y: reading.rss })));
    const heap = fitSlope(readings.map((reading) => ({ x: reading.devices, y: reading.heapUsed })));
    const verdict = slopeVerdict(rss, GOAL_GENERATOR_BYTES_PER_DEVICE);
    // no verdict is not a failure: the machine's allocator, not the generator, decided the readings
    const memoryOk = verdict !== 'FAIL';
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    console.log(
      `      generator RSS with ${GENERATOR_GATEWAYS} gateways x ${counts.join(', ')} devices: ${readings
        .map((reading) => `${mib(reading.rss)} MiB (${reading.sent} sent)`)
        .join(', ')}; heap ${readings.map((reading) => mib(reading.heapUsed)).join(', ')} MiB`,
    );
    console.log(
      `${verdict}  load generator resident memory per simulated device (${GENERATOR_GATEWAYS} gateways x ${counts.join(' → ')}, slope of ${readings.length} points): ${Math.round(rss.slope)} bytes (goal <= ${GOAL_GENERATOR_BYTES_PER_DEVICE}), R² ${rss.r2.toFixed(3)}${rss.noVerdict ? `; no verdict: ${rss.noVerdict}` : ''}; heap ${Math.round(heap.slope)} bytes (R² ${heap.r2.toFixed(3)}); load average ${loadAverage()}`,
    );
    return throughputOk && cpuOk && memoryOk;
  } finally {
    await kill(sink.child);
  }
}
