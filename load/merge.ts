/**
 * `iotc load merge`: the reports of the shards of one run into the report of the whole run,
 * exactly: totals and errors by kind summed, the latency HdrHistograms added (so the percentiles
 * are those of every answer of every shard, not an average of percentiles), the per-second series
 * summed by wall-clock second, each profile metric combined by its rule (summed unless the profile
 * says otherwise), and the thresholds evaluated again on the result.
 */
import * as hdr from 'hdr-histogram-js';
import { IotcError } from '../lib/errors';
import { commonMetrics, knownMetrics, type LoadProfile } from './contract';
import type { LoadReport } from './load-report';
import { type LoadSample, type LoadTotals, newHistogram, summarizeLatency } from './recorder';
import { evaluateThresholds, overallVerdict, parseThresholds } from './thresholds';

/** The load reports given to `iotc load merge` are not the shards of one run, once each. */
export class LoadMergeError extends IotcError {
  readonly code = 'IOTC_LOAD_MERGE';
}

/**
 * Checks the reports are every shard of one run, once each: one profile, one shard count, the same
 * options.
 */
function checkShards(reports: readonly LoadReport[]): void {
  const [first] = reports;
  if (!first) throw new LoadMergeError('no report to merge');
  const problems: string[] = [];
  for (const report of reports) {
    if (report.profile !== first.profile)
      problems.push(
        `${report.runId} is a ${report.profile} report, ${first.runId} a ${first.profile} one`,
      );
    if (!report.shard)
      problems.push(`${report.runId} is not a shard's report (run with --shard i/n)`);
    else if (report.shard.count !== reports.length)
      problems.push(
        `${report.runId} is shard ${report.shard.index} of ${report.shard.count}, but ${reports.length} reports are merged`,
      );
    if (typeof report.latencyHistogram !== 'string')
      problems.push(`${report.runId} carries no latency histogram (written by an older iotc)`);
    if (JSON.stringify(report.options) !== JSON.stringify(first.options))
      problems.push(`${report.runId} ran with other options than ${first.runId}`);
  }
  const indexes = new Set(reports.map((report) => report.shard?.index));
  if (problems.length === 0 && indexes.size !== reports.length)
    problems.push(
      `a shard appears twice: indexes ${reports.map((report) => report.shard?.index).join(', ')}`,
    );
  if (problems.length)
    throw new LoadMergeError(
      `the reports are not the shards of one run:\n  ${problems.join('\n  ')}`,
    );
}

function sumTotals(reports: readonly LoadReport[]): LoadTotals {
  const totals: LoadTotals = { sent: 0, succeeded: 0, errors: {}, errorCount: 0 };
  for (const { totals: shard } of reports) {
    totals.sent += shard.sent;
    totals.succeeded += shard.succeeded;
    totals.errorCount += shard.errorCount;
    for (const [kind, count] of Object.entries(shard.errors))
      totals.errors[kind] = (totals.errors[kind] ?? 0) + count;
    for (const [kind, count] of Object.entries(shard.refused ?? {})) {
      totals.refused ??= {};
      totals.refused[kind] = (totals.refused[kind] ?? 0) + count;
    }
  }
  return totals;
}

/** The shards' latency histograms added into one (µs), encoded as the reports carry it. */
function mergeHistograms(encoded: readonly string[]): hdr.Histogram {
  const merged = newHistogram();
  for (const text of encoded) {
    const shard = hdr.decodeFromCompressedBase64(text);
    merged.add(shard);
    shard.destroy();
  }
  return merged;
}

/**
 * The series summed by wall-clock second (each sample placed at its end: the report's start plus
 * its elapsed time). Counts add up exactly; a second's latency is the worst shard's (percentiles of
 * different answers do not add, and the reports keep no histogram per second).
 */
function mergeSeries(reports: readonly LoadReport[]): LoadSample[] {
  const origin = Math.min(...reports.map((report) => Date.parse(report.startedAt)));
  const seconds = new Map<number, LoadSample>();
  for (const report of reports)
    for (const sample of report.series) {
      const second = Math.floor((Date.parse(report.startedAt) - origin + sample.elapsedMs) / 1000);
      const merged = seconds.get(second) ?? {
        elapsedMs: (second + 1) * 1000,
        intervalMs: 1000,
        sent: 0,
        succeeded: 0,
        errors: {},
        latency: null,
      };
      merged.sent += sample.sent;
      merged.succeeded += sample.succeeded;
      for (const [kind, count] of Object.entries(sample.errors))
        merged.errors[kind] = (merged.errors[kind] ?? 0) + count;
      if (sample.latency)
        merged.latency = merged.latency
          ? {
              p50: Math.max(merged.latency.p50, sample.latency.p50),
              p99: Math.max(merged.latency.p99, sample.latency.p99),
              max: Math.max(merged.latency.max, sample.latency.max),
            }
          : { ...sample.latency };
      seconds.set(second, merged);
    }
  return [...seconds.entries()].sort(([a], [b]) => a - b).map(([, sample]) => sample);
}

function combine(rule: 'sum' | 'min' | 'max', values: ReadonlyArray<number | null>): number | null {
  if (values.some((value) => value === null || value === undefined)) return null;
  const numbers = values as number[];
  if (rule === 'min') return Math.min(...numbers);
  if (rule === 'max') return Math.max(...numbers);
  return Math.round(numbers.reduce((sum, value) => sum + value, 0) * 1000) / 1000;
}

export function mergeLoadReports(
  profile: LoadProfile<unknown>,
  reports: readonly LoadReport[],
): LoadReport {
  checkShards(reports);
  const ordered = [...reports].sort((a, b) => (a.shard?.index ?? 0) - (b.shard?.index ?? 0));
  const [first] = ordered;
  const totals = sumTotals(ordered);
  const histogram = mergeHistograms(ordered.map((report) => report.latencyHistogram));
  const latency = summarizeLatency(histogram);
  const latencyHistogram = hdr.encodeIntoCompressedBase64(histogram);
  histogram.destroy();
  // the shards send at once: the fleet's rate is the sum of theirs
  const metrics = commonMetrics(
    profile,
    totals,
    combine(
      'sum',
      ordered.map((report) => report.metrics.rate),
    ),
    latency,
  );
  const rules = profile.mergeRules ?? {};
  const own = Object.keys(profile.metrics);
  for (const name of own) {
    const rule = rules[name] ?? 'sum';
    if (typeof rule !== 'function')
      metrics[name] = combine(
        rule,
        ordered.map((report) => report.metrics[name]),
      );
  }
  for (const name of own) {
    const rule = rules[name];
    if (typeof rule === 'function') metrics[name] = rule(metrics);
  }
  const sources = [
    ...new Set(ordered.flatMap((report) => report.thresholds.map((threshold) => threshold.source))),
  ];
  const thresholds = evaluateThresholds(parseThresholds(sources, knownMetrics(profile)), metrics);
  const interrupted = ordered.some((report) => report.interrupted);
  return {
    profile: profile.name,
    title: first.title,
    target: [...new Set(ordered.map((report) => report.target))].join(', '),
    runId: ordered.map((report) => report.runId).join('+'),
    startedAt: new Date(
      Math.min(...ordered.map((report) => Date.parse(report.startedAt))),
    ).toISOString(),
    shard: null,
    startAt: first.startAt,
    options: first.options,
    totals,
    latencyMeasures: first.latencyMeasures,
    latency,
    latencyHistogram,
    metrics,
    thresholds,
    interrupted,
    verdict: interrupted ? 'FAIL' : overallVerdict(thresholds),
    series: mergeSeries(ordered),
    durationMs: {
      sending: Math.max(...ordered.map((report) => report.durationMs.sending)),
      total: Math.max(...ordered.map((report) => report.durationMs.total)),
    },
    details: {
      shards: ordered.map((report) => ({
        shard: `${report.shard?.index}/${report.shard?.count}`,
        runId: report.runId,
        startedAt: report.startedAt,
        verdict: report.verdict,
        sent: report.totals.sent,
        details: report.details,
      })),
    },
    notes: ordered.flatMap((report) =>
      report.notes.map((note) => `shard ${report.shard?.index}: ${note}`),
    ),
  };
}
