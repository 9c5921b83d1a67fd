/**
 * The live progress line of a load run, from its samples: elapsed, sent, succeeded (acknowledged),
 * the send rate of the last lines' samples, p50/p99 of those samples and the errors so far by kind.
 * Printed on stderr every 5 s so stdout stays for results.
 */
import type { LoadReport } from './load-report';
import type { LatencySummary, LoadSample, LoadTotals } from './recorder';

export const PROGRESS_EVERY_MS = 5000;

/** One line for the samples since the last line and the totals so far. */
export function progressLine(samples: readonly LoadSample[], totals: LoadTotals): string {
  const last = samples.at(-1);
  const elapsedS = ((last?.elapsedMs ?? 0) / 1000).toFixed(1);
  const windowMs = samples.reduce((sum, sample) => sum + sample.intervalMs, 0);
  const sentInWindow = samples.reduce((sum, sample) => sum + sample.sent, 0);
  const rate = windowMs > 0 ? Math.round((sentInWindow / windowMs) * 10_000) / 10 : 0;
  const answered = samples.filter((sample) => sample.latency);
  // the worst interval's percentiles: a mean of percentiles would hide a bad second
  const p50 = answered.length
    ? Math.max(...answered.map((sample) => sample.latency?.p50 ?? 0))
    : undefined;
  const p99 = answered.length
    ? Math.max(...answered.map((sample) => sample.latency?.p99 ?? 0))
    : undefined;
  return countsLine(`[${elapsedS} s]`, totals, rate, p50, p99);
}

/**
 * The whole run in one line: the totals, the rate over the sending time, percentiles of every
 * answer.
 */
function summaryLine(
  sendingMs: number,
  totals: LoadTotals,
  rate: number | null,
  latency: LatencySummary | null,
): string {
  return countsLine(
    `[total, ${Math.round(sendingMs / 100) / 10} s sending]`,
    totals,
    rate ?? 0,
    latency?.p50,
    latency?.p99,
  );
}

function countsLine(
  head: string,
  totals: LoadTotals,
  rate: number,
  p50: number | undefined,
  p99: number | undefined,
): string {
  const errors = Object.entries(totals.errors)
    .sort(([, a], [, b]) => b - a)
    .map(([kind, count]) => `${count}× ${kind}`)
    .join(', ');
  return [
    head,
    `sent ${totals.sent}`,
    `acknowledged ${totals.succeeded}`,
    `rate ${rate}/s`,
    p50 === undefined ? 'p50 -' : `p50 ${p50} ms`,
    p99 === undefined ? 'p99 -' : `p99 ${p99} ms`,
    `errors ${totals.errorCount}${errors ? ` (${errors})` : ''}`,
    ...(totals.refused
      ? [
          `refused as expected ${Object.entries(totals.refused)
            .map(([kind, count]) => `${count}× ${kind}`)
            .join(', ')}`,
        ]
      : []),
  ].join('  ');
}

/**
 * The result of a run (or a merge) on the console: the whole run in one line (every error kind with
 * its count), then each threshold.
 */
export function resultLines(report: LoadReport): string[] {
  return [
    summaryLine(report.durationMs.sending, report.totals, report.metrics.rate, report.latency),
    ...report.thresholds.map(
      (result) =>
        `${result.verdict.padEnd(12)} ${result.source} (actual ${result.actual ?? 'not measured'})`,
    ),
  ];
}
