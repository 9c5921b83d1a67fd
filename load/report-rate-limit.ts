/**
 * Load profile `report-rate-limit`: finds the analytics report limiter's pool size and queue
 * capacity from outside.
 *
 * autocannon drives steps of rising concurrency c = 1, 2, ...; every connection sends a few
 * requests one after the other, each with its own range so that a report cache cannot answer for
 * the limiter. While c <= pool every request runs at once and latency stays at the report's cost;
 * above the pool some requests wait in the queue and the p99 latency steps up; above pool + queue
 * the limiter answers 429. So:
 *   queue + pool = the highest concurrency with no 429; pool = the last concurrency before the
 *   latency step.
 * A final burst of pool + queue + 5 requests at once, timed one by one, measures how fast 429s come
 * back.
 *
 * On the load contract: every answer goes to the recorder, 200 a success, anything else an error of
 * the kind `HTTP <status> <body>` (a request without answer `network <code>`); an answer that is
 * neither 200 nor 429 is `unexpected`, counted per step and in all, and shown on the console and in
 * the report. The thresholds compare the observed limits with the target profile's declared ones.
 * Every step is bounded; the whole probe stops by itself.
 */
import autocannon from 'autocannon';
import { request } from 'undici';
import { type ReportRateLimitLoadOptions, reportRateLimitLoadOptionsSchema } from '../schemas';
import { AdminClient } from '../src/admin-client';
import type { Target } from '../src/target';
import {
  type LoadProfile,
  type LoadRunContext,
  LoadOptionsError,
  type ProfileOutcome,
  profileTarget,
} from './contract';
import { errorKindOf, networkKindOf } from './error-kinds';
import type { LoadRecorder } from './recorder';

export interface StepResult {
  concurrency: number;
  requests: number;
  accepted: number;
  rejected: number;
  /** Answers neither 200 nor 429, and requests without answer. */
  unexpected: number;
  /**
   * Latency of the 200 answers (autocannon's, which times only successes); an admitted step that
   * looked queued keeps the lower p99 of two measurements.
   */
  p50Ms: number;
  p99Ms: number;
}

/** A latency at least this many times the single-request baseline means requests are queueing. */
const QUEUEING_FACTOR = 1.5;
const THROTTLED = 'HTTP 429';

export const reportRateLimitProfile: LoadProfile<ReportRateLimitLoadOptions> = {
  name: 'report-rate-limit',
  title: 'Report rate limit',
  optionsSchema: reportRateLimitLoadOptionsSchema,
  latencyMeasures: 'POST of a report request to its answer (200, 429 or other)',
  metrics: {
    pool_size: 'observed pool: the last concurrency before the latency step',
    queue_capacity: 'observed queue: the highest concurrency without a 429, less the pool',
    pool_size_difference:
      'observed pool less the declared one (not measured when the profile declares none)',
    queue_capacity_difference:
      'observed queue less the declared one (not measured when the profile declares none)',
    rejected: 'answers 429 (the limiter refusing)',
    unexpected: 'answers neither 200 nor 429, and requests without answer',
    burst_reject_p50: 'median time of a 429 in the final burst (ms)',
    burst_accepted_min: 'fastest 200 of the final burst (ms)',
  },
  defaultThresholds: ['pool_size_difference==0', 'queue_capacity_difference==0', 'unexpected==0'],
  run: probeReportRateLimit,
};

/**
 * Counts an answer in the recorder and in the step's tally; returns its kind (undefined for a 200).
 */
function tallyAnswer(
  recorder: LoadRecorder,
  step: { unexpected: Record<string, number> } | undefined,
  status: number,
  body: string,
  latencyMs: number,
): void {
  recorder.sent();
  const kind = status === 200 ? undefined : errorKindOf(status, body);
  // a 429 is what the probe looks for, the limiter refusing: counted apart (rejected), never as an
  // error
  if (status === 429) {
    recorder.refused(latencyMs, THROTTLED);
    return;
  }
  recorder.answered(latencyMs, kind);
  if (kind && step) step.unexpected[kind] = (step.unexpected[kind] ?? 0) + 1;
}

async function probeReportRateLimit(
  context: LoadRunContext<ReportRateLimitLoadOptions>,
): Promise<ProfileOutcome> {
  const { options, recorder, log } = context;
  const target = profileTarget(context, 'the report-rate-limit profile');
  if (context.shard.count > 1)
    throw new LoadOptionsError(
      'the report-rate-limit probe cannot be sharded: it finds the limits of one limiter by stepping its own concurrency, and shards would step it at once',
    );
  const analytics = target.analytics;
  if (!analytics?.viewConfigId)
    throw new LoadOptionsError(
      `target ${target.name} names no analytics component with a viewConfigId`,
    );
  const declared = analytics.limits;
  const maxConcurrency = Math.min(
    options.maxConcurrency ?? (declared ? declared.poolSize + declared.queueCapacity + 3 : 32),
    64,
  );
  const perConnection = options.perConnection ?? 3;
  let sequence = 0;
  const body = () =>
    JSON.stringify({
      viewConfigId: analytics.viewConfigId,
      rangeStartTs: 1700000000000 + sequence++,
      rangeEndTs: 1700003600000,
    });
  const urlWith = (jwt: string) => `${analytics.reportUrl}?jwt=${encodeURIComponent(jwt)}`;
  const started = performance.now();

  const step = async (
    concurrency: number,
  ): Promise<StepResult & { kinds: Record<string, number> }> => {
    const tally = { unexpected: {} as Record<string, number> };
    // autocannon tells the body (onResponse) and then, synchronously on the same client, the status
    // and time ('response'): the body is held in between. A request without answer comes as
    // 'reqError'.
    let lastBody = '';
    const url = urlWith(await freshJwt(target));
    const result = await new Promise<autocannon.Result>((resolveStep, rejectStep) => {
      const instance = autocannon(
        {
          url,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          connections: concurrency,
          amount: concurrency * perConnection,
          timeout: 30,
          sampleInt: 50, // autocannon ends on a sampling tick: a short one keeps each step as long as its requests
          requests: [
            {
              setupRequest: (req) => ({ ...req, body: body() }),
              onResponse: (_status, answer) => {
                lastBody = answer;
              },
            },
          ],
        },
        (error, done) => (error ? rejectStep(error) : resolveStep(done)),
      );
      instance.on('response', (_client, status, _bytes, responseTime) =>
        tallyAnswer(recorder, tally, status, lastBody, responseTime),
      );
      instance.on('reqError', (error) => {
        recorder.sent();
        const kind = /timed out/.test(error.message) ? 'network timeout' : networkKindOf(error);
        recorder.unanswered(kind);
        tally.unexpected[kind] = (tally.unexpected[kind] ?? 0) + 1;
      });
    });
    const count = (status: string) => result.statusCodeStats?.[status as `${number}`]?.count ?? 0;
    const unexpected = Object.values(tally.unexpected).reduce((sum, n) => sum + n, 0);
    return {
      concurrency,
      requests: count('200') + count('429') + unexpected,
      accepted: count('200'),
      rejected: count('429'),
      unexpected,
      kinds: tally.unexpected,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
    };
  };

  await context.waitForStart();
  await step(1); // warm-up: connections, JIT, the JWT check cache
  const baseline = await step(1);
  const steps: Array<StepResult & { kinds: Record<string, number> }> = [];
  for (
    let concurrency = 1;
    concurrency <= maxConcurrency && !context.signal.aborted;
    concurrency++
  ) {
    const result = await step(concurrency);
    steps.push(result);
    const others = Object.entries(result.kinds)
      .map(([kind, n]) => `${n}× ${kind}`)
      .join(', ');
    log(
      `  c=${String(concurrency).padStart(2)}  200: ${String(result.accepted).padStart(3)}  429: ${String(result.rejected).padStart(3)}  other: ${String(result.unexpected).padStart(3)}${others ? ` (${others})` : ''}  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms`,
    );
    if (result.rejected > 0 && steps.filter((earlier) => earlier.rejected > 0).length >= 3) break; // the edge is found
  }
  const sendingMs = performance.now() - started;
  const firstRejecting = steps.find((result) => result.rejected > 0);
  const admitted = firstRejecting ? firstRejecting.concurrency - 1 : null;
  // one request waiting in the queue already lifts the slowest latencies: the p99, not the median,
  // shows the step. The step is where latency rises and stays up at every higher concurrency that
  // was still admitted: a lone slow step (a busy machine pausing the probe) below the pool is
  // noise, not queueing.
  const admittedSteps = steps.filter((result) => result.rejected === 0);
  // The report's own cost, the latency of a request that did not wait: the lowest median of the
  // steps where nothing was refused (a 429 comes back at once and would pull a median down). One
  // p99 at concurrency 1 was too noisy a baseline on a busy machine: a slow sample lifted it above
  // the queued requests' latency.
  const baselineMs = Math.min(baseline.p50Ms, ...admittedSteps.map((result) => result.p50Ms));
  const queueing = (result: StepResult) => result.p99Ms >= baselineMs * QUEUEING_FACTOR + 1;
  // A busy machine only ever adds latency, so a step that looks queued is measured once more and
  // keeps the lower p99: a queued request waits a whole report again in every measurement, a paused
  // probe rarely twice. (One slow round at c=3 with pool 3 once read as pool 2, queue 3 on a loaded
  // CI machine.)
  for (const result of admittedSteps) {
    if (context.signal.aborted || !queueing(result)) continue;
    const again = await step(result.concurrency);
    if (again.rejected > 0 || again.unexpected > 0) continue;
    log(
      `  c=${String(result.concurrency).padStart(2)}  measured again: p99 ${again.p99Ms} ms (kept the lower of ${result.p99Ms} and ${again.p99Ms})`,
    );
    result.p99Ms = Math.min(result.p99Ms, again.p99Ms);
  }
  const firstQueueing = admittedSteps.find((_result, index) =>
    admittedSteps.slice(index).every(queueing),
  );
  const poolSize = firstQueueing ? firstQueueing.concurrency - 1 : admitted;
  const observed = {
    poolSize,
    queueCapacity: admitted !== null && poolSize !== null ? admitted - poolSize : null,
  };
  const burst = context.signal.aborted
    ? null
    : await burstProbe(
        urlWith(await freshJwt(target)),
        body,
        (declared ? declared.poolSize + declared.queueCapacity : (admitted ?? 20)) + 5,
        target.timeouts.requestMs,
        recorder,
      );
  log(
    `observed pool ${observed.poolSize ?? '?'} and queue ${observed.queueCapacity ?? '?'}` +
      (declared
        ? `; declared pool ${declared.poolSize} and queue ${declared.queueCapacity}`
        : ' (the profile declares no limits)'),
  );
  if (burst)
    log(
      `burst of ${burst.sent}: ${burst.accepted} accepted, ${burst.rejected} rejected, ${burst.unexpected} other; 429 p50 ${burst.rejectP50Ms} ms, max ${burst.rejectMaxMs} ms; fastest 200 ${burst.acceptedMinMs} ms`,
    );
  const unexpected = Object.entries(recorder.snapshot().errors).sort(([, a], [, b]) => b - a);
  const unexpectedCount = unexpected.reduce((sum, [, n]) => sum + n, 0);
  log(
    `answers neither 200 nor 429: ${unexpectedCount}${unexpected.length ? ` (${unexpected.map(([kind, n]) => `${n}× ${kind}`).join(', ')})` : ''}`,
  );
  const difference = (seen: number | null, asked: number | undefined) =>
    seen === null || asked === undefined ? null : seen - asked;
  return {
    sendingMs,
    metrics: {
      pool_size: observed.poolSize,
      queue_capacity: observed.queueCapacity,
      pool_size_difference: difference(observed.poolSize, declared?.poolSize),
      queue_capacity_difference: difference(observed.queueCapacity, declared?.queueCapacity),
      rejected: recorder.snapshot().refused?.[THROTTLED] ?? 0,
      unexpected: unexpectedCount,
      burst_reject_p50: burst?.rejected ? burst.rejectP50Ms : null,
      burst_accepted_min: burst?.accepted ? burst.acceptedMinMs : null,
    },
    details: {
      declared: declared ?? null,
      observed,
      baselineMs,
      steps,
      burst,
      unexpectedAnswers: Object.fromEntries(unexpected),
    },
    notes: declared
      ? []
      : ['the target profile declares no limits: the differences are not measured'],
  };
}

/**
 * A fresh login before each step: a target may run with short token lifetimes (the embedded one
 * does).
 */
async function freshJwt(target: Target): Promise<string> {
  const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
  });
  const jwt = admin.session.accessToken;
  await admin.close();
  return jwt;
}

/**
 * `count` requests at once, each timed: how fast rejects come back compared with served requests.
 */
async function burstProbe(
  url: string,
  body: () => string,
  count: number,
  timeoutMs: number,
  recorder: LoadRecorder,
) {
  const timed = await Promise.all(
    Array.from({ length: count }, async () => {
      const started = performance.now();
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const text = await response.body.text();
        const ms = performance.now() - started;
        tallyAnswer(recorder, undefined, response.statusCode, text, ms);
        return { status: response.statusCode, ms };
      } catch (error) {
        recorder.sent();
        recorder.unanswered(networkKindOf(error));
        return { status: 0, ms: performance.now() - started };
      }
    }),
  );
  const rejects = timed
    .filter((item) => item.status === 429)
    .map((item) => item.ms)
    .sort((a, b) => a - b);
  const accepted = timed.filter((item) => item.status === 200).map((item) => item.ms);
  const round = (ms: number | undefined) => (ms === undefined ? 0 : Math.round(ms * 10) / 10);
  return {
    sent: count,
    accepted: accepted.length,
    rejected: rejects.length,
    unexpected: count - accepted.length - rejects.length,
    rejectP50Ms: round(rejects[Math.floor(rejects.length / 2)]),
    rejectMaxMs: round(rejects[rejects.length - 1]),
    acceptedMinMs: round(accepted.length ? Math.min(...accepted) : undefined),
  };
}
