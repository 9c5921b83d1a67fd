/**
 * Load profile `http-telemetry`: N devices, created through the admin API, post telemetry over the
 * HTTP device API at a rate for a bounded duration; then every (or a sample of) device's telemetry
 * is read back through the admin API and compared with what was sent, as the mqtt-gateway profile
 * does.
 *
 * Each request is one device's {"ts", "values": {"seq"}}: `seq` counts 1, 2, ... per device and
 * `ts` strictly increases per device, so every request has its own stored entry. Every answer is
 * counted: 2xx is a success, any other status is an error of the kind `HTTP <status> <body>` (a
 * throttling 429 shows with the platform's words), a request that got no answer is `network
 * <code>`. Counts: stored (distinct seqs read back), lost (a success answer, never stored),
 * duplicated (stored entries beyond one per seq), refused but stored (an error answer, stored
 * anyway).
 *
 * Devices are named `<prefix>load-<runId>-http-d<i>`, journaled before they exist and deleted at
 * the end, also when the run is stopped (the journal lets `iotc cleanup` finish an interrupted
 * cleanup).
 */
import type { Dispatcher } from 'undici';
import { httpTelemetryLoadOptionsSchema, type HttpTelemetryLoadOptions } from '../schemas';
import type { AdminClient } from '../src/admin-client';
import type { Target } from '../src/target';
import type { CleanupJournal } from '../src/target/journal';
import { createDeviceDispatcher } from '../simulators/device/http-device';
import {
  type LoadProfile,
  type LoadRunContext,
  type ProfileOutcome,
  profileTarget,
  QUEUED_MERGE_RULES,
  QUEUED_METRICS,
  queuedMetrics,
  SCHEDULE_KEPT_OF_SUMS,
} from './contract';
import { errorKindOf, networkKindOf } from './error-kinds';
import { createDevices, withCreatedFleet } from './device-fleet';
import { shardIndexes } from './shard';
import { type FleetReadback, nextSeq, readBackFleet } from './seq-readback';
import type { LoadRecorder } from './recorder';

const DEFAULT_CONCURRENCY = 64;
/** docs/reference/interfaces.md: requests with a body carry Content-Type: application/json */
const JSON_HEADERS = { 'content-type': 'application/json' };
const MAX_READBACK_DEVICES = 1000;

interface DeviceState {
  name: string;
  id: string;
  token: string;
  sent: number;
  /** Seqs whose request did not get a 2xx. */
  notSucceeded: number[];
  lastTs: number;
}

export const httpTelemetryProfile: LoadProfile<HttpTelemetryLoadOptions> = {
  name: 'http-telemetry',
  title: 'HTTP telemetry load',
  optionsSchema: httpTelemetryLoadOptionsSchema,
  latencyMeasures:
    'POST /api/v1/{token}/telemetry, from its write to its answer (the wait in the generator is queued_p50/p99)',
  metrics: {
    stored: 'distinct seqs read back (of the devices read)',
    lost: 'requests answered with a success and never stored',
    duplicated: 'stored entries beyond one per seq',
    refused_stored: 'requests answered with an error and stored anyway',
    throttled:
      "answers with status 429 (ThingsBoard's HTTP transport answers a rate limit with 500 and an empty body: see the errors)",
    behind_schedule: 'requests the rate asked for that the concurrency limit did not let out',
    schedule_kept:
      'sent over what the rate asked for (0..1): below 0.9 the run measured a lighter load than asked',
    left_behind: 'devices the run created and could not delete',
    ...QUEUED_METRICS,
  },
  defaultThresholds: [
    'lost==0',
    'duplicated==0',
    'refused_stored==0',
    'left_behind==0',
    'schedule_kept>=0.9',
  ],
  mergeRules: { schedule_kept: SCHEDULE_KEPT_OF_SUMS, ...QUEUED_MERGE_RULES },
  run: runHttpTelemetry,
};

async function runHttpTelemetry(
  context: LoadRunContext<HttpTelemetryLoadOptions>,
): Promise<ProfileOutcome> {
  return withCreatedFleet(context, 'http-telemetry', async (admin, journal) => {
    const dispatcher = createDeviceDispatcher({
      tls: profileTarget(context, 'the http-telemetry profile').tls,
    });
    try {
      return await measure(context, admin, journal, dispatcher);
    } finally {
      await dispatcher.close();
    }
  });
}

async function measure(
  context: LoadRunContext<HttpTelemetryLoadOptions>,
  admin: AdminClient,
  journal: CleanupJournal,
  dispatcher: Dispatcher,
): Promise<ProfileOutcome> {
  const { options, runId, log } = context;
  const target = profileTarget(context, 'the http-telemetry profile');
  const notes: string[] = [];
  // this shard's devices (all of them unsharded), named by their index in the whole fleet
  const indexes = shardIndexes(options.devices, context.shard);
  const names = indexes.map((i) => `${target.namePrefix}load-${runId}-http-d${i}`);
  const rate = (options.rate * indexes.length) / options.devices;
  const devices: DeviceState[] = (await createDevices(admin, journal, names, context.signal)).map(
    (device) => ({ ...device, sent: 0, notSucceeded: [], lastTs: 0 }),
  );
  log(`${devices.length} devices created`);
  await context.waitForStart();
  const startTs = Date.now() - 1;
  const sending = await postLoop(
    devices,
    { ...options, rate },
    target,
    dispatcher,
    context.recorder,
    context.signal,
  );
  const totals = context.recorder.snapshot();
  log(`sent ${totals.sent}, succeeded ${totals.succeeded}, errors ${totals.errorCount}`);
  let readback: FleetReadback | null = null;
  if (context.signal.aborted)
    notes.push('stored, lost and duplicated are not measured: the run was stopped');
  else {
    readback = await readBackFleet(
      admin,
      target,
      devices,
      startTs,
      options.sampleDevices ?? MAX_READBACK_DEVICES,
      async (device) => device.id,
    );
    log(
      `read back ${readback.devicesRead} of ${devices.length} devices: stored ${readback.stored} of ${readback.sent}, lost ${readback.acknowledgedNotStored}, duplicated ${readback.duplicated}`,
    );
    if (readback.devicesRead < devices.length)
      notes.push(
        `stored, lost and duplicated count a sample of ${readback.devicesRead} of ${devices.length} devices, spread over the fleet`,
      );
    if (readback.beyondRetention)
      notes.push(
        `${readback.beyondRetention} oldest seqs beyond the target's retention were not checked`,
      );
  }
  const throttled = Object.entries(totals.errors)
    .filter(([kind]) => kind.startsWith('HTTP 429'))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    sendingMs: sending.sendingMs,
    metrics: {
      stored: readback?.stored,
      // a success answer never stored: an error answer that was not stored is no loss
      lost: readback?.acknowledgedNotStored,
      duplicated: readback?.duplicated,
      refused_stored: readback?.refusedStored,
      throttled,
      behind_schedule: sending.behind,
      ...queuedMetrics(context.recorder),
      schedule_kept:
        sending.sent + sending.behind > 0
          ? Math.round((sending.sent / (sending.sent + sending.behind)) * 1000) / 1000
          : null,
    },
    details: {
      devices: devices.length,
      statuses: sending.statuses,
      behindSchedule: sending.behind,
      readback,
    },
    notes,
  };
}

/**
 * Posts each request at its own time (request n at n / rate seconds from the start, so arrivals are
 * spaced evenly rather than bunched on a tick), round robin over the devices, while fewer than
 * `concurrency` are unanswered; a request the concurrency limit held is written as soon as an
 * answer frees a place. Its wait in the generator (from when it was due to its write) is recorded
 * apart from its latency (write to answer). Stops at the deadline or on abort, then waits for what
 * is in flight.
 */
async function postLoop(
  devices: DeviceState[],
  options: HttpTelemetryLoadOptions,
  target: Target,
  dispatcher: Dispatcher,
  recorder: LoadRecorder,
  signal: AbortSignal,
): Promise<{ sendingMs: number; sent: number; behind: number; statuses: Record<string, number> }> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const statuses: Record<string, number> = {};
  const intervalMs = 1000 / options.rate;
  const { origin, pathname } = new URL(target.httpUrl);
  const base = pathname.replace(/\/+$/, '');
  const timeoutMs = target.timeouts.requestMs;
  const started = performance.now();
  const deadline = started + options.durationS * 1000;
  let sent = 0;
  let inFlight = 0;
  let next = 0;
  let sending = true;
  /** When the pending wake-up timer fires (Infinity: none pending). */
  let wakeAt = Number.POSITIVE_INFINITY;
  let wake: NodeJS.Timeout | undefined;
  let stopSending = () => {};
  let allAnswered: (() => void) | undefined;
  const answered = () => {
    inFlight--;
    if (sending) pump();
    else if (inFlight === 0) allAnswered?.();
  };
  const postOne = (now: number, dueAt: number) => {
    const device = devices[next];
    next = (next + 1) % devices.length;
    const seq = nextSeq(device);
    sent++;
    inFlight++;
    recorder.sent();
    recorder.queued(now - dueAt);
    /** No answer (refused, reset, timed out): a network error of its kind. */
    const failed = (error: unknown) => {
      device.notSucceeded.push(seq);
      recorder.answered(performance.now() - now, networkKindOf(error));
      answered();
    };
    // undici's dispatcher straight (origin and path apart, no URL parsed per request; a success's
    // empty body dropped unread): the generator's cost per request is what the bench compares with
    // k6
    dispatcher
      .request({
        origin,
        path: `${base}/api/v1/${encodeURIComponent(device.token)}/telemetry`,
        method: 'POST',
        headers: JSON_HEADERS,
        body: `{"ts":${device.lastTs},"values":{"seq":${seq}}}`,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      .then(({ statusCode, body }) => {
        const ok = statusCode >= 200 && statusCode < 300;
        const text = ok ? body.dump().then(() => '') : body.text();
        return text.then((answer) => {
          const elapsedMs = performance.now() - now;
          statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
          if (!ok) device.notSucceeded.push(seq);
          recorder.answered(elapsedMs, ok ? undefined : errorKindOf(statusCode, answer));
          answered();
        }, failed);
      }, failed);
  };
  const onTimer = () => {
    wakeAt = Number.POSITIVE_INFINITY;
    pump();
  };
  /**
   * Writes every request due by now, as far as the concurrency lets; arms a timer for the next one
   * due.
   */
  function pump(): void {
    const now = performance.now();
    if (now >= deadline || signal.aborted) return stopSending();
    let dueAt = started + sent * intervalMs;
    while (dueAt <= now && inFlight < concurrency) {
      postOne(now, dueAt);
      dueAt = started + sent * intervalMs;
    }
    // the concurrency limit is reached: the next answer pumps; otherwise wake when the next request
    // is due
    if (inFlight < concurrency && dueAt < wakeAt) {
      clearTimeout(wake);
      wakeAt = Math.min(dueAt, deadline);
      wake = setTimeout(onTimer, Math.max(0, wakeAt - now));
    }
  }
  await new Promise<void>((resolveSending) => {
    const end = setTimeout(pump, Math.max(0, deadline - performance.now()));
    stopSending = () => {
      sending = false;
      clearTimeout(wake);
      clearTimeout(end);
      signal.removeEventListener('abort', pump);
      resolveSending();
    };
    signal.addEventListener('abort', pump);
    pump();
  });
  const endedAt = Math.min(performance.now(), deadline);
  const owedAtEnd = Math.floor((endedAt - started) / intervalMs);
  if (inFlight > 0) await new Promise<void>((resolve) => (allAnswered = resolve));
  return { sendingMs: endedAt - started, sent, behind: Math.max(0, owedAtEnd - sent), statuses };
}
