/**
 * What a run of a load profile reports (reports/load/<profile>.json): its own module, read by the
 * contract and the writer.
 */
import type { LatencySummary, LoadSample, LoadTotals } from './recorder';
import type { ThresholdResult, Verdict } from './thresholds';

export interface LoadReport {
  profile: string;
  title: string;
  target: string;
  runId: string;
  startedAt: string;
  /** This report's part of a sharded run; null for a whole run or a merge of all shards. */
  shard: { index: number; count: number } | null;
  /** The shared start time (ISO 8601) the run waited for, if any. */
  startAt: string | null;
  /** The options of the whole run (a shard takes its part of them). */
  options: unknown;
  totals: LoadTotals;
  latencyMeasures: string;
  latency: LatencySummary | null;
  /**
   * Every latency (µs) as an HdrHistogram, compressed base64: shard reports merge into exact
   * percentiles.
   */
  latencyHistogram: string;
  /** Every metric the profile knows; null when this run did not measure it. */
  metrics: Record<string, number | null>;
  thresholds: ThresholdResult[];
  interrupted: boolean;
  verdict: Verdict;
  /** One sample per second of the run. */
  series: LoadSample[];
  durationMs: { sending: number; total: number };
  details: Record<string, unknown>;
  notes: string[];
}
