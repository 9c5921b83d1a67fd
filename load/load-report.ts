/** What a run of a load profile reports (reports/load/<profile>.json): its own module, read by the contract and the writer. */
import type { LatencySummary, LoadSample, LoadTotals } from './recorder';
import type { ThresholdResult, Verdict } from './thresholds';

export interface LoadReport {
  profile: string;
  title: string;
  target: string;
  runId: string;
  startedAt: string;
  options: unknown;
  totals: LoadTotals;
  latencyMeasures: string;
  latency: LatencySummary | null;
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
