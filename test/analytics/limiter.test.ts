/**
 * The report rate limiter: the class on its own, then over HTTP with a report cost — 429 only above
 * pool + queue, fast rejects, recovery, FIFO order of queued requests, the order of the checks, no
 * slot leaked by clients that leave (queued, running, or still sending their body).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startAnalytics, type RunningAnalytics } from '../../simulators/analytics';
import { Limiter } from '../../simulators/analytics/limiter';
import {
  eventually,
  holdSlot,
  limiterStatus,
  makeJwt,
  postReport,
  startFakePlatform,
  type FakePlatform,
  type HeldRequest,
} from './support';

describe('Limiter', () => {
  it('runs poolSize at once, queues queueCapacity, refuses the rest, and starts queued tickets in arrival order', async () => {
    const limiter = new Limiter(2, 2);
    const tickets = [1, 2, 3, 4].map(() => limiter.admit());
    assert.ok(tickets.every((ticket) => ticket !== undefined));
    assert.equal(limiter.admit(), undefined);
    assert.deepEqual(limiter.status(), {
      poolSize: 2,
      queueCapacity: 2,
      active: 2,
      queued: 2,
      rejected: 1,
      completed: 0,
      abandoned: 0,
    });
    const started: number[] = [];
    void tickets[2]!.started.then(() => started.push(3));
    void tickets[3]!.started.then(() => started.push(4));
    tickets[1]!.release();
    tickets[1]!.release(); // idempotent
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, [3]);
    assert.equal(tickets[2]!.state, 'active');
    tickets[3]!.release(); // leaves the queue before its turn
    assert.deepEqual(limiter.status(), {
      poolSize: 2,
      queueCapacity: 2,
      active: 2,
      queued: 0,
      rejected: 1,
      completed: 1,
      abandoned: 1,
    });
    tickets[0]!.release();
    tickets[2]!.release();
    assert.deepEqual(
      { ...limiter.status(), rejected: 0 },
      {
        poolSize: 2,
        queueCapacity: 2,
        active: 0,
        queued: 0,
        rejected: 0,
        completed: 3,
        abandoned: 1,
      },
    );
  });

  it('accepts a queue capacity of 0 and refuses bad sizes', () => {
    const limiter = new Limiter(1, 0);
    assert.ok(limiter.admit());
    assert.equal(limiter.admit(), undefined);
    assert.throws(() => new Limiter(0, 1), RangeError);
    assert.throws(() => new Limiter(1, -1), RangeError);
  });
});

describe('analytics limiter over HTTP', () => {
  const POOL = 3;
  const QUEUE = 3;
  const COST_MS = 500;
  let platform: FakePlatform;
  let analytics: RunningAnalytics;
  const jwt = makeJwt(Math.floor(Date.now() / 1000) + 3600);
  // Every request varies its range, as a load run must (a report cache could otherwise hide the
  // limiter).
  let counter = 0;
  const body = () => ({
    viewConfigId: analytics.demoViewId,
    rangeStartTs: counter++,
    rangeEndTs: 10_000_000,
  });
  const status = () => limiterStatus(analytics.limiterStatusUrl);
  /** A bound on waits for the limiter's own counters: a hang guard, generous for a busy machine. */
  const WAIT_MS = 30_000;
  const occupancy = async () => {
    const { active, queued } = await status();
    return { active, queued };
  };
  /**
   * Takes every pool slot and queue place with held requests, one at a time, so each is counted
   * where it sits.
   */
  const fillPoolAndQueue = async (): Promise<HeldRequest[]> => {
    const held: HeldRequest[] = [];
    for (let index = 0; index < POOL + QUEUE; index++) {
      held.push(await holdSlot(analytics.reportUrl, jwt, body()));
      await eventually(
        async () => {
          const { active, queued } = await occupancy();
          return active + queued === index + 1;
        },
        WAIT_MS,
        `held request ${index + 1} to take its place`,
      );
    }
    return held;
  };

  before(async () => {
    platform = await startFakePlatform([
      {
        id: 'd1',
        name: 'Demo Device',
        telemetry: { temperature: [{ ts: 5, value: 21 }] },
        attributes: {},
      },
    ]);
    platform.validTokens.add(jwt);
    analytics = await startAnalytics({
      platformUrl: platform.url,
      poolSize: POOL,
      queueCapacity: QUEUE,
      reportCostMs: COST_MS,
      jwtCacheMs: 60_000,
    });
    const warm = await postReport(
      analytics.reportUrl,
      { viewConfigId: '00000000-0000-4000-8000-000000000000' },
      { jwt },
    );
    assert.equal(warm.status, 404, 'a validation failure holds no slot and warms the JWT check');
  });
  after(async () => {
    await analytics?.close();
    await platform?.close();
  });

  it('answers 429 above pool + queue at once, never at or below it, and recovers after the burst', async () => {
    const atPool = await Promise.all(
      Array.from({ length: POOL }, () => postReport(analytics.reportUrl, body(), { jwt })),
    );
    assert.deepEqual(
      atPool.map((answer) => answer.status),
      Array(POOL).fill(200),
    );
    assert.deepEqual(atPool[0].json.dataTable, [
      { Date: '5', Device: 'Demo Device', temperature: 21, humidity: null },
    ]);
    assert.ok(
      atPool.every((answer) => answer.ms >= COST_MS - 20),
      'each report holds its slot for reportCostMs',
    );

    // Pool and queue taken by requests that keep their slots until released: what follows is
    // decided by counts
    const held = await fillPoolAndQueue();
    const extra = await Promise.all(
      Array.from({ length: 4 }, () => postReport(analytics.reportUrl, body(), { jwt })),
    );
    assert.deepEqual(
      extra.map((answer) => answer.status),
      Array(4).fill(429),
    );
    assert.deepEqual(extra[0].json, { status: 429, message: extra[0].json.message });
    // answered at once: every reject came back while every slot was still held (no reject waited
    // for a report)
    assert.deepEqual(await occupancy(), { active: POOL, queued: QUEUE });
    const finishing = held.map((request) => request.finish());
    assert.deepEqual(await Promise.all(finishing), Array(POOL + QUEUE).fill(200));

    await eventually(async () => (await status()).active === 0, WAIT_MS, 'the pool to drain');
    const recovered = await Promise.all(
      Array.from({ length: POOL + QUEUE }, () => postReport(analytics.reportUrl, body(), { jwt })),
    );
    assert.deepEqual(
      recovered.map((answer) => answer.status),
      Array(POOL + QUEUE).fill(200),
      'no 429 at exactly pool + queue after the burst',
    );
    const counters = await status();
    assert.equal(counters.rejected, 4);
    assert.equal(counters.active + counters.queued, 0);
  });

  it('answers rejects at once while the pool and queue are full, checking JWT (403) before admission and admission (429) before the body', async () => {
    const held = await fillPoolAndQueue();
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await postReport(analytics.reportUrl, body(), { jwt });
      assert.equal(answer.status, 429);
    }
    // five rejects in a row while no held slot was given back: none of them waited for a report
    assert.deepEqual(await occupancy(), { active: POOL, queued: QUEUE });
    assert.equal((await postReport(analytics.reportUrl, body(), { jwt: 'bad' })).status, 403);
    assert.equal(
      (await postReport(analytics.reportUrl, body(), { jwt, contentType: 'text/plain' })).status,
      415,
    );
    assert.equal(
      (await postReport(analytics.reportUrl, undefined, { jwt, raw: '{broken' })).status,
      429,
    );
    assert.deepEqual(
      await Promise.all(held.map((request) => request.finish())),
      Array(POOL + QUEUE).fill(200),
    );
  });

  it('runs queued requests in arrival order', async () => {
    const fifo = await startAnalytics({
      platformUrl: platform.url,
      poolSize: 1,
      queueCapacity: 4,
      reportCostMs: 120,
      jwtCacheMs: 60_000,
    });
    try {
      const finished: string[] = [];
      const send = (name: string) =>
        postReport(fifo.reportUrl, body(), { jwt }).then((answer) =>
          finished.push(`${name}:${answer.status}`),
        );
      const pending = [send('first')];
      await eventually(
        async () => (await limiterStatus(fifo.limiterStatusUrl)).active === 1,
        WAIT_MS,
        'the first report to run',
      );
      for (const [index, name] of ['second', 'third', 'fourth'].entries()) {
        pending.push(send(name));
        await eventually(
          async () => (await limiterStatus(fifo.limiterStatusUrl)).queued === index + 1,
          WAIT_MS,
          `${name} to queue`,
        );
      }
      await Promise.all(pending);
      assert.deepEqual(finished, ['first:200', 'second:200', 'third:200', 'fourth:200']);
    } finally {
      await fifo.close();
    }
  });

  it('leaks no slot when clients leave while queued, while running, or while sending their body', async () => {
    const before = await status();
    const controllers = Array.from({ length: POOL + QUEUE }, () => new AbortController());
    const leaving = controllers.map((controller) =>
      postReport(analytics.reportUrl, body(), { jwt, signal: controller.signal }).catch(
        (error: Error) => error,
      ),
    );
    await eventually(
      async () => {
        const counters = await status();
        return counters.active === POOL && counters.queued === QUEUE;
      },
      WAIT_MS,
      'pool and queue to fill',
    );
    for (const controller of controllers) controller.abort();
    for (const outcome of await Promise.all(leaving))
      assert.ok(outcome instanceof Error, 'aborted on the client side');

    // A client that sends its headers and half its body, then hangs up, while holding a slot.
    const socket = connect(Number(new URL(analytics.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const path = new URL(analytics.reportUrl).pathname;
    socket.write(
      `POST ${path}?jwt=${jwt} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"viewConfigId":`,
    );
    await eventually(
      async () => (await status()).active === 1,
      WAIT_MS,
      'the half-sent request to take a slot',
    );
    socket.destroy();

    await eventually(
      async () => {
        const counters = await status();
        return counters.active === 0 && counters.queued === 0;
      },
      WAIT_MS,
      'every slot to come back',
    );
    const after = await status();
    assert.equal(after.abandoned - before.abandoned, QUEUE, 'the queued ones left the queue');
    assert.equal(after.rejected, before.rejected, 'nobody was refused');

    const full = await Promise.all(
      Array.from({ length: POOL + QUEUE }, () => postReport(analytics.reportUrl, body(), { jwt })),
    );
    assert.deepEqual(
      full.map((answer) => answer.status),
      Array(POOL + QUEUE).fill(200),
      'the whole capacity is available again',
    );
    assert.equal((await status()).rejected, before.rejected);
  });
});
