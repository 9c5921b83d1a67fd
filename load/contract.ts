/**
 * The load-profile contract: a profile declares its options (a JSON schema in schemas/, validated
 * like a target profile), the metrics it can measure and its default thresholds, and runs against a
 * target with an abort signal, telling a LoadRecorder every request and answer. `runLoadProfile`
 * does the rest the same way for every profile: validates the options and thresholds before
 * anything starts, samples the recorder every second (the report's time series), prints progress
 * every 5 s on stderr, evaluates the thresholds into one verdict (PASS / FAIL / NOT MEASURED) and
 * writes reports/load/<profile>.json and .html.
 */
import { randomBytes } from 'node:crypto';
import { validate } from '../schemas/validate';
import { openTarget, type Target } from '../src/target';
import { PROGRESS_EVERY_MS, progressLine, resultLines } from './progress';
import { type LatencySummary, type LoadSample, LoadRecorder, type LoadTotals } from './recorder';
import type { LoadReport } from './load-report';
import { writeLoadReport } from './report-writer';
import { evaluateThresholds, overallVerdict, parseThresholds, type Verdict } from './thresholds';
import { IotcError } from '../lib/errors';
import { type Shard, WHOLE_RUN, waitUntil } from './shard';

const SAMPLE_EVERY_MS = 1000;

/**
 * Metrics every profile has, from the recorder: counts, send rate and latency percentiles of the
 * answers.
 */
const COMMON_METRICS: Readonly<Record<string, string>> = {
  sent: 'requests sent',
  succeeded: 'answers that were a success',
  errors: 'answers that were not a success, and requests that got no answer',
  error_rate: 'errors over answers (0..1)',
  rate: 'requests sent per second over the sending time',
  p50: 'median latency (ms)',
  p90: '90th percentile latency (ms)',
  p99: '99th percentile latency (ms)',
  p999: '99.9th percentile latency (ms)',
  max: 'highest latency (ms)',
  mean: 'mean latency (ms)',
};

export interface LoadRunContext<Options> {
  options: Options;
  /**
   * The target profile; undefined only when the profile's `bareTarget` named an endpoint of its
   * own.
   */
  target: Target | undefined;
  /**
   * Unique per run: put it in every name the run creates (cleanup and shards tell runs apart by
   * it).
   */
  runId: string;
  recorder: LoadRecorder;
  signal: AbortSignal;
  log: (line: string) => void;
  /**
   * This process's part of the run (0/1 when not sharded): the profile takes shardIndexes() of its
   * items.
   */
  shard: Shard;
  /**
   * Called by the profile after its setup, right before it sends: resolves at the shared start
   * time, if any.
   */
  waitForStart(): Promise<void>;
}

/**
 * How `iotc load merge` combines a profile metric of the shards: summed (the default), the least or
 * the most of them, or recomputed from the merged metrics (a ratio of sums).
 */
export type MergeRule =
  | 'sum'
  | 'min'
  | 'max'
  | ((merged: Readonly<Record<string, number | null>>) => number | null);

export interface ProfileOutcome {
  /** Milliseconds spent sending (the rate is sent over this). */
  sendingMs: number;
  /** The profile's own metrics (names from `metrics`); undefined or null = not measured. */
  metrics: Record<string, number | null | undefined>;
  /** Profile-specific facts for the report (settings, readback, cleanup). */
  details: Record<string, unknown>;
  /** Sentences for the report: what was not measured and why, what was left behind. */
  notes: string[];
}

/**
 * The wait of each request in the generator, from when the rate owed it to its write
 * (LoadRecorder.queued).
 */
export const QUEUED_METRICS: Readonly<Record<string, string>> = {
  queued_p50:
    'median time a request waited in the generator, from when the rate owed it to its write (ms); not part of the latency',
  queued_p99: '99th percentile of that wait (ms)',
};

/** Shards' waits are not summed: the merged run reads the longest (an upper bound). */
export const QUEUED_MERGE_RULES: Readonly<Record<string, MergeRule>> = {
  queued_p50: 'max',
  queued_p99: 'max',
};

/** queued_p50 and queued_p99 from the recorder (undefined when nothing waited was recorded). */
export function queuedMetrics(recorder: LoadRecorder): {
  queued_p50?: number;
  queued_p99?: number;
} {
  const queued = recorder.queuedLatency();
  return queued ? { queued_p50: queued.p50, queued_p99: queued.p99 } : {};
}

/**
 * The merge of `schedule_kept` where `behind_schedule` is a count: sent over sent plus behind, of
 * the sums.
 */
export const SCHEDULE_KEPT_OF_SUMS: MergeRule = (merged) => {
  const sent = merged.sent;
  const behind = merged.behind_schedule;
  if (sent === null || sent === undefined || behind === null || behind === undefined) return null;
  return sent + behind > 0 ? Math.round((sent / (sent + behind)) * 1000) / 1000 : null;
};

export interface LoadProfile<Options> {
  name: string;
  /** One sentence for the report's title and the CLI. */
  title: string;
  /** The JSON schema of the options (schemas/load-*.ts). */
  optionsSchema: { $id?: string } & object;
  /** What the latencies time, e.g. "POST telemetry to its answer". */
  latencyMeasures: string;
  /** The profile's own metrics, with a sentence each. */
  metrics: Readonly<Record<string, string>>;
  /** Thresholds that always apply (those given on the command line are added). */
  defaultThresholds: readonly string[];
  /**
   * When the options name an endpoint of their own instead of a target profile (a bare MQTT URL):
   * its name for the report. No target profile is opened then, and the run gets `target` undefined.
   */
  bareTarget?(options: Options): string | undefined;
  /** How shard reports combine the profile's metrics; a metric not named is summed. */
  mergeRules?: Readonly<Record<string, MergeRule>>;
  run(context: LoadRunContext<Options>): Promise<ProfileOutcome>;
}

export type { LoadReport } from './load-report';

/**
 * The options of a load profile are malformed or do not fit the target (exit 2, before anything is
 * created).
 */
export class LoadOptionsError extends IotcError {
  readonly code = 'IOTC_LOAD_OPTIONS';
}

/**
 * The run's target profile; throws LoadOptionsError for a bare endpoint when the profile needs more
 * than that.
 */
export function profileTarget(context: LoadRunContext<unknown>, needs: string): Target {
  if (!context.target)
    throw new LoadOptionsError(`${needs} needs a target profile, not a bare endpoint`);
  return context.target;
}

export interface RunLoadOptions {
  /**
   * A profile name or path (default `embedded`), or a target already open (the caller closes it).
   */
  target?: string | Target;
  /** Threshold expressions added to the profile's defaults. */
  thresholds?: readonly string[];
  /**
   * false: only `thresholds` decide the verdict, not the profile's defaults (none at all is NOT
   * MEASURED).
   */
  defaultThresholds?: boolean;
  /** Where reports/load/ goes; no files when absent. */
  reportsDir?: string;
  signal?: AbortSignal;
  /** Result lines (stdout by default). */
  log?: (line: string) => void;
  /** Progress lines (stderr by default). */
  progress?: (line: string) => void;
  /** This process's part of a sharded run (default: the whole run). */
  shard?: Shard;
  /** Epoch ms at which every shard starts sending (after its own setup). */
  startAt?: number;
  /**
   * Also write every latency recorded (µs) to reports/load/<profile>.latencies.json, to check
   * merges against.
   */
  rawLatencies?: boolean;
}

/**
 * PASS 0, FAIL 1, NOT MEASURED 3, as `iotc run` (2 is the CLI's usage and setup errors, 3 its
 * "could not test"): a run that could not decide is not a success.
 */
export function exitCodeOf(verdict: Verdict): number {
  return verdict === 'PASS' ? 0 : verdict === 'FAIL' ? 1 : 3;
}

export function knownMetrics(profile: LoadProfile<unknown>): string[] {
  return [...Object.keys(COMMON_METRICS), ...Object.keys(profile.metrics)];
}

/**
 * Every metric the profile knows, null until measured, with the common ones filled in from the
 * totals, the rate and the latency percentiles (a run and a merge of shards fill them the same
 * way).
 */
export function commonMetrics(
  profile: LoadProfile<unknown>,
  totals: LoadTotals,
  rate: number | null,
  latency: LatencySummary | null,
): Record<string, number | null> {
  const answered = totals.succeeded + totals.errorCount;
  const metrics: Record<string, number | null> = Object.fromEntries(
    knownMetrics(profile).map((name) => [name, null]),
  );
  return Object.assign(metrics, {
    sent: totals.sent,
    succeeded: totals.succeeded,
    errors: totals.errorCount,
    error_rate: answered ? Math.round((totals.errorCount / answered) * 10_000) / 10_000 : null,
    rate,
    p50: latency?.p50 ?? null,
    p90: latency?.p90 ?? null,
    p99: latency?.p99 ?? null,
    p999: latency?.p999 ?? null,
    max: latency?.max ?? null,
    mean: latency?.mean ?? null,
  });
}

/**
 * Validates the options against the profile's schema; throws LoadOptionsError listing every
 * problem.
 */
function checkOptions<Options>(profile: LoadProfile<Options>, options: unknown): Options {
  const check = validate(profile.optionsSchema, options);
  if (!check.ok)
    throw new LoadOptionsError(
      `options of load profile ${profile.name} are invalid:\n  ${check.errors.join('\n  ')}`,
    );
  return options as Options;
}

export async function runLoadProfile<Options>(
  profile: LoadProfile<Options>,
  rawOptions: unknown,
  run: RunLoadOptions = {},
): Promise<{ report: LoadReport; exitCode: number }> {
  const options = checkOptions(profile, rawOptions);
  const thresholds = parseThresholds(
    [
      ...(run.defaultThresholds === false ? [] : profile.defaultThresholds),
      ...(run.thresholds ?? []),
    ],
    knownMetrics(profile as LoadProfile<unknown>),
  );
  const log = run.log ?? ((line: string) => console.log(line));
  const progress = run.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const signal = run.signal ?? new AbortController().signal;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const bare = profile.bareTarget?.(options);
  const ownsTarget = bare === undefined && typeof run.target !== 'object';
  const target =
    bare !== undefined
      ? undefined
      : typeof run.target === 'object'
        ? run.target
        : await openTarget(run.target ?? 'embedded');
  const runId = randomBytes(3).toString('hex');
  const recorder = new LoadRecorder(performance.now(), { keepRaw: run.rawLatencies });
  const shard = run.shard ?? WHOLE_RUN;
  const waitForStart = async () => {
    if (run.startAt === undefined) return;
    const waitMs = run.startAt - Date.now();
    log(
      waitMs > 0
        ? `waiting ${Math.round(waitMs / 100) / 10} s for the shared start ${new Date(run.startAt).toISOString()}`
        : `the shared start ${new Date(run.startAt).toISOString()} passed ${-waitMs} ms ago: starting now`,
    );
    await waitUntil(run.startAt, signal);
  };
  const series: LoadSample[] = [];
  let sinceProgress: LoadSample[] = [];
  const timer = setInterval(() => {
    const sample = recorder.sample();
    series.push(sample);
    sinceProgress.push(sample);
    if (sinceProgress.reduce((sum, each) => sum + each.intervalMs, 0) >= PROGRESS_EVERY_MS - 100) {
      progress(progressLine(sinceProgress, recorder.snapshot()));
      sinceProgress = [];
    }
  }, SAMPLE_EVERY_MS);
  let outcome: ProfileOutcome;
  try {
    outcome = await profile.run({
      options,
      target,
      runId,
      recorder,
      signal,
      log,
      shard,
      waitForStart,
    });
  } finally {
    clearInterval(timer);
    if (ownsTarget) await target?.close();
  }
  series.push(recorder.sample());
  const totals = recorder.snapshot();
  const latency = recorder.latency();
  const latencyHistogram = recorder.encodedLatency();
  const raw = recorder.rawLatencies();
  recorder.destroy();
  const metrics = commonMetrics(
    profile as LoadProfile<unknown>,
    totals,
    outcome.sendingMs > 0 ? Math.round((totals.sent / outcome.sendingMs) * 100_000) / 100 : null,
    latency,
  );
  for (const [name, value] of Object.entries(outcome.metrics))
    if (name in metrics) metrics[name] = value ?? null;
  const results = evaluateThresholds(thresholds, metrics);
  const interrupted = signal.aborted;
  const verdict: Verdict = interrupted ? 'FAIL' : overallVerdict(results);
  const report: LoadReport = {
    profile: profile.name,
    title: profile.title,
    target: target?.name ?? bare ?? 'none',
    runId,
    startedAt,
    shard: run.shard ?? null,
    startAt: run.startAt === undefined ? null : new Date(run.startAt).toISOString(),
    options,
    totals,
    latencyMeasures: profile.latencyMeasures,
    latency,
    latencyHistogram,
    metrics,
    thresholds: results,
    interrupted,
    verdict,
    series,
    durationMs: {
      sending: Math.round(outcome.sendingMs),
      total: Math.round(performance.now() - started),
    },
    details: outcome.details,
    notes: interrupted
      ? ['interrupted: the run was stopped before its end', ...outcome.notes]
      : outcome.notes,
  };
  for (const line of resultLines(report)) log(line);
  if (run.reportsDir) {
    const written = writeLoadReport(report, run.reportsDir, raw);
    log(`${verdictLine(report)}; reports ${written.json} and .html`);
  } else log(verdictLine(report));
  return { report, exitCode: exitCodeOf(verdict) };
}

/**
 * The verdict with its cause, never a bare word: "FAIL (interrupted: ...)", "FAIL: p99<50 not held
 * (p99 = 80)", "NOT MEASURED: lost==0 was not measured".
 */
export function verdictLine(
  report: Pick<LoadReport, 'verdict' | 'interrupted' | 'thresholds'>,
): string {
  if (report.interrupted)
    return `${report.verdict} (interrupted: the run was stopped before its end by Ctrl-C or SIGTERM, so its thresholds do not judge a whole run)`;
  const own = (verdict: string) =>
    report.thresholds.filter((threshold) => threshold.verdict === verdict);
  if (report.verdict === 'FAIL')
    return `FAIL: ${own('FAIL')
      .map(
        (threshold) => `${threshold.source} not held (${threshold.metric} = ${threshold.actual})`,
      )
      .join(', ')}`;
  if (report.verdict === 'NOT MEASURED')
    return `NOT MEASURED: ${own('NOT MEASURED')
      .map((threshold) => `${threshold.source} was not measured`)
      .join(', ')}`;
  return report.verdict;
}
