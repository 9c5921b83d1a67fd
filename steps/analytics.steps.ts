/**
 * The analytics report API: buildReport over the conformance view (devices whose names contain
 * "-analytics-", columns Date, Device, temperature and building, filter "building"), its errors and
 * its rate limiter.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Given, Then, When } from './support/cucumber';
import { isLosslessNumber } from 'lossless-json';
import { request } from 'undici';
import { parseLossless, toPlain } from '../lib/kv/values';
import { reportColumnLabelsSchema, reportDataTableSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { login, scenarioJwt, sentNearExpiry } from './support/admin-auth';
import { Inconclusive, refuseIfStallExplains } from './support/timing';

interface ReportAnswer {
  status: number;
  text: string;
  json?: unknown;
  elapsedMs: number;
  /** When the request was made and when its answer had come (Date.now(), StallLog's clock). */
  sentAt: number;
  answeredAt: number;
}

const answers = new WeakMap<IotcWorld, ReportAnswer>();
const bursts = new WeakMap<IotcWorld, ReportAnswer[]>();

function analytics(world: IotcWorld) {
  const found = world.run.target.analytics;
  if (!found) throw new Error('the target profile names no analytics component');
  if (!found.viewConfigId)
    throw new Error('the target profile names no analytics.viewConfigId (the conformance view)');
  return { reportUrl: found.reportUrl, viewConfigId: found.viewConfigId, limits: found.limits };
}

/**
 * One buildReport request. `jwtIn` says where the JWT goes; `body` is the request document
 * (viewConfigId added).
 */
const BUILD_REPORT = 'the analytics buildReport request';

async function buildReport(
  world: IotcWorld,
  options: {
    jwtIn?: 'query' | 'header' | 'none';
    jwt?: string;
    body?: Record<string, unknown>;
    contentType?: string;
    /** Sends the body as given, without the conformance view's viewConfigId. */
    withoutView?: boolean;
  } = {},
): Promise<ReportAnswer> {
  const { reportUrl, viewConfigId } = analytics(world);
  const jwt = options.jwt ?? scenarioJwt(world);
  const where = options.jwtIn ?? 'query';
  const url = where === 'query' ? `${reportUrl}?jwt=${encodeURIComponent(jwt)}` : reportUrl;
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    accept: 'application/json',
  };
  if (where === 'header') headers.jwt = jwt;
  const requestBody = JSON.stringify(
    options.withoutView ? { ...options.body } : { viewConfigId, ...options.body },
  );
  const started = performance.now();
  const sentAt = Date.now();
  const response = await request(url, {
    method: 'POST',
    headers,
    body: requestBody,
    dispatcher: world.run.deviceDispatcher,
    headersTimeout: world.run.target.timeouts.requestMs,
    bodyTimeout: world.run.target.timeouts.requestMs,
  });
  const answeredAt = Date.now();
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? parseLossless(text) : undefined;
  } catch {
    json = undefined;
  }
  const elapsedMs = performance.now() - started;
  world.exchanges.record({
    protocol: 'http',
    via: 'analytics',
    request: { method: 'POST', url, headers, body: requestBody },
    response: { status: response.statusCode, body: text },
    elapsedMs,
  });
  return { status: response.statusCode, text, json, elapsedMs, sentAt, answeredAt };
}

/** Sendings of requests with the scenario's JWT that ran out while the harness sent them. */
const JWT_TRIES = 3;

/**
 * Sends requests with the scenario's JWT (`send` reads it when it runs). A refusal (403) of a
 * request the harness sent too close to that JWT's exp decides nothing (refusalNearExpiry's rule:
 * a short-lived token, 2 s on some profiles, and a starved harness): the tenant administrator logs
 * in again and everything is sent again, a bounded number of times, then INCONCLUSIVE. A 403 to a
 * request sent while the JWT was plainly valid is the target's answer and is returned as it is; so
 * is every answer in a scenario that waited the token's lifetime out on purpose.
 */
async function withLiveJwt(
  world: IotcWorld,
  what: string,
  send: () => Promise<ReportAnswer[]>,
): Promise<ReportAnswer[]> {
  for (let tries = 1; ; tries++) {
    const jwt = scenarioJwt(world);
    const sent = await send();
    if (world.adminAuth.accessLifetimeWaited) return sent;
    const expired = sent.filter(
      (found) => found.status === 403 && sentNearExpiry(world, jwt, found.sentAt, found.answeredAt),
    ).length;
    if (expired === 0) return sent;
    const why = `${expired} of ${sent.length} refused 403 were sent too close to the JWT's exp or answered after it (${Math.max(...sent.map((found) => found.sentAt)) - (world.adminAuth.loggedInAt ?? 0)} ms after the login) to tell a refusal from its expiry (the harness was slow)`;
    if (tries >= JWT_TRIES)
      throw new Inconclusive(`${what}, sent ${JWT_TRIES} times with a fresh JWT: ${why}`);
    world.log(`sent again with a fresh JWT (${tries} of ${JWT_TRIES}): ${what}: ${why}`);
    const again = await login(world);
    assert.equal(again.status, 200, `the login for a fresh JWT answered ${again.status}`);
  }
}

Given(
  'a device {string} in building {string} that reported temperature {word} at {int}',
  async function (
    this: IotcWorld,
    local: string,
    building: string,
    temperature: string,
    ts: number,
  ) {
    assert.ok(
      local.startsWith('analytics-'),
      'devices of the conformance view have local names starting with "analytics-"',
    );
    const device = await this.createDevice(local);
    await this.run.admin.saveAttributes(device.record.id, 'SERVER_SCOPE', { building });
    const posted = await device.driver.postTelemetry({
      raw: `{"ts": ${ts}, "values": {"temperature": ${temperature}}}`,
    });
    assert.equal(posted.status, 200, `telemetry answered ${posted.status}`);
    await this.eventually(async () => {
      const history = await this.run.admin.telemetryHistory(
        device.record.id,
        ['temperature'],
        ts,
        ts,
      );
      assert.equal(history.get('temperature')?.length, 1, 'the telemetry is not stored yet');
    });
  },
);

When(
  /^the report of the conformance view is requested with the JWT (?:as|in) (?:the )?(query parameter|header) jwt$/,
  async function (this: IotcWorld, where: string) {
    // the positive control of a short-lived JWT: a refusal sent too close to its exp is the
    // harness's slowness (sent again with a fresh JWT, then INCONCLUSIVE)
    const [answer] = await withLiveJwt(this, 'the report request', async () => [
      await buildReport(this, { jwtIn: where === 'header' ? 'header' : 'query' }),
    ]);
    answers.set(this, answer!);
  },
);

When(
  'the report of the conformance view is requested with range {int} to {int}',
  async function (this: IotcWorld, start: number, end: number) {
    answers.set(this, await buildReport(this, { body: { rangeStartTs: start, rangeEndTs: end } }));
  },
);

When(
  /^the report of the conformance view is requested with (rangeStartTs|rangeEndTs) (\d+) only$/,
  async function (this: IotcWorld, member: string, ts: string) {
    answers.set(this, await buildReport(this, { body: { [member]: Number(ts) } }));
  },
);

When(
  /^the report of the conformance view is requested with filters (.+)$/,
  async function (this: IotcWorld, filters: string) {
    answers.set(this, await buildReport(this, { body: { filters: JSON.parse(filters) } }));
  },
);

When(
  'the report of the conformance view is requested with Content-Type {string}',
  async function (this: IotcWorld, contentType: string) {
    answers.set(this, await buildReport(this, { contentType }));
  },
);

When(
  'the report of the conformance view is requested with the JWT {string} in the {word}',
  async function (this: IotcWorld, jwt: string, where: string) {
    answers.set(
      this,
      await buildReport(this, { jwt, jwtIn: where === 'header' ? 'header' : 'query' }),
    );
  },
);

When(
  'the report of the conformance view is requested with that expired JWT',
  async function (this: IotcWorld) {
    answers.set(this, await buildReport(this));
  },
);

When('a report is requested without viewConfigId', async function (this: IotcWorld) {
  answers.set(this, await buildReport(this, { withoutView: true }));
});

When(
  'a report is requested with a viewConfigId that names no view',
  async function (this: IotcWorld) {
    // a fresh UUID names no saved view of any target
    answers.set(this, await buildReport(this, { body: { viewConfigId: randomUUID() } }));
  },
);

function answer(world: IotcWorld): ReportAnswer {
  const found = answers.get(world);
  if (!found) throw new Error('no report was requested in this scenario');
  return found;
}

Then('the report answers {int}', function (this: IotcWorld, status: number) {
  const found = answer(this);
  assert.equal(
    found.status,
    status,
    `buildReport answered ${found.status}: ${found.text.slice(0, 300)}`,
  );
});

Then(/^the report's columnLabels are (.+)$/, function (this: IotcWorld, labels: string) {
  const found = answer(this);
  assert.equal(
    found.status,
    200,
    `buildReport answered ${found.status}: ${found.text.slice(0, 300)}`,
  );
  assert.deepEqual(
    answerOf(reportColumnLabelsSchema, found, BUILD_REPORT).columnLabels,
    JSON.parse(labels),
  );
});

type Row = Record<string, unknown>;

function rowsOf(world: IotcWorld, local: string): Row[] {
  const found = answer(world);
  assert.equal(
    found.status,
    200,
    `buildReport answered ${found.status}: ${found.text.slice(0, 300)}`,
  );
  answerOf(reportDataTableSchema, found, BUILD_REPORT);
  // the lossless reading of the rows checked just above: a cell's number lexeme tells a double from
  // an integer
  const table = (found.json as { dataTable: Row[] }).dataTable;
  return table.filter((row) => row.Device === world.unique(local));
}

Then(
  'the report has a row for {string} with Date {string}, temperature {string} and building {string}',
  function (this: IotcWorld, local: string, date: string, temperature: string, building: string) {
    const rows = rowsOf(this, local);
    assert.equal(rows.length, 1, `${rows.length} rows for ${local}`);
    const row = rows[0];
    assert.equal(
      typeof row.Date,
      'string',
      `Date is ${JSON.stringify(row.Date)}, not a string of milliseconds`,
    );
    assert.equal(row.Date, date);
    const cell = row.temperature;
    assert.ok(
      isLosslessNumber(cell),
      `temperature is ${JSON.stringify(toPlain(cell))}, not a number`,
    );
    assert.match(cell.value, /[.eE]/, `temperature ${cell.value} is not written as a double`);
    assert.equal(Number(cell.value), Number(temperature));
    assert.equal(row.building, building);
  },
);

Then(
  'the report is refused with a client error and holds no dataTable',
  function (this: IotcWorld) {
    // the status is not shown in the specification (AN-REQ-05): any 4xx, and certainly no report
    const found = answer(this);
    assert.ok(
      found.status >= 400 && found.status < 500,
      `buildReport answered ${found.status}: ${found.text.slice(0, 300)}`,
    );
    assert.ok(
      !(typeof found.json === 'object' && found.json !== null && 'dataTable' in found.json),
      `the refusal holds a dataTable: ${found.text.slice(0, 300)}`,
    );
  },
);

Then('the report has no row for {string}', function (this: IotcWorld, local: string) {
  assert.deepEqual(rowsOf(this, local), [], `the report holds rows for ${local}`);
});

// ---- the rate limiter ----

function declaredLimits(world: IotcWorld): { poolSize: number; queueCapacity: number } {
  const limits = analytics(world).limits;
  if (!limits)
    throw new Error('the target profile declares no analytics.limits (poolSize, queueCapacity)');
  return limits;
}

/**
 * When the last burst of the scenario was sent and when its last answer came (Date.now(),
 * StallLog's clock).
 */
const burstWindows = new WeakMap<IotcWorld, { from: number; to: number }>();
/**
 * The reports a scenario requested alone, one after the other: how long one report takes with the
 * pool idle.
 */
const soloRuns = new WeakMap<IotcWorld, Array<{ elapsedMs: number; from: number; to: number }>>();
/**
 * Distinct ranges for every request of a scenario, so that a report cache cannot answer in place of
 * the limiter.
 */
let rangeOffset = 0;

async function burst(world: IotcWorld, count: number): Promise<void> {
  const sent = await withLiveJwt(world, `a burst of ${count} report requests`, async () => {
    const from = Date.now();
    // distinct ranges, so that a report cache cannot answer in place of the limiter
    // (docs/reference/analytics-facts.md)
    const requests = Array.from({ length: count }, () =>
      buildReport(world, {
        body: { rangeStartTs: 1700000000000 + ++rangeOffset, rangeEndTs: 1700003600000 },
      }),
    );
    const all = await Promise.all(requests);
    burstWindows.set(world, { from, to: Date.now() });
    return all;
  });
  bursts.set(world, sent);
}

async function soloReports(world: IotcWorld, count: number, append = false): Promise<void> {
  const runs: Array<{ elapsedMs: number; from: number; to: number }> = append
    ? (soloRuns.get(world) ?? [])
    : [];
  for (let i = 0; i < count; i++) {
    let from = Date.now();
    const [found] = await withLiveJwt(world, 'a report requested alone', async () => {
      from = Date.now();
      return [
        await buildReport(world, {
          body: { rangeStartTs: 1700000000000 + ++rangeOffset, rangeEndTs: 1700003600000 },
        }),
      ];
    });
    assert.equal(found!.status, 200, `a report requested alone answered ${found!.status}`);
    runs.push({ elapsedMs: found!.elapsedMs, from, to: Date.now() });
  }
  soloRuns.set(world, runs);
}

When(
  '{int} report requests are sent alone, one after the other',
  async function (this: IotcWorld, count: number) {
    await soloReports(this, count);
  },
);

When('as many report requests as the pool size are sent at once', async function (this: IotcWorld) {
  await burst(this, declaredLimits(this).poolSize);
});

When(
  '{int} more report requests than the pool and the queue hold are sent at once',
  async function (this: IotcWorld, extra: number) {
    const { poolSize, queueCapacity } = declaredLimits(this);
    await burst(this, poolSize + queueCapacity + extra);
  },
);

function burstAnswers(world: IotcWorld): ReportAnswer[] {
  const found = bursts.get(world);
  if (!found) throw new Error('no burst of report requests was sent');
  return found;
}

Then('none of them is answered 429', function (this: IotcWorld) {
  const statuses = burstAnswers(this).map((found) => found.status);
  assert.ok(!statuses.includes(429), `statuses ${JSON.stringify(statuses)}`);
  assert.ok(
    statuses.every((status) => status === 200),
    `statuses ${JSON.stringify(statuses)}`,
  );
});

Then(
  'at least {int} of them are answered 429 and the others 200',
  function (this: IotcWorld, minimum: number) {
    const statuses = burstAnswers(this).map((found) => found.status);
    const rejected = statuses.filter((status) => status === 429).length;
    assert.ok(
      rejected >= minimum,
      `${rejected} answered 429 (statuses ${JSON.stringify(statuses)})`,
    );
    assert.ok(
      statuses.every((status) => status === 429 || status === 200),
      `statuses ${JSON.stringify(statuses)}`,
    );
    const { poolSize } = declaredLimits(this);
    assert.ok(
      statuses.filter((status) => status === 200).length >= poolSize,
      'fewer requests than the pool size were served',
    );
  },
);

/**
 * Why a burst that served more than the pool and the queue hold did not test them, or undefined
 * when it did. A burst measures the limits only when every request of it reached the limiter before
 * the first report ended and freed a slot. The harness cannot see when the target read a request,
 * but two things show that it came too late:
 * - a refusal answered after the first 200 had already come back: the target was still admitting
 *   requests of the burst after a report had ended (its own process, or the network, spread the
 *   burst);
 * - the harness's event loop standing still, between the burst's start and that first 200, for half
 *   of that time or more: its requests may have been written that late.
 * Fewer served than the limits hold is never explained this way (a spread burst can only find more
 * slots free).
 */
function burstSpread(world: IotcWorld, answers: ReportAnswer[]): string | undefined {
  const window = burstWindows.get(world);
  const served = answers.filter((found) => found.status === 200);
  if (!window || served.length === 0) return undefined;
  const firstServedAt = Math.min(...served.map((found) => found.answeredAt));
  const lateRefusals = answers.filter(
    (found) => found.status === 429 && found.answeredAt >= firstServedAt,
  ).length;
  if (lateRefusals > 0)
    return `${lateRefusals} refusals were answered after the first report of the burst had ended (${firstServedAt - window.from} ms after the burst was sent): the target admitted the burst spread over time, not at once`;
  const stalledMs = world.stalls.stalledBetween(window.from, firstServedAt);
  if (stalledMs >= (firstServedAt - window.from) / 2)
    return `the harness's event loop stood still ${stalledMs} ms of the ${firstServedAt - window.from} ms before the first report of the burst ended: its requests may have been written after that`;
  return undefined;
}

/** Bursts sent in all before a spread burst (burstSpread) makes the count INCONCLUSIVE. */
const BURST_TRIES = 3;

Then(
  'exactly as many as the pool and the queue hold are answered 200 and the others 429',
  async function (this: IotcWorld) {
    // Every request of the burst is sent at once and each report holds its slot for a while, so the
    // pool and the queue are full before the first report ends: the count of 200s measures pool +
    // queue. A smaller pool or queue serves fewer, a larger or ignored limit serves more. A burst
    // the target saw spread over time (burstSpread) is sent again, a bounded number of times, and
    // then the count is INCONCLUSIVE, never FAIL.
    const { poolSize, queueCapacity } = declaredLimits(this);
    const count = burstAnswers(this).length;
    for (let tries = 1; ; tries++) {
      const statuses = burstAnswers(this).map((found) => found.status);
      const served = statuses.filter((status) => status === 200).length;
      const spread =
        served > poolSize + queueCapacity ? burstSpread(this, burstAnswers(this)) : undefined;
      if (spread === undefined) {
        assert.equal(
          served,
          poolSize + queueCapacity,
          `${served} answered 200, the declared pool ${poolSize} and queue ${queueCapacity} hold ${poolSize + queueCapacity} (statuses ${JSON.stringify(statuses)})`,
        );
        assert.equal(
          statuses.filter((status) => status === 429).length,
          statuses.length - served,
          `statuses ${JSON.stringify(statuses)}`,
        );
        return;
      }
      if (tries >= BURST_TRIES)
        throw new Inconclusive(
          `${BURST_TRIES} bursts of ${count} report requests could not measure the pool and the queue: ${served} answered 200 in the last, but ${spread}`,
        );
      await burst(this, count);
    }
  },
);

/**
 * AN-LIM-01's "executed in parallel", measured: with the pool idle a report takes S (the quickest
 * of the reports requested alone, less the network's round trip, which a serial executor does not
 * serialize); N = poolSize reports sent at once take about S when they run in parallel and at least
 * N x S when they run one after the other. The burst must end before the midpoint, (N + 1) / 2 x S
 * after it was sent. The midpoint leaves (N - 1) / 2 x S either way: when that is below what the
 * harness can resolve (the spread of the solo reports, twice the poll interval), the reports are
 * too quick to tell and the verdict is INCONCLUSIVE; a burst that ends later while the harness's
 * loop stood still for as long as its excess over S is INCONCLUSIVE too (a starved harness reads
 * its answers late), as is a measurement in which every solo report was measured while the loop
 * stood still too long (S would be too large: see the bound in parallelRun).
 */
/**
 * Measurements of AN-LIM-01's parallelism made in all before a starved one makes it INCONCLUSIVE.
 */
const PARALLEL_TRIES = 3;
/** Reports requested alone again, with each new measurement, beside those measured before. */
const SOLO_COUNT = 3;

Then(
  'they ran in parallel: the burst ended well before a serial run of the pool size could',
  async function (this: IotcWorld) {
    // A measurement the harness's starvation spoiled (INCONCLUSIVE) is made again, solo reports and
    // burst alike, a bounded number of times; a FAIL is never measured again.
    const solo = soloRuns.get(this);
    assert.ok(solo && solo.length > 0, 'no report was requested alone in this scenario');
    for (let tries = 1; ; tries++) {
      try {
        return parallelRun(this);
      } catch (error) {
        if (!(error instanceof Inconclusive) || tries >= PARALLEL_TRIES) throw error;
        this.log(`measured again (${tries} of ${PARALLEL_TRIES}): ${error.message}`);
        await soloReports(this, SOLO_COUNT, true);
        await burst(this, declaredLimits(this).poolSize);
      }
    }
  },
);

function parallelRun(world: IotcWorld): 'skipped' | undefined {
  const solo = soloRuns.get(world);
  assert.ok(solo && solo.length > 0, 'no report was requested alone in this scenario');
  const { poolSize } = declaredLimits(world);
  if (poolSize < 2) {
    world.log('skipped: a pool of one runs its reports one after the other by definition');
    return 'skipped';
  }
  const all = burstAnswers(world);
  assert.equal(all.length, poolSize, 'the burst was not of the pool size');
  const window = burstWindows.get(world)!;
  const { timeouts } = world.run.target;
  const roundTripMs = timeouts.roundTripMs ?? 0;
  // A solo report measured while the loop stood still X ms in all is too long by up to X: S' = S +
  // X. A serial executor's burst takes at least N x S and passes the midpoint (N + 1) / 2 x S' only
  // when X > S' (N - 1) / (2N), so a solo whose stall stays below that cannot let a serial executor
  // pass. The quickest such solo is S; the solos stalled more (on a busy machine, measured again
  // with each try) are not used.
  const serviceOf = (run: { elapsedMs: number }) => Math.max(0, run.elapsedMs - roundTripMs);
  const soloMarginMs = (run: { elapsedMs: number }) =>
    (serviceOf(run) * (poolSize - 1)) / (2 * poolSize);
  const clean = solo.filter(
    (run) => world.stalls.stalledBetween(run.from, run.to) < soloMarginMs(run),
  );
  if (clean.length === 0) {
    const least = solo.reduce((a, b) =>
      world.stalls.stalledBetween(b.from, b.to) < world.stalls.stalledBetween(a.from, a.to) ? b : a,
    );
    refuseIfStallExplains(
      { harnessMs: world.stalls.stalledBetween(least.from, least.to) },
      soloMarginMs(least),
      `measuring one report alone (${solo.length} measured, the least stalled took ${Math.round(least.elapsedMs)} ms)`,
    );
  }
  const quickest = clean.reduce((a, b) => (b.elapsedMs < a.elapsedMs ? b : a));
  const spreadMs = Math.max(...clean.map((run) => run.elapsedMs)) - quickest.elapsedMs;
  const serviceMs = serviceOf(quickest);
  const marginMs = (serviceMs * (poolSize - 1)) / 2;
  const resolutionMs = Math.max(spreadMs, 2 * timeouts.pollIntervalMs);
  if (marginMs < resolutionMs)
    throw new Inconclusive(
      `a report alone takes ${Math.round(serviceMs)} ms of work: a serial and a parallel run of ${poolSize} differ by ${Math.round(2 * marginMs)} ms, less than twice what the harness resolves (${Math.round(resolutionMs)} ms)`,
    );
  const spanMs = Math.max(...all.map((found) => found.elapsedMs));
  const limitMs = roundTripMs + serviceMs + marginMs;
  const shown = `${poolSize} reports sent at once took ${Math.round(spanMs)} ms (each ${all.map((found) => Math.round(found.elapsedMs)).join(', ')} ms); one alone ${Math.round(quickest.elapsedMs)} ms, so a parallel run takes about ${Math.round(roundTripMs + serviceMs)} ms and a serial one at least ${Math.round(roundTripMs + poolSize * serviceMs)} ms (limit ${Math.round(limitMs)} ms)`;
  world.log(shown);
  if (spanMs < limitMs) return undefined;
  refuseIfStallExplains(
    { harnessMs: world.stalls.stalledBetween(window.from, window.to) },
    spanMs - (roundTripMs + serviceMs),
    `timing a burst of ${poolSize} reports (${Math.round(spanMs)} ms)`,
  );
  assert.fail(`the reports did not run in parallel: ${shown}`);
}

Then('every 429 comes back faster than the fastest 200', function (this: IotcWorld) {
  const all = burstAnswers(this);
  const rejects = all.filter((found) => found.status === 429).map((found) => found.elapsedMs);
  const served = all.filter((found) => found.status === 200).map((found) => found.elapsedMs);
  assert.ok(rejects.length > 0 && served.length > 0, 'the burst had no 429 or no 200');
  const slowestReject = Math.max(...rejects);
  const fastestServed = Math.min(...served);
  if (slowestReject < fastestServed) return;
  const shown = `slowest 429 ${Math.round(slowestReject)} ms, fastest 200 ${Math.round(fastestServed)} ms`;
  // a stall of the harness's loop while the burst was answered delays the reading of a 429 by as
  // much (a fast 200 is fast whatever the loop did): one at least as long as the 429's lead cannot
  // tell a queued 429 from one read late (at load average 45: 435 against 428 ms, a stall of 1.8 s)
  const window = burstWindows.get(this);
  if (window)
    refuseIfStallExplains(
      { harnessMs: this.stalls.stalledBetween(window.from, window.to) },
      slowestReject - fastestServed,
      `timing the burst's answers (${shown})`,
    );
  assert.fail(shown);
});

Then('once the burst is over a report request succeeds again', async function (this: IotcWorld) {
  await this.eventually(async () => {
    const found = await buildReport(this);
    assert.equal(found.status, 200, `buildReport answered ${found.status}`);
  });
});
