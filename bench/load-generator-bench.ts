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
 *    generator does); both children's run time from /proc, read by one timer, and their
 *    acknowledged counts, over the same seconds (the generator's per-second samples inside both
 *    counted windows): driver ÷ generator, goal ≥ 0.8, no verdict when a side did not carry the
 *    rate. (Saturated and one side after the other, the driver's CPU per publish spread
 *    14.7–28.8 µs over rounds: 7 of 9 runs gave no verdict.) The throughput of each side is what
 *    the machine's other load left it; the CPU per publish is the generator's own cost.
 *  - Memory: the generator's resident memory per simulated device: in one child
 *    (bench/load-memory-child.ts), runs with BENCH_GENERATOR_GATEWAYS gateways × 1 (a warm-up, not
 *    counted), 1, then ¼, ½ and all of BENCH_GENERATOR_DEVICES devices each, RSS read at the end of
 *    each run's publishing after the GC settled (bench/settled-memory.ts); bytes per device = the
 *    least-squares slope through the four readings (bench/slope.ts), which gives no verdict (INFO,
 *    saying why) when it is not positive, the readings do not grow with the devices, or they
 *    scatter about the line
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
import type { SettledMemory } from './settled-memory';
import { fitSlope, slopeVerdict } from './slope';
import { onClientCpu, serverCommand } from './pinning';
import { processCpuSeconds } from './mqtt-publish-cpu';
import { median, ROUNDS, WARMUP_S } from './rounds';

export const GOAL_GENERATOR_RATIO = 0.8;
export const GOAL_GENERATOR_BYTES_PER_DEVICE = 2048;

const WINDOW = MQTT_WINDOW;
const GENERATOR_GATEWAYS = positiveEnv('BENCH_GENERATOR_GATEWAYS', 100);
/**
 * Devices per gateway at the memory line's last point (¼ and ½ of it before): 100,000 devices in
 * all by default. With 200 (20,000 devices, some 6 MiB of heap between the first and last points)
 * the allocator's own movements (pages kept, the young generation resized by 4–6 MiB) were as large
 * as the devices' cost: settled readings gave R² 0.78–0.92.
 */
const GENERATOR_DEVICES = positiveEnv('BENCH_GENERATOR_DEVICES', 1000);

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

/** A bench client child (either side of the line) to its exit: what it printed. */
interface ClientRun {
  code: number | null;
  output: string;
  errors: string;
  /** Its CPU-seconds (every thread's run time, /proc), read every CPU_SAMPLE_MS: [Date.now(), s]. */
  cpu: Point[];
}

/**
 * Runs both sides of a round at once, each in a fresh child (`iotc load mqtt-gateway`, the bare
 * driver's mqtt-driver-child.ts), to their ends, reading both children's CPU at the same instants
 * every CPU_SAMPLE_MS (one timer for both: each side's CPU is interpolated at the same seconds'
 * ends, the generator's). Both are killed on every way out.
 */
async function bothAtOnce(
  generatorArgs: string[],
  generatorEnv: NodeJS.ProcessEnv,
  driverArgs: string[],
): Promise<[ClientRun, ClientRun]> {
  const started = [
    { args: generatorArgs, env: generatorEnv },
    { args: driverArgs, env: process.env },
  ].map(({ args, env }) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    const run: ClientRun = { code: null, output: '', errors: '', cpu: [] };
    child.stdout!.on('data', (chunk) => (run.output = (run.output + chunk).slice(-64_000)));
    child.stderr!.on('data', (chunk) => (run.errors = (run.errors + chunk).slice(-4000)));
    const exited = once(child, 'exit').then(([code]) => {
      run.code = code as number | null;
      return run;
    });
    return { child, run, exited };
  });
  const sampler = setInterval(() => {
    for (const { child, run } of started) {
      const seconds = child.pid === undefined ? undefined : processCpuSeconds(child.pid);
      if (seconds !== undefined) run.cpu.push([Date.now(), seconds]);
    }
  }, CPU_SAMPLE_MS);
  try {
    const [generator, driver] = await Promise.all(started.map(({ exited }) => exited));
    return [generator, driver];
  } finally {
    clearInterval(sampler);
    for (const { child } of started) {
      await kill(child);
      children.delete(child);
    }
  }
}

/** `iotc load mqtt-gateway`'s arguments for a round against the sink (saturated without a rate). */
const generatorArgs = (url: string, reports: string, rate?: number) => [
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
  // a second more than counted, as the driver's child publishes: the counted window's end falls
  // inside publishing, with a CPU reading after it (ended with the run, it once had none: NaN)
  String(GENERATOR_WARMUP_S + GENERATOR_DURATION_S + 1),
  '-r',
  reports,
];

/** The bare driver's child's arguments (mqtt-driver-child.ts), through the same code caches. */
const driverArgs = (url: string, rate?: number) => [
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
];

/**
 * The generator's side from its report: acknowledged publishes per second from its per-second
 * samples after the first GENERATOR_WARMUP_S seconds (the child is a fresh process, and its first
 * second, code compiled and connections opened, ran at a rate that depended on how busy the
 * machine was then; the last sample, cut short by the run's end, is left out too; the whole run's
 * rate when the report has too few samples), and its publishes acknowledged so far at each
 * sample's end (the report's own clock: startedAt + elapsedMs).
 */
function generatorSide(run: ClientRun, reports: string): Side {
  // (its exit code is the load run's own verdict, not the bench's: the report is read either way)
  let report: LoadReport;
  try {
    report = JSON.parse(readFileSync(join(reports, 'load', 'mqtt-gateway.json'), 'utf8'));
  } catch {
    throw new Error(`iotc load mqtt-gateway wrote no report (exit ${run.code}):\n${run.errors}`);
  }
  const origin = Date.parse(report.startedAt);
  const acknowledged: Point[] = [[origin, 0]];
  for (const sample of report.series)
    acknowledged.push([origin + sample.elapsedMs, acknowledged.at(-1)![1] + sample.succeeded]);
  const steady = report.series.filter(
    (sample) =>
      sample.elapsedMs - sample.intervalMs >= GENERATOR_WARMUP_S * 1000 &&
      sample.elapsedMs <= (GENERATOR_WARMUP_S + GENERATOR_DURATION_S) * 1000 + 500 &&
      sample.intervalMs >= 900,
  );
  const steadyMs = steady.reduce((sum, sample) => sum + sample.intervalMs, 0);
  const succeeded = steady.reduce((sum, sample) => sum + sample.succeeded, 0);
  const first = steady[0];
  const last = steady.at(-1);
  return {
    perSecond:
      steady.length >= 2
        ? (succeeded * 1000) / steadyMs
        : report.totals.succeeded / (report.durationMs.sending / 1000),
    failures: report.totals.errorCount,
    countedFrom: first ? origin + first.elapsedMs - first.intervalMs : Number.NaN,
    countedTo: last ? origin + last.elapsedMs : Number.NaN,
    acknowledged,
    cpu: run.cpu,
  };
}

/**
 * The bare driver's side from its child's last line: acknowledged publishes per second over its
 * counted seconds (after the same first GENERATOR_WARMUP_S) and its publishes acknowledged so far,
 * noted every 100 ms.
 */
function driverSide(run: ClientRun): Side {
  if (run.code !== 0)
    throw new Error(`the bare driver's child exited with ${run.code}:\n${run.errors}`);
  const counted = JSON.parse(run.output.trim().split('\n').at(-1) ?? '') as {
    acknowledged: number;
    failures: number;
    countedFrom: number;
    countedTo: number;
    series: Point[];
  };
  return {
    perSecond: (counted.acknowledged * 1000) / Math.max(counted.countedTo - counted.countedFrom, 1),
    failures: counted.failures,
    countedFrom: counted.countedFrom,
    countedTo: counted.countedTo,
    acknowledged: counted.series,
    cpu: run.cpu,
  };
}

/** A reading at a moment: [Date.now(), value] (CPU-seconds, publishes acknowledged so far). */
type Point = [number, number];

/**
 * One side of a round: acknowledged publishes per second over its own counted seconds, failures,
 * its counted window's ends (Date.now()), its publishes acknowledged so far and its CPU-seconds,
 * each read at moments (interpolated between).
 */
interface Side {
  perSecond: number;
  failures: number;
  countedFrom: number;
  countedTo: number;
  acknowledged: Point[];
  cpu: Point[];
}

/**
 * Both sides of a round at once, each a fresh child against the same sink, on the same client CPU:
 * over the same seconds, so that both see the same machine. One after the other (until
 * 2026-11-27), the driver's CPU per publish spread 14.7–28.8 µs from round to round against the
 * generator's 7.3–11.7 (the machine's load and the scheduler's batching of its reads, seconds
 * apart), so 7 of 9 runs gave no verdict although every round put the generator ahead.
 *
 * The CPU per acknowledged publish of both sides is counted over the same seconds: the generator's
 * per-second samples that lie inside both counted windows (six or seven of its eight), each side's
 * CPU (one timer reads both children) and acknowledged count interpolated at those seconds' ends.
 * Until 2026-11-28 each side was counted over its own window (85–100 % in common), read by its own
 * timer: the last full bench's round 5 gave 1.41 against 1.64–1.79, no verdict. `cpuRatio`
 * (driver ÷ generator) is over those seconds together; the seconds' own ratios (printed as a
 * range) scatter by ±20 %, one second in seven dearer for the generator (its progress line, a
 * GC): a median of them would leave out what the generator costs. Resolves with both sides, the
 * share of the shorter counted window the two have in common, and the CPU figures.
 */
async function concurrentRound(url: string, rate?: number) {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-bench-generator-'));
  try {
    const [generatorRun, driverRun] = await bothAtOnce(
      generatorArgs(url, reports, rate),
      { ...process.env, BENCH_SINK_TOKENS: 'bench-token' },
      driverArgs(url, rate),
    );
    const profile = generatorSide(generatorRun, reports);
    const driver = driverSide(driverRun);
    const from = Math.max(profile.countedFrom, driver.countedFrom);
    const to = Math.min(profile.countedTo, driver.countedTo);
    const shorter = Math.min(
      profile.countedTo - profile.countedFrom,
      driver.countedTo - driver.countedFrom,
    );
    // the generator's seconds inside both windows (its sample ends: its own counts are exact there)
    const ends = profile.acknowledged.map(([at]) => at).filter((at) => at >= from && at <= to);
    const seconds = ends.slice(1).map((end, i) => {
      const cost = (side: Side) => {
        const cpu = valueAt(side.cpu, end) - valueAt(side.cpu, ends[i]);
        const acknowledged = valueAt(side.acknowledged, end) - valueAt(side.acknowledged, ends[i]);
        return { cpu, acknowledged };
      };
      return { profile: cost(profile), driver: cost(driver) };
    });
    const perPublish = (costs: { cpu: number; acknowledged: number }[]) =>
      (costs.reduce((sum, cost) => sum + cost.cpu, 0) * 1e6) /
      Math.max(
        costs.reduce((sum, cost) => sum + cost.acknowledged, 0),
        1,
      );
    const perSecondRatios = seconds.map(
      (second) => perPublish([second.driver]) / perPublish([second.profile]),
    );
    /** CPU-µs per acknowledged publish over the seconds in common. */
    const cpuMicros = {
      profile: perPublish(seconds.map((second) => second.profile)),
      driver: perPublish(seconds.map((second) => second.driver)),
    };
    return {
      profile,
      driver,
      overlap: Math.max(0, to - from) / Math.max(shorter, 1),
      cpuMicros,
      cpuRatio: seconds.length ? cpuMicros.driver / cpuMicros.profile : Number.NaN,
      perSecondRatios,
    };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
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
const onRate = (half: { profile: Side; driver: Side }) =>
  [half.profile.perSecond, half.driver.perSecond].every(
    (perSecond) => Math.abs(perSecond / CPU_RATE - 1) <= CARRIED_WITHIN,
  );

/**
 * Seconds each side is counted in each half of a round, after GENERATOR_WARMUP_S: both sides
 * publish at once, so a longer window costs no more rounds, and it averages over more of the
 * machine's other load (BENCH_DURATION_S's 4 s left one second's stall a quarter of a round).
 */
const GENERATOR_DURATION_S = positiveEnv('BENCH_GENERATOR_DURATION_S', 8);

/** How often both children's CPU is read (the seconds counted are interpolated between). */
const CPU_SAMPLE_MS = 100;

/** The value at `at` (Date.now()), interpolated between the readings around it. */
function valueAt(readings: Point[], at: number): number {
  const after = readings.findIndex(([when]) => when >= at);
  if (after <= 0) return after === 0 ? readings[0]![1] : Number.NaN;
  const [beforeAt, before] = readings[after - 1]!;
  const [nextAt, next] = readings[after]!;
  return before + ((next - before) * (at - beforeAt)) / Math.max(nextAt - beforeAt, 1);
}

interface Reading extends SettledMemory {
  /** Devices in all (gateways × devices per gateway). */
  devices: number;
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

const loadAverage = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/**
 * Starts the sink (on the servers' CPU when the bench pins: pinning.ts), runs `lines` against it,
 * stops it.
 */
async function withSink(lines: (url: string) => Promise<boolean>): Promise<boolean> {
  const sink = await startChild(
    ['-r', './lib/ts-register.js', join(ROOT, 'bench', 'mqtt-sink-child.ts')],
    process.env,
    true,
  );
  try {
    return await lines(sink.answer.mqttUrl as string);
  } finally {
    await kill(sink.child);
  }
}

/** Prints the three lines (and the rounds); resolves with whether their goals hold. */
export function generatorCapacityLines(): Promise<boolean> {
  return withSink(async (url) => {
    const rates = await rateLines(url);
    return (await memoryLine(url)) && rates;
  });
}

/** The generator's memory line alone (BENCH_ONLY_GENERATOR_MEMORY=1). */
export function generatorMemoryLine(): Promise<boolean> {
  return withSink(memoryLine);
}

/**
 * The throughput and CPU lines (both clients, the driver's child and the generator's, on the
 * client's CPU when the bench pins; a child inherits this process's CPUs); resolves with whether
 * both goals hold.
 */
async function rateLines(url: string): Promise<boolean> {
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
      cpuRatios.push(paced.cpuRatio);
      const common = (overlap: number) => `${Math.round(overlap * 100)} %`;
      console.log(
        `      round ${round}, both sides at once (counted windows in common ${common(saturated.overlap)}, ${common(paced.overlap)}): saturated iotc load mqtt-gateway ${Math.round(saturated.profile.perSecond)} msg/s, bare driver ${Math.round(saturated.driver.perSecond)} msg/s, ratio ${ratios.at(-1)?.toFixed(2)} (CPU per publish ${saturated.cpuMicros.profile.toFixed(1)} against ${saturated.cpuMicros.driver.toFixed(1)} µs); at ${CPU_RATE}/s each (${Math.round(paced.profile.perSecond)}, ${Math.round(paced.driver.perSecond)} acknowledged/s) CPU per acknowledged publish over the same ${paced.perSecondRatios.length} s ${paced.cpuMicros.profile.toFixed(1)} against ${paced.cpuMicros.driver.toFixed(1)} µs, ratio ${cpuRatios.at(-1)?.toFixed(2)} (the seconds' own ${Math.min(...paced.perSecondRatios).toFixed(2)}–${Math.max(...paced.perSecondRatios).toFixed(2)}); load average ${loadAverage()}`,
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
  return throughputOk && cpuOk;
}

/** The memory line; resolves with whether its goal holds (no verdict is not a failure). */
async function memoryLine(url: string): Promise<boolean> {
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
      .join(
        ', ',
      )}; heap ${readings.map((reading) => mib(reading.heapUsed)).join(', ')} MiB; young generation ${readings.map((reading) => mib(reading.youngGeneration)).join(', ')} MiB (read after the GC settled)`,
  );
  console.log(
    `${verdict}  load generator resident memory per simulated device (${GENERATOR_GATEWAYS} gateways x ${counts.join(' → ')}, slope of ${readings.length} points): ${Math.round(rss.slope)} bytes (goal <= ${GOAL_GENERATOR_BYTES_PER_DEVICE}), R² ${rss.r2.toFixed(3)}${rss.noVerdict ? `; no verdict: ${rss.noVerdict}` : ''}; heap ${Math.round(heap.slope)} bytes (R² ${heap.r2.toFixed(3)}); load average ${loadAverage()}`,
  );
  return memoryOk;
}
