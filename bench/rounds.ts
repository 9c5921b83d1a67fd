/**
 * Throughput measured in alternating rounds (a and c, f): platform and baseline A/B then B/A, each
 * measurement after a warm-up, so that a noisy shared machine cancels out of the ratio.
 */
import { positiveEnv } from './children';

export const ROUNDS = positiveEnv('BENCH_ROUNDS', 5);
export const DURATION_S = positiveEnv('BENCH_DURATION_S', 4);
export const WARMUP_S = positiveEnv('BENCH_WARMUP_S', 1);

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
 * ROUNDS rounds of platform and baseline, A/B then B/A (neither side always gets the quieter second
 * slot), each measurement after a warm-up; the median of the per-round ratios platform ÷ baseline.
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
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
    const results: Partial<Record<'platform' | 'bare', Measurement>> = {};
    for (const side of order) {
      await measureOn[side](WARMUP_S);
      results[side] = await measureOn[side](DURATION_S);
    }
    const { platform: onPlatform, bare: onBare } = results as Record<
      'platform' | 'bare',
      Measurement
    >;
    const ratio = onPlatform.perSecond / Math.max(onBare.perSecond, 1);
    ratios.push(ratio);
    failures += onPlatform.failures + onBare.failures;
    const cpu = (measurement: Measurement, side: 'platform' | 'bare') => {
      if (measurement.cpuMicros === undefined) return '';
      cpuMicros[side].push(measurement.cpuMicros);
      return `${measurement.cpuMicros.toFixed(1)} µs/msg`;
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
