/**
 * What a load profile tells while it runs: each request sent, and each answer (success or an error
 * of a named kind) with its latency. The recorder keeps the totals and an HDR histogram of every
 * latency (hdr-histogram-js, the project's histogram), and cuts the run into samples: each
 * `sample()` closes the interval since the last one, with its own counts and latency percentiles.
 * The contract calls it every second, so the samples are the report's per-second time series and
 * the live progress reads them.
 */
import * as hdr from 'hdr-histogram-js';

/**
 * Latencies in microseconds, 1 µs to 2 minutes, 3 significant digits: every report's and every
 * merge's.
 */
export function newHistogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export interface LatencySummary {
  unit: 'ms';
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface LoadSample {
  /** Milliseconds from the start of the run to the end of the interval. */
  elapsedMs: number;
  /** Length of the interval in milliseconds. */
  intervalMs: number;
  sent: number;
  succeeded: number;
  /** Errors of the interval by kind (e.g. `HTTP 429 {"status":429,...}`, `network ECONNRESET`). */
  errors: Record<string, number>;
  /** Latency percentiles of the answers of the interval (ms); null when nothing was answered. */
  latency: null | { p50: number; p99: number; max: number };
}

export interface LoadTotals {
  sent: number;
  succeeded: number;
  errors: Record<string, number>;
  errorCount: number;
  /**
   * Answers the profile expects and measures, which are neither successes nor errors: the
   * report-rate-limit probe's 429s (the limiter refusing, what it looks for). By kind; absent when
   * there were none.
   */
  refused?: Record<string, number>;
}

export class LoadRecorder {
  private readonly total = newHistogram();
  private interval = newHistogram();
  /**
   * Time each request waited in the generator, from when the rate owed it to its write (µs); made
   * on first use.
   */
  private queue: hdr.Histogram | undefined;
  private readonly totals: LoadTotals = { sent: 0, succeeded: 0, errors: {}, errorCount: 0 };
  private current = { sent: 0, succeeded: 0, errors: {} as Record<string, number> };
  private lastCutAt: number;
  /**
   * Every latency recorded (µs), when asked for: to check a merged histogram against the raw
   * samples.
   */
  private readonly raw: number[] | undefined;

  constructor(
    private readonly startedAt = performance.now(),
    options: { keepRaw?: boolean } = {},
  ) {
    this.lastCutAt = startedAt;
    this.raw = options.keepRaw ? [] : undefined;
  }

  sent(count = 1): void {
    this.totals.sent += count;
    this.current.sent += count;
  }

  /**
   * One answer: `errorKind` undefined for a success. The latency is recorded for errors too (a 429
   * takes time).
   */
  answered(latencyMs: number, errorKind?: string): void {
    const microseconds = Math.max(1, Math.round(latencyMs * 1000));
    this.total.recordValue(microseconds);
    this.interval.recordValue(microseconds);
    this.raw?.push(microseconds);
    if (errorKind === undefined) {
      this.totals.succeeded++;
      this.current.succeeded++;
      return;
    }
    this.countError(errorKind);
  }

  /**
   * The time a request waited in the generator before its write: from when the rate owed it to when
   * it was written (the window or the concurrency limit held it). Kept apart from the latency,
   * which times write to answer.
   */
  queued(waitMs: number): void {
    this.queue ??= newHistogram();
    this.queue.recordValue(Math.max(1, Math.round(waitMs * 1000)));
  }

  /**
   * Percentiles of the time requests waited in the generator; null when the profile recorded none.
   */
  queuedLatency(): LatencySummary | null {
    return this.queue ? summarizeLatency(this.queue) : null;
  }

  /**
   * An answer the profile expects and counts apart (a probed limiter's 429): its latency recorded,
   * not an error.
   */
  refused(latencyMs: number, kind: string): void {
    const microseconds = Math.max(1, Math.round(latencyMs * 1000));
    this.total.recordValue(microseconds);
    this.interval.recordValue(microseconds);
    this.raw?.push(microseconds);
    this.totals.refused ??= {};
    this.totals.refused[kind] = (this.totals.refused[kind] ?? 0) + 1;
  }

  /**
   * A request that got no answer and has no latency to record (a client-side timeout, a refused
   * connection).
   */
  unanswered(errorKind: string): void {
    this.countError(errorKind);
  }

  private countError(errorKind: string): void {
    this.totals.errorCount++;
    this.totals.errors[errorKind] = (this.totals.errors[errorKind] ?? 0) + 1;
    this.current.errors[errorKind] = (this.current.errors[errorKind] ?? 0) + 1;
  }

  /** Closes the interval since the last sample and starts the next. */
  sample(now = performance.now()): LoadSample {
    const empty = this.interval.totalCount === 0;
    const sample: LoadSample = {
      elapsedMs: Math.round(now - this.startedAt),
      intervalMs: Math.round(now - this.lastCutAt),
      ...this.current,
      latency: empty
        ? null
        : {
            p50: toMs(percentile(this.interval, 50)),
            p99: toMs(percentile(this.interval, 99)),
            max: toMs(this.interval.maxValue),
          },
    };
    this.interval.reset();
    this.current = { sent: 0, succeeded: 0, errors: {} };
    this.lastCutAt = now;
    return sample;
  }

  snapshot(): LoadTotals {
    return {
      ...this.totals,
      errors: { ...this.totals.errors },
      ...(this.totals.refused ? { refused: { ...this.totals.refused } } : {}),
    };
  }

  /** Percentiles of every answer so far; null when nothing was answered. */
  latency(): LatencySummary | null {
    return summarizeLatency(this.total);
  }

  /**
   * The histogram of every latency (µs), compressed as HdrHistogram's base64 form: shard reports
   * merge exactly.
   */
  encodedLatency(): string {
    return hdr.encodeIntoCompressedBase64(this.total);
  }

  /**
   * Every latency recorded (µs), in order; undefined unless the recorder was made with `keepRaw`.
   */
  rawLatencies(): readonly number[] | undefined {
    return this.raw;
  }

  /** Frees the histograms (hdr-histogram-js may hold WebAssembly memory). */
  destroy(): void {
    this.total.destroy();
    this.interval.destroy();
    this.queue?.destroy();
  }
}

/** The percentiles of a histogram of latencies in µs, in ms; null when it is empty. */
export function summarizeLatency(histogram: hdr.Histogram): LatencySummary | null {
  if (histogram.totalCount === 0) return null;
  return {
    unit: 'ms',
    count: histogram.totalCount,
    min: toMs(histogram.minNonZeroValue),
    mean: toMs(histogram.mean),
    p50: toMs(percentile(histogram, 50)),
    p90: toMs(percentile(histogram, 90)),
    p99: toMs(percentile(histogram, 99)),
    p999: toMs(percentile(histogram, 99.9)),
    max: toMs(histogram.maxValue),
  };
}

/**
 * HDR answers a percentile with the highest value equivalent to the recorded one (20 ms recorded
 * reads 20.02 ms), which can exceed the largest value recorded: capped there, p99 never reads above
 * max.
 */
function percentile(histogram: hdr.Histogram, percent: number): number {
  return Math.min(histogram.getValueAtPercentile(percent), histogram.maxValue);
}

function toMs(microseconds: number): number {
  return Math.round(microseconds / 10) / 100;
}
