/**
 * Throughput measured in alternating rounds (a and c, f): platform and baseline A/B then B/A, each
 * side warmed up, then measured in interleaved slices, so that a noisy shared machine cancels out
 * of the ratio.
 */
import { positiveEnv } from './children';

export const ROUNDS = positiveEnv('BENCH_ROUNDS', 5);
/** Seconds each side is measured per round (in SLICES slices). */
export const DURATION_S = positiveEnv('BENCH_DURATION_S', 4);
export const WARMUP_S = positiveEnv('BENCH_WARMUP_S', 1);
/**
 * Seconds each side runs before the first round, not counted: the servers and the client are fresh
 * processes, and their hot paths (the platform's more than the sink's, mqtt.js's in the client) went
 * on getting faster for the first ten to twenty seconds of load, so the rounds of a line drifted
 * upwards one after the other (0.57 → 1.26) instead of scattering about one figure.
 */
export const FIRST_WARMUP_S = positiveEnv('BENCH_FIRST_WARMUP_S', 10);
/**
 * Slices a side's DURATION_S is measured in, interleaved with the other side's (A B B A A B B A):
 * the machine's other load drifts over seconds (another engineer's build, a test run starting), and
 * one 4 s measurement of each side in turn gave one side a burst the other did not see (rounds
 * 0.44–0.75 on a quiet machine); interleaved 1 s slices give both sides the same seconds.
 */
export const SLICES = Math.max(1, Math.round(positiveEnv('BENCH_SLICES', 4)));

export interface Measurement {
  /** Requests or messages answered with success per second. */
  perSecond: number;
  p50: number;
  p99: number;
  /** non-2xx + errors + timeouts; failure PUBACKs and unanswered publishes */
  failures: number;
  total: number;
  /**
   * CPU-µs the server process spent per answered message while measured (`/proc/<pid>/stat`):
   * when the line can read it.
   */
  cpuMicros?: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * One side's slices of a round as one measurement: their mean rate (the slices are equally long),
 * the median of their p50s, the highest p99, the CPU per message over all of them.
 */
export function combined(slices: Measurement[]): Measurement {
  const total = slices.reduce((sum, slice) => sum + slice.total, 0);
  const withCpu = slices.every((slice) => slice.cpuMicros !== undefined);
  return {
    perSecond: slices.reduce((sum, slice) => sum + slice.perSecond, 0) / slices.length,
    p50: Math.round(median(slices.map((slice) => slice.p50)) * 10) / 10,
    p99: Math.max(...slices.map((slice) => slice.p99)),
    failures: slices.reduce((sum, slice) => sum + slice.failures, 0),
    total,
    cpuMicros: withCpu
      ? slices.reduce((sum, slice) => sum + (slice.cpuMicros as number) * slice.total, 0) /
        Math.max(total, 1)
      : undefined,
  };
}

/**
 * ROUNDS rounds of platform and baseline, A/B then B/A (neither side always gets the quieter second
 * slot): each side warmed up, then measured in SLICES interleaved slices (A B B A ...: combined());
 * the median of the per-round ratios platform ÷ baseline.
 */
export async function alternatingRounds(
  unit: string,
  measureOn: Record<'platform' | 'bare', (seconds: number) => Promise<Measurement>>,
  labels: Record<'platform' | 'bare', string> = { platform: 'platform', bare: 'bare' },
  /** The measurements carry the servers' CPU per message (`cpuMicros`): two more columns. */
  withCpu = false,
): Promise<{
  ratio: number;
  ratios: number[];
  failures: number;
  lines: string[];
  /** The servers' CPU-µs per message, round by round (empty when not measured). */
  cpuMicros: Record<'platform' | 'bare', number[]>;
}> {
  const lines: string[] = [];
  const ratios: number[] = [];
  const cpuMicros: Record<'platform' | 'bare', number[]> = { platform: [], bare: [] };
  let failures = 0;
  const row = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(7) : cell.padStart(14))).join(' ');
  lines.push(
    row([
      'round',
      `${labels.platform} ${unit}`,
      `${labels.bare} ${unit}`,
      'ratio',
      `${labels.platform.slice(0, 4)} p50/p99`,
      `${labels.bare.slice(0, 4)} p50/p99`,
      'failures',
      ...(withCpu ? [`${labels.platform.slice(0, 4)} CPU`, `${labels.bare.slice(0, 4)} CPU`] : []),
    ]),
  );
  for (const side of ['platform', 'bare'] as const) await measureOn[side](FIRST_WARMUP_S);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
    for (const side of order) await measureOn[side](WARMUP_S);
    const slices: Record<'platform' | 'bare', Measurement[]> = { platform: [], bare: [] };
    for (let slice = 0; slice < SLICES; slice++) {
      for (const side of slice % 2 ? [...order].reverse() : order)
        slices[side].push(await measureOn[side](DURATION_S / SLICES));
    }
    const onPlatform = combined(slices.platform);
    const onBare = combined(slices.bare);
    const ratio = onPlatform.perSecond / Math.max(onBare.perSecond, 1);
    ratios.push(ratio);
    failures += onPlatform.failures + onBare.failures;
    const cpu = (measurement: Measurement, side: 'platform' | 'bare') => {
      if (measurement.cpuMicros === undefined) return '';
      cpuMicros[side].push(measurement.cpuMicros);
      return `${measurement.cpuMicros.toFixed(1)} µs/${unit === 'r/s' ? 'req' : 'msg'}`;
    };
    lines.push(
      row([
        String(round),
        onPlatform.perSecond.toFixed(0),
        onBare.perSecond.toFixed(0),
        ratio.toFixed(2),
        `${onPlatform.p50}/${onPlatform.p99} ms`,
        `${onBare.p50}/${onBare.p99} ms`,
        String(onPlatform.failures + onBare.failures),
        cpu(onPlatform, 'platform'),
        cpu(onBare, 'bare'),
      ]).trimEnd(),
    );
  }
  return { ratio: median(ratios), ratios, failures, lines, cpuMicros };
}
