/**
 * g) Generator capacity: is the load generator the bottleneck of a load run?
 *  - Throughput: `iotc load mqtt-gateway` (a child process, bare target, one gateway × 10 devices,
 *    QoS 1, MQTT 5, a window of BENCH_MQTT_WINDOW unacknowledged publishes and a rate it cannot
 *    reach, so the window is the limit; its accounting included: per-device seqs, the recorder's
 *    histograms and per-second samples) against the bench's minimal mqtt-packet sink, ÷ the bare
 *    gateway driver (MqttGateway, one device, the same window; bench/mqtt-driver-child.ts, a fresh
 *    child each round as the generator is) against the same sink, both sides publishing at once
 *    (over the same seconds, on the same client CPU), each counted after the same warm-up; the
 *    median of the per-round ratios. Goal: ≥ 0.8, no failed publish.
 *  - CPU per acknowledged publish: in each round, after the saturated half, both sides again at
 *    once, each paced at BENCH_GENERATOR_RATE publishes per second (the driver child paces as the
 *    generator does); each child's run time from /proc, sampled and interpolated at its counted
 *    window's ends: driver ÷ generator, goal ≥ 0.8, no verdict when a side did not carry the rate.
 *    (Saturated and one side after the other, the driver's CPU per publish spread 14.7–28.8 µs
 *    over rounds: 7 of 9 runs gave no verdict.) The throughput of each side is what the machine's
 *    other load left it; the CPU per publish is the generator's own cost.
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
import { ROUNDS, WARMUP_S } from './rounds';

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
async function profileRound(url: string, rate?: number): Promise<Round> {
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
        String(rate ?? 1000000),
        '--window',
        String(WINDOW),
        '--duration',
        // a second more than counted, as the driver's child publishes: the counted window's end
        // falls inside publishing, with a CPU reading after it (ended with the run, it once had
        // none: NaN)
        String(GENERATOR_WARMUP_S + GENERATOR_DURATION_S + 1),
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
        sample.elapsedMs <= (GENERATOR_WARMUP_S + GENERATOR_DURATION_S) * 1000 + 500 &&
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
      countedFrom: first ? origin + first.elapsedMs - first.intervalMs : Number.NaN,
      countedTo: last ? origin + last.elapsedMs : Number.NaN,
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
async function driverRound(url: string, rate?: number): Promise<Round> {
  const run = await sampledChild([
    '-r',
    './lib/compile-cache.js',
    '-r',
    './lib/ts-register.js',
    join(ROOT, 'bench', 'mqtt-driver-child.ts'),
    url,
    String(WINDOW),
    String(GENERATOR_WARMUP_S),
    String(GENERATOR_DURATION_S),
    ...(rate === undefined ? [] : [String(rate)]),
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
    countedFrom: counted.countedFrom,
    countedTo: counted.countedTo,
  };
}

/**
 * One side of a round: acknowledged publishes per second, failures, CPU-µs per acknowledged one,
 * and its counted window's ends (Date.now()).
 */
interface Round {
  perSecond: number;
  failures: number;
  cpuMicros: number;
  countedFrom: number;
  countedTo: number;
}

/**
 * Both sides of a round at once, each a fresh child against the same sink, on the same client CPU:
 * over the same seconds, so that both see the same machine. One after the other (until
 * 2026-11-27), the driver's CPU per publish spread 14.7–28.8 µs from round to round against the
 * generator's 7.3–11.7 (the machine's load and the scheduler's batching of its reads, seconds
 * apart), so 7 of 9 runs gave no verdict although every round put the generator ahead. Resolves
 * with both sides and the share of the shorter counted window the two windows have in common.
 */
async function concurrentRound(url: string, rate?: number) {
  const [profile, driver] = await Promise.all([profileRound(url, rate), driverRound(url, rate)]);
  const common =
    Math.min(profile.countedTo, driver.countedTo) -
    Math.max(profile.countedFrom, driver.countedFrom);
  const shorter = Math.min(
    profile.countedTo - profile.countedFrom,
    driver.countedTo - driver.countedFrom,
  );
  return { profile, driver, overlap: Math.max(0, common) / Math.max(shorter, 1) };
}

/**
 * Seconds of a generator round not counted: the child is a fresh process, and over its first
 * seconds V8's compiler threads (whose run time the child's CPU includes) were still optimising
 * its hot path: at one second, its CPU per publish scattered by ±20 % from round to round.
 */
const GENERATOR_WARMUP_S = Math.max(WARMUP_S, positiveEnv('BENCH_GENERATOR_WARMUP_S', 3));

/**
 * Publishes per second each side is paced at in the CPU line's half of a round (the throughput
 * half is saturated): a rate both carry side by side on one CPU (saturated there, the generator
 * ~13,000–24,000/s, the driver ~8,000–12,000). Saturated, a side's CPU per publish follows how
 * many PUBACKs each read brings, which follows how busy the machine is: the driver's spread
 * 19–32 µs over one run's rounds while the generator's spread 9–13. Paced alike (the driver child
 * paces as the generator does), both write and read one publish at a time.
 */
const CPU_RATE = positiveEnv('BENCH_GENERATOR_RATE', 2000);
/**
 * How far from CPU_RATE a side's acknowledged rate may be for its round to count as paced (over
 * it: catching up after a stall, saturated meanwhile).
 */
const CARRIED_WITHIN = 0.05;
/** Times a round's paced half is run until both sides kept to the rate. */
const PACED_ATTEMPTS = 3;

/** Whether both sides of a paced half acknowledged CPU_RATE, within CARRIED_WITHIN. */
const onRate = (half: { profile: Round; driver: Round }) =>
  [half.profile.perSecond, half.driver.perSecond].every(
    (perSecond) => Math.abs(perSecond / CPU_RATE - 1) <= CARRIED_WITHIN,
  );

/**
 * Seconds each side is counted in each half of a round, after GENERATOR_WARMUP_S: both sides
 * publish at once, so a longer window costs no more rounds, and it averages over more of the
 * machine's other load (BENCH_DURATION_S's 4 s left one second's stall a quarter of a round).
 */
const GENERATOR_DURATION_S = positiveEnv('BENCH_GENERATOR_DURATION_S', 8);

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
    let carried = true;
    await onClientCpu(async () => {
      // a round, not counted: the sink's first seconds run slower, and the first child of each
      // side fills the code caches (lib/compile-cache.js, lib/ts-register.js) its later ones read;
      // every round's children then start alike and are counted after the same warm-up
      await concurrentRound(url);
      await concurrentRound(url, CPU_RATE);
      for (let round = 1; round <= ROUNDS; round++) {
        const saturated = await concurrentRound(url);
        // a half in which a side strayed from the rate (the machine stalled both, then they caught
        // up saturated) is run again, up to PACED_ATTEMPTS times: each counted half is paced
        let paced = await concurrentRound(url, CPU_RATE);
        for (let attempt = 1; attempt < PACED_ATTEMPTS && !onRate(paced); attempt++) {
          console.log(
            `      round ${round}'s paced half again: ${Math.round(paced.profile.perSecond)} and ${Math.round(paced.driver.perSecond)} acknowledged/s, more than ±${CARRIED_WITHIN * 100} % off ${CPU_RATE}/s; load average ${loadAverage()}`,
          );
          paced = await concurrentRound(url, CPU_RATE);
        }
        failures +=
          saturated.profile.failures +
          saturated.driver.failures +
          paced.profile.failures +
          paced.driver.failures;
        // a side that did not carry the rate measured a saturated CPU, not the paced one
        carried &&= onRate(paced);
        ratios.push(saturated.profile.perSecond / saturated.driver.perSecond);
        cpuRatios.push(paced.driver.cpuMicros / paced.profile.cpuMicros);
        const common = (overlap: number) => `${Math.round(overlap * 100)} %`;
        console.log(
          `      round ${round}, both sides at once (counted windows in common ${common(saturated.overlap)}, ${common(paced.overlap)}): saturated iotc load mqtt-gateway ${Math.round(saturated.profile.perSecond)} msg/s, bare driver ${Math.round(saturated.driver.perSecond)} msg/s, ratio ${ratios.at(-1)?.toFixed(2)} (CPU per publish ${saturated.profile.cpuMicros.toFixed(1)} against ${saturated.driver.cpuMicros.toFixed(1)} µs); at ${CPU_RATE}/s each (${Math.round(paced.profile.perSecond)}, ${Math.round(paced.driver.perSecond)} acknowledged/s) CPU per acknowledged publish ${paced.profile.cpuMicros.toFixed(1)} against ${paced.driver.cpuMicros.toFixed(1)} µs, ratio ${cpuRatios.at(-1)?.toFixed(2)}; load average ${loadAverage()}`,
        );
      }
    });
    // rounds that differ by more than ±15 % measured the machine, not the generator: no verdict
    // then. The throughput of each side is what the machine's other load left it, seconds apart;
    // the CPU each spends per acknowledged publish is what the generator costs, whatever the load
    // (the verdict that holds on a busy machine, as the platform's MQTT headroom has beside its
    // throughput)
    const judge = (values: number[], what: string, unit: string, judgeable = true) => {
      const ratio = median(values);
      const { spread } = steadiness(values);
      const steady = steadiness(values).steady && judgeable;
      const ok = failures === 0 && (!steady || ratio >= GOAL_GENERATOR_RATIO);
      const word = failures > 0 || (steady && !ok) ? 'FAIL' : steady ? 'PASS' : 'INFO';
      console.log(
        `${word}  generator/driver MQTT QoS 1 ${what} against the sink (accounting included), median of ${ROUNDS}: ${ratio.toFixed(2)} ${unit} (goal >= ${GOAL_GENERATOR_RATIO}), failed publishes: ${failures} (goal 0); ${
          steady
            ? `rounds within ${Math.round(spread * 100)} % of their median`
            : !judgeable
              ? `a side did not carry the rate: no verdict`
              : `rounds differ by up to ${Math.round(spread * 100)} % from their median (more than ±${STEADY_SPREAD * 100} %): the machine was too noisy, no verdict`
        }; load average ${loadAverage()}`,
      );
      return ok;
    };
    const throughputOk = judge(ratios, 'throughput', '(generator ÷ driver)');
    if (!carried)
      console.log(
        `      a side acknowledged more than ±${CARRIED_WITHIN * 100} % off ${CPU_RATE}/s in ${PACED_ATTEMPTS} attempts of a round (stalled, then catching up): its CPU per publish was measured saturated (BENCH_GENERATOR_RATE lower)`,
      );
    const cpuOk = judge(
      cpuRatios,
      `CPU per acknowledged publish at ${CPU_RATE}/s each`,
      "(driver ÷ generator: the driver's CPU-µs per publish over the generator's)",
      carried,
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
