/**
 * Load profile `report-rate-limit`: finds the analytics report limiter's pool size and queue capacity from outside.
 *
 * autocannon drives steps of rising concurrency c = 1, 2, ...; every connection sends a few requests one after the
 * other, each with its own range so that a report cache cannot answer for the limiter. While c <= pool every
 * request runs at once and latency stays at the report's cost; above the pool some requests wait in the queue and
 * the p99 latency steps up; above pool + queue the limiter answers 429. So:
 *   queue + pool = the highest concurrency with no 429;  pool = the last concurrency before the latency step.
 * A final burst of pool + queue + 5 requests at once, timed one by one, measures how fast 429s come back.
 * Writes reports/load/report-rate-limit.json and .html; the run fails when the observed limits differ from the
 * target profile's declared ones. Every step is bounded; the whole probe stops by itself.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { AdminClient } from '../src/admin-client';
import { openTarget } from '../src/target';
import { reportRateLimitHtml } from './report-rate-limit-html';

export interface StepResult {
  concurrency: number;
  requests: number;
  accepted: number;
  rejected: number;
  other: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ProbeReport {
  target: string;
  declared?: { poolSize: number; queueCapacity: number };
  observed: { poolSize: number | null; queueCapacity: number | null };
  baselineMs: number;
  steps: StepResult[];
  burst: {
    sent: number;
    accepted: number;
    rejected: number;
    rejectP50Ms: number;
    rejectMaxMs: number;
    acceptedMinMs: number;
  };
  verdict: 'MATCH' | 'MISMATCH' | 'UNDECLARED';
  durationMs: number;
}

export interface ProbeOptions {
  target: string;
  reportsDir: string;
  /** Highest concurrency tried (default: declared pool + queue + 3, at most 64). */
  maxConcurrency?: number;
  /** Requests each connection sends per step (default 3). */
  perConnection?: number;
  log?: (line: string) => void;
}

/** A latency at least this many times the single-request baseline means requests are queueing. */
const QUEUEING_FACTOR = 1.5;

export async function probeReportRateLimit(
  options: ProbeOptions,
): Promise<{ report: ProbeReport; exitCode: number }> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const target = await openTarget(options.target);
  try {
    const analytics = target.analytics;
    if (!analytics?.viewConfigId)
      throw new Error(`target ${target.name} names no analytics component with a viewConfigId`);
    // a fresh login before each step: a target may run with short token lifetimes (the embedded one does)
    const freshJwt = async () => {
      const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
        requestTimeoutMs: target.timeouts.requestMs,
      });
      const jwt = admin.session.accessToken;
      await admin.close();
      return jwt;
    };
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

    const step = async (concurrency: number): Promise<StepResult> => {
      const result = await autocannon({
        url: urlWith(await freshJwt()),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        connections: concurrency,
        amount: concurrency * perConnection,
        timeout: 30,
        sampleInt: 50, // autocannon ends on a sampling tick: a short one keeps each step as long as its requests
        requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
      });
      const count = (status: string) => result.statusCodeStats?.[status as `${number}`]?.count ?? 0;
      const accepted = count('200');
      const rejected = count('429');
      return {
        concurrency,
        requests: result.requests.total,
        accepted,
        rejected,
        other: result.requests.total - accepted - rejected + result.errors,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
      };
    };

    await step(1); // warm-up: connections, JIT, the JWT check cache
    const baseline = await step(1);
    const steps: StepResult[] = [];
    for (let concurrency = 1; concurrency <= maxConcurrency; concurrency++) {
      const result = await step(concurrency);
      steps.push(result);
      log(
        `  c=${String(concurrency).padStart(2)}  200: ${String(result.accepted).padStart(3)}  429: ${String(result.rejected).padStart(3)}  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms`,
      );
      if (result.rejected > 0 && steps.filter((earlier) => earlier.rejected > 0).length >= 3) break; // the edge is found
    }
    const firstRejecting = steps.find((result) => result.rejected > 0);
    const admitted = firstRejecting ? firstRejecting.concurrency - 1 : null;
    // one request waiting in the queue already lifts the slowest latencies: the p99, not the median, shows the step.
    // The step is where latency rises and stays up at every higher concurrency that was still admitted: a lone slow
    // step (a busy machine pausing the probe) below the pool is noise, not queueing.
    const admittedSteps = steps.filter((result) => result.rejected === 0);
    // The report's own cost, the latency of a request that did not wait: the lowest median of the steps where
    // nothing was refused (a 429 comes back at once and would pull a median down). One p99 at concurrency 1 was
    // too noisy a baseline on a busy machine: a slow sample lifted it above the queued requests' latency.
    const baselineMs = Math.min(baseline.p50Ms, ...admittedSteps.map((result) => result.p50Ms));
    const queueing = (result: StepResult) => result.p99Ms >= baselineMs * QUEUEING_FACTOR + 1;
    const firstQueueing = admittedSteps.find((_result, index) =>
      admittedSteps.slice(index).every(queueing),
    );
    const poolSize = firstQueueing ? firstQueueing.concurrency - 1 : admitted;
    const observed = {
      poolSize,
      queueCapacity: admitted !== null && poolSize !== null ? admitted - poolSize : null,
    };

    const burst = await burstProbe(
      urlWith(await freshJwt()),
      body,
      (declared ? declared.poolSize + declared.queueCapacity : (admitted ?? 20)) + 5,
      target.timeouts.requestMs,
    );
    const verdict = !declared
      ? 'UNDECLARED'
      : observed.poolSize === declared.poolSize && observed.queueCapacity === declared.queueCapacity
        ? 'MATCH'
        : 'MISMATCH';
    const report: ProbeReport = {
      target: target.name,
      declared,
      observed,
      baselineMs,
      steps,
      burst,
      verdict,
      durationMs: Date.now() - started,
    };
    const dir = resolve(options.reportsDir, 'load');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report-rate-limit.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(dir, 'report-rate-limit.html'), reportRateLimitHtml(report));
    log(
      `observed pool ${observed.poolSize ?? '?'} and queue ${observed.queueCapacity ?? '?'}` +
        (declared
          ? `; declared pool ${declared.poolSize} and queue ${declared.queueCapacity}: ${verdict}`
          : ' (the profile declares no limits)'),
    );
    log(
      `burst of ${burst.sent}: ${burst.accepted} accepted, ${burst.rejected} rejected; 429 p50 ${burst.rejectP50Ms} ms, max ${burst.rejectMaxMs} ms; fastest 200 ${burst.acceptedMinMs} ms`,
    );
    log(
      `reports: ${join(dir, 'report-rate-limit.json')} and .html (${Math.round(report.durationMs / 100) / 10} s)`,
    );
    return { report, exitCode: verdict === 'MISMATCH' || observed.poolSize === null ? 1 : 0 };
  } finally {
    await target.close();
  }
}

/** `count` requests at once, each timed: how fast rejects come back compared with served requests. */
async function burstProbe(
  url: string,
  body: () => string,
  count: number,
  timeoutMs: number,
): Promise<ProbeReport['burst']> {
  const timed = await Promise.all(
    Array.from({ length: count }, async () => {
      const started = performance.now();
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await response.body.dump();
      return { status: response.statusCode, ms: performance.now() - started };
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
    rejectP50Ms: round(rejects[Math.floor(rejects.length / 2)]),
    rejectMaxMs: round(rejects[rejects.length - 1]),
    acceptedMinMs: round(accepted.length ? Math.min(...accepted) : undefined),
  };
}
