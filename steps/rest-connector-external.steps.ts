/**
 * REST connector steps: the external API the connector calls, and the connector's server (TLS,
 * plain HTTP).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Given, Then, type DataTable } from './support/cucumber';
import { Agent, request } from 'undici';
import type { RecordedRequest } from '../simulators/external-api/control';
import type { IotcWorld } from './world';
import { missingGatewayMembers } from '../lib/gateway-rest';
import { connectorTarget, externalApi, outgoingAttemptMs, restFile } from './support/connector';
import {
  describeStall,
  HARNESS_STARVED,
  Inconclusive,
  refuseIfStallExplains,
  type Stall,
  stallMs,
} from './support/timing';
import { pairRows } from './support/tables';
import { names, QUIET_MS } from './support/connector-calls';

// ---- the external API
// ---------------------------------------------------------------------------------------

Given(
  'the external API answers requests to {string} with status {int} and body {string}',
  async function (this: IotcWorld, path: string, status: number, body: string) {
    await externalApi().script({ pathPrefix: names(this, path), status, body });
  },
);

Given(
  'the external API fails every request to {string}',
  async function (this: IotcWorld, path: string) {
    await externalApi().script({
      pathPrefix: names(this, path),
      failures: 1_000_000,
      failWith: 'status',
    });
  },
);

Given(
  'the external API answers requests to {string} after {int} ms',
  async function (this: IotcWorld, path: string, delayMs: number) {
    await externalApi().script({ pathPrefix: names(this, path), delayMs });
    scriptedDelays(this).set(names(this, path), delayMs);
  },
);

/**
 * The answer delays this scenario scripted, by path prefix: an answer that came after the attempt
 * timeout because the scenario asked for it late is no stall of anyone's (attemptCountStarved).
 */
const scenarioDelays = new WeakMap<IotcWorld, Map<string, number>>();
function scriptedDelays(world: IotcWorld): Map<string, number> {
  let delays = scenarioDelays.get(world);
  if (!delays) scenarioDelays.set(world, (delays = new Map()));
  return delays;
}
function scriptedDelayMs(world: IotcWorld, path: string): number {
  let delayMs = 0;
  for (const [prefix, ms] of scriptedDelays(world)) if (path.startsWith(prefix)) delayMs = ms;
  return delayMs;
}

Given(
  'the external API redirects requests to {string} to {string}',
  async function (this: IotcWorld, path: string, target: string) {
    await externalApi().script({
      pathPrefix: names(this, path),
      redirectTo: `${connectorTarget().externalApiUrl}${names(this, target)}?redirected=1`,
    });
  },
);

/**
 * A default destination of the connector's outgoing calls (EMBEDDED_ROUTES,
 * src/target/effective-rest.ts) reaches the external API only where the target's network delivers
 * it there (connector.routedDestinations); elsewhere the scenario is skipped and the run names the
 * member (NOT TESTED).
 */
Given(
  "the connector's network delivers calls to {string} to the external API",
  function (this: IotcWorld, destination: string) {
    if (connectorTarget().routedDestinations?.includes(destination)) return undefined;
    this.log(
      `skipped: the target profile's connector.routedDestinations does not name ${destination}`,
    );
    return 'skipped';
  },
);

/**
 * The requests to `path` the external API recorded in this attempt of the scenario: a retried
 * scenario uses the same run-unique names, and its first attempt's requests (an extra attempt
 * counted there, say) must not count again.
 */
async function recorded(world: IotcWorld, path: string) {
  const requests = await externalApi().requests(names(world, path));
  return requests.filter((request) => request.receivedAt >= world.startedAt);
}

/**
 * Rows of | what | expected |: `method`, `path`, `body` (exact text), `json body` (a JSON document, compared
 * as documents), `header <name>` (exact value), `no header <name>`, `basic` (user:password of the Authorization),
 * `basic scheme` (an Authorization of the scheme Basic with base64 user:password, whatever the credentials).
 */
Then(
  'the external API eventually receives a request to {string}:',
  async function (this: IotcWorld, path: string, table: DataTable) {
    // every row is an expectation: a header-less table read with rows() lost its first one (issue
    // 10)
    const expectations = pairRows(table).map(
      ([what, value]) => [what, names(this, value)] as const,
    );
    await this.eventually(
      async () => {
        const requests = await recorded(this, path);
        assert.ok(requests.length > 0, `no request to ${names(this, path)} yet`);
        const request = requests[0]!;
        // every row is checked and every mismatch reported, so one difference names itself only
        const mismatches = expectations.flatMap(([what, value]) => {
          try {
            checkRecorded(request, what, value);
            return [];
          } catch (error) {
            if (error instanceof assert.AssertionError) return [`${what}: ${error.message}`];
            throw error;
          }
        });
        assert.deepEqual(mismatches, [], mismatches.join('; '));
      },
      0,
      { local: true },
    );
  },
);

function checkRecorded(request: RecordedRequest, what: string, value: string): void {
  if (what === 'method') assert.equal(request.method, value);
  else if (what === 'path') assert.equal(request.path + request.query, value);
  else if (what === 'body') assert.equal(request.body, value);
  else if (what === 'json body')
    assert.deepEqual(JSON.parse(request.body), JSON.parse(value), `body ${request.body}`);
  else if (what === 'basic')
    assert.equal(request.headers.authorization, `Basic ${Buffer.from(value).toString('base64')}`);
  else if (what === 'basic scheme') {
    const header = String(request.headers.authorization ?? '');
    const basic = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header);
    assert.ok(
      basic && Buffer.from(basic[1]!, 'base64').toString('latin1').includes(':'),
      `authorization: ${header || 'none'}`,
    );
  } else if (what.startsWith('no header ')) {
    const header = request.headers[what.slice('no header '.length).toLowerCase()];
    assert.equal(header, undefined, `${what}: ${String(header)}`);
  } else if (what.startsWith('header '))
    assert.equal(request.headers[what.slice('header '.length).toLowerCase()], value, what);
  else throw new Error(`unknown expectation ${what}`);
}

Then(
  'the external API eventually receives {int} requests to {string}',
  async function (this: IotcWorld, count: number, path: string) {
    await receivesAtLeast(this, count, path);
  },
);

async function receivesAtLeast(
  world: IotcWorld,
  count: number,
  path: string,
  extraMs?: number,
): Promise<void> {
  await world.eventually(
    async () => {
      const requests = await recorded(world, path);
      assert.ok(
        requests.length >= count,
        `${requests.length} of ${count} requests to ${names(world, path)} so far`,
      );
    },
    extraMs,
    { local: true },
  );
}

/**
 * The HTTP status a GET of `url` gets, the certificate not checked; the error's message when none
 * comes.
 */
async function statusWithoutVerifying(url: string, timeoutMs: number): Promise<number | string> {
  const untrusting = new Agent({ connect: { rejectUnauthorized: false } });
  return request(url, { method: 'GET', dispatcher: untrusting, headersTimeout: timeoutMs })
    .then(
      async (response) => {
        await response.body.dump();
        return response.statusCode;
      },
      (error: Error) => error.message,
    )
    .finally(() => untrusting.close());
}

/**
 * Proves the HTTPS listener of the external API answers (any HTTP status, certificate not checked),
 * so a scenario about certificate verification cannot pass on a refused connection.
 */
Given(
  'the external API answers over HTTPS with a certificate nobody trusts',
  async function (this: IotcWorld) {
    const { httpsUrl } = await externalApi().info();
    assert.ok(httpsUrl, 'the external-API simulator serves no HTTPS (start it with --https-port)');
    const outcome = await statusWithoutVerifying(
      `${httpsUrl}/__iotc/info`,
      this.run.target.timeouts.requestMs,
    );
    assert.equal(
      typeof outcome,
      'number',
      `the HTTPS listener ${httpsUrl} does not answer: ${outcome}`,
    );
    const trusted = await request(`${httpsUrl}/__iotc/info`).then(
      async (response) => {
        await response.body.dump();
        return true;
      },
      () => false,
    );
    assert.equal(
      trusted,
      false,
      `the certificate of ${httpsUrl} is trusted: it cannot test SSLVerify`,
    );
  },
);

Then(
  'the external API receives no request to {string}',
  async function (this: IotcWorld, path: string) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const requests = await recorded(this, path);
    assert.equal(requests.length, 0, `${requests.length} requests to ${names(this, path)}`);
  },
);

/**
 * At least `count` requests, every one of them answered, then a quiet window: an attempt given up
 * too early is tried again while the first is still waiting for its answer, so it is counted here.
 *
 * A count that differs is weighed against the stall the scenario measured (attemptCountStarved): an
 * extra attempt after an answer the connector should have read, or a missing one, that a stall as
 * long as the attempt's margin explains is INCONCLUSIVE, not FAIL.
 */
Then(
  'the external API receives exactly {int} requests to {string}',
  async function (this: IotcWorld, count: number, path: string) {
    const waitStarted = Date.now();
    const waitMs = this.run.target.timeouts.eventuallyMs + 2000;
    let waitEnded: unknown;
    await this.eventually(
      async () => {
        const requests = await recorded(this, path);
        assert.ok(
          requests.length >= count,
          `${requests.length} of ${count} requests to ${names(this, path)} so far`,
        );
        const waiting = requests.filter((request) => request.answeredAt === undefined).length;
        assert.equal(waiting, 0, `${waiting} requests to ${names(this, path)} not answered yet`);
      },
      2000,
      { local: true },
    ).catch((error: unknown) => {
      waitEnded = error;
    });
    if (waitEnded !== undefined) {
      // the wait for the attempts ran out: a harness stalled for half of it did not really wait (as
      // untilEffective)
      refuseIfStallExplains(
        { harnessMs: this.stalls.worstBetween(waitStarted) },
        waitMs / 2,
        `waiting for ${count} requests to ${names(this, path)}`,
      );
      // fewer attempts than expected: a timer of the connector that fired late by its attempt
      // timeout (an answer scripted after 600 ms read before a 200 ms timeout ran out) is explained
      // by a stall that long
      const requests = await recorded(this, path);
      if (requests.length < count) attemptCountStarved(this, requests, count, names(this, path));
      throw waitEnded;
    }
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const requests = await recorded(this, path);
    if (requests.length !== count) attemptCountStarved(this, requests, count, names(this, path));
    assert.equal(
      requests.length,
      count,
      `${requests.length} requests to ${names(this, path)}, expected exactly ${count} (${describeStall(scenarioStall(this, requests[0]?.receivedAt ?? Date.now()))}; ${attemptTimes(this, requests)})`,
    );
  },
);

/**
 * Each attempt's arrival after the first, its answer's time and status, and the harness's stalls in
 * all from an attempt timeout before it to the next attempt: what a count that no stall explained
 * is judged on, named in the FAIL so that the next one can be told apart from a starved harness.
 */
function attemptTimes(world: IotcWorld, requests: RecordedRequest[]): string {
  const first = requests[0]?.receivedAt ?? 0;
  const attemptMs = outgoingAttemptMs(requests[0]?.path.split('?')[0] ?? '') ?? 0;
  return requests
    .map((request, index) => {
      const answer =
        request.answeredAt === undefined
          ? 'unanswered'
          : `answered ${request.status ?? 'by a dropped connection'} after ${request.answeredAt - request.receivedAt} ms`;
      const next = requests[index + 1];
      const stalled = next
        ? `, stalls in all until the next ${Math.round(world.stalls.stalledBetween(request.receivedAt - attemptMs, next.receivedAt))} ms`
        : '';
      return `attempt ${index + 1} at +${request.receivedAt - first} ms ${answer}${stalled}`;
    })
    .join('; ');
}

/**
 * The stall of this scenario over [fromMs, toMs] (Date.now(), the external API's clock): the
 * harness's worst event-loop stall then (for an embedded connector that is the connector's process,
 * whose timers and sockets the verdicts are about) and the round trip of the scenario's last
 * request to the connector (a connector in its own process is starved on a busy machine too).
 */
function scenarioStall(world: IotcWorld, fromMs: number, toMs?: number): Stall {
  const window = world.connectorWindow;
  return {
    harnessMs: world.stalls.worstBetween(fromMs, toMs),
    targetRoundTripMs: window ? window.end - window.start : undefined,
  };
}

/**
 * Throws Inconclusive when the stall of the scenario explains why `requests` (the attempts the
 * external API recorded) are not `count`; returns when it does not, and the caller FAILs.
 *
 * - More attempts: an extra attempt after an attempt answered with a final status (below 500)
 *   within the rule's attempt timeout T means the connector did not read an answer that was there
 *   for T - (answer time). Only a stall that long explains it, and only when the extra attempt came
 *   about T later (a retry that did not wait for the timeout is no timer firing late). An answer
 *   later than T (the external API, in the harness's process, starved) is explained by a stall of
 *   at least (answer time) - T. After a 5xx or a dropped connection an extra attempt is never
 *   explained.
 * - Fewer attempts: a stall of at least T can have let a deadline (an RPC's responseTimeout) expire
 *   over an attempt.
 */
function attemptCountStarved(
  world: IotcWorld,
  requests: RecordedRequest[],
  count: number,
  path: string,
): void {
  // the rule is found by a request's own path: the scenario's `path` may be a prefix of it (a rule
  // "/sensor/${deviceName}/${attributeKey}" matches no "/sensor/<device>"; so it was, and no
  // stall ever explained an extra attempt of RC-AUPD-06 under load)
  const attemptMs = outgoingAttemptMs((requests[0]?.path ?? path).split('?')[0]!);
  if (attemptMs === undefined) return; // no rule of rest.json names this URL: no margin to weigh
  const firstAt = requests[0]?.receivedAt ?? Date.now();
  if (requests.length < count) {
    // The missing attempt was owed at the latest one attempt timeout after the last one (a failure
    // is retried sooner); the connector's timer fires late only by a stall, so only a stall as long
    // as a good part of the time waited past that moment explains that it never came (half, as
    // untilEffective weighs a wait).
    const last = requests[requests.length - 1];
    const owedAt = last ? last.receivedAt + attemptMs : firstAt;
    const stall = last
      ? scenarioStalledInAll(world, last.receivedAt, Date.now())
      : scenarioStall(world, firstAt - attemptMs);
    refuseIfStallExplains(
      stall,
      last ? Math.max(attemptMs, (Date.now() - owedAt) / 2) : attemptMs,
      `counting attempts to ${path} (${requests.length} of ${count})`,
    );
    return;
  }
  // Every extra attempt must be explained for the count to be INCONCLUSIVE; one that no stall
  // explains FAILs it. Each is weighed against the harness's stalls in all (many short stalls of a
  // loaded machine add up: each turn of the loop the connector needs to read an answer can come
  // late) from an attempt timeout before the attempt it follows (a stall can make that attempt's
  // arrival look late and the gap short) to the extra attempt itself.
  const explained: string[] = [];
  for (let index = count; index < requests.length; index++) {
    const previous = requests[index - 1]!;
    const next = requests[index]!;
    if (previous.status !== undefined && previous.status >= 500) return; // a failure: retried by rule, not by time
    if (previous.answeredAt === undefined) return;
    // No status: the external API never answered it, the connector gave up first (the connection
    // closed under the scripted delay). On a starved loop the simulator's own body read and delay
    // timer come late (a 250 ms answer left after a 500 ms timeout, real-looking extra attempt):
    // weighed as an answer at its scripted delay, which a stall as long as its margin explains.
    const answerMs =
      previous.status === undefined
        ? scriptedDelayMs(world, path)
        : previous.answeredAt - previous.receivedAt;
    const gapMs = next.receivedAt - previous.receivedAt;
    const stall = scenarioStalledInAll(world, previous.receivedAt - attemptMs, next.receivedAt);
    // a retry long before the timeout ran out is no timer firing late
    if (gapMs + stallMs(stall) < attemptMs / 2) return;
    // An answer the external API (the harness's simulator) gave only after the attempt timeout:
    // trying again was right. Only a stall of the harness's process (where that simulator runs)
    // explains a late answer of its own, when without the stall it would have come in time: an
    // answer the scenario scripted past the timeout is explained by no stall (the retry was owed,
    // the extra attempt is the target's).
    if (answerMs >= attemptMs && scriptedDelayMs(world, path) >= attemptMs) return;
    const marginMs = answerMs >= attemptMs ? answerMs - attemptMs + 1 : attemptMs - answerMs;
    if (stallMs(stall) < marginMs) return;
    explained.push(
      `attempt ${index + 1}, ${gapMs} ms after one answered in ${answerMs} ms: ${describeStall(stall)}, not less than its ${Math.round(marginMs)} ms margin`,
    );
  }
  throw new Inconclusive(
    `${HARNESS_STARVED} or the target's process was starved while counting attempts to ${path} (${requests.length}, expected ${count}; attempt timeout ${attemptMs} ms): ${explained.join('; ')} (a busy machine)`,
  );
}

/**
 * As scenarioStall, with the harness's stalls counted in all over the window, not only the worst.
 */
function scenarioStalledInAll(world: IotcWorld, fromMs: number, toMs: number): Stall {
  const window = world.connectorWindow;
  return {
    harnessMs: world.stalls.stalledBetween(fromMs, toMs),
    targetRoundTripMs: window ? window.end - window.start : undefined,
  };
}

Then(
  'the external API eventually receives at least {int} requests to {string}',
  async function (this: IotcWorld, count: number, path: string) {
    await this.eventually(
      async () => {
        const requests = await recorded(this, path);
        assert.ok(
          requests.length >= count,
          `${requests.length} of at least ${count} requests to ${names(this, path)} so far`,
        );
      },
      0,
      { local: true },
    );
  },
);

Then(
  'the external API records an RPC request id in {string} with the query {string}',
  async function (this: IotcWorld, path: string, query: string) {
    const requests = await this.eventually(
      async () => {
        const found = await recorded(this, path);
        assert.ok(found.length > 0, `no request to ${names(this, path)} yet`);
        return found;
      },
      0,
      { local: true },
    );
    const request = requests[0]!;
    const id = request.path.slice(names(this, path).length);
    assert.match(id, /^\d+$/, `the path ends in ${id}, not an RPC id`);
    assert.equal(request.query, query);
  },
);

Then(
  'the requests to {string} came at least {int} ms apart',
  async function (this: IotcWorld, path: string, gapMs: number) {
    const requests = await recorded(this, path);
    // The connector's timeout starts before its request reaches the external API, so the arrivals
    // can be closer than the timeout by the first attempt's transit (its connection set-up, and any
    // time the connector's process is not scheduled). On a loaded machine that took 24 to 52 ms
    // (gaps of 176, 168 and 148 ms for a 200 ms timeout); half the timeout covers it, and an
    // attempt that does not wait for the timeout (none, or one read as milliseconds) still comes
    // within a few milliseconds of the first. A closer gap that the scenario's measured stall can
    // explain (the first arrival read late by as much) is INCONCLUSIVE.
    const tolerance = 0.5;
    for (let index = 1; index < requests.length; index++) {
      const gap = requests[index]!.receivedAt - requests[index - 1]!.receivedAt;
      if (gap >= gapMs * tolerance) continue;
      const stall = scenarioStall(
        this,
        requests[index - 1]!.receivedAt - gapMs,
        requests[index]!.receivedAt,
      );
      refuseIfStallExplains(
        stall,
        gapMs * tolerance - gap,
        `timing attempts ${index} and ${index + 1} to ${names(this, path)} (${gap} ms apart)`,
      );
      assert.fail(
        `requests ${index} and ${index + 1} came ${gap} ms apart (${describeStall(stall)})`,
      );
    }
  },
);

Then(
  "the connector's rest.json names every member 3.8.3 has no default for, of {string}",
  function (this: IotcWorld, requirements: string) {
    const ids = requirements.split(',').map((id) => id.trim());
    const missing = missingGatewayMembers(restFile() as unknown as Record<string, unknown>, ids);
    assert.deepEqual(missing, [], `the rest.json leaves out ${missing.join(', ')}`);
  },
);

// ---- the server
// ---------------------------------------------------------------------------------------------

/**
 * The connector's URL names server.host (default 127.0.0.1) and server.port (default 5000), and a
 * connection to that very address is answered. A wildcard host (0.0.0.0, ::) is reached through the
 * target's URL.
 */
Then(
  'the connector listens on the host and port of its rest.json',
  async function (this: IotcWorld) {
    const { server } = restFile();
    const target = connectorTarget();
    const url = new URL(target.url);
    const host = server.host ?? '127.0.0.1';
    const port = server.port ?? 5000;
    // a connector in a network of its own is reached at the host port its port is published at
    // (docker -p)
    const published = target.publishedPorts;
    const reached = published ? published[String(port)] : port;
    assert.ok(
      reached !== undefined,
      `port ${port} of the connector is not published; it publishes ${JSON.stringify(published)}`,
    );
    assert.equal(
      Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      reached,
      published
        ? `connector.url is not the published address of port ${port}`
        : `connector.url is not port ${port} (a connector whose port is published needs connector.publishedPorts)`,
    );
    const wildcard = host === '0.0.0.0' || host === '::';
    if (!wildcard) assert.equal(url.hostname.replace(/^\[|\]$/g, ''), host);
    const address = wildcard ? url.hostname : host.includes(':') ? `[${host}]` : host;
    // reachability only: the certificate is the HTTPS scenario's business
    const answered = await statusWithoutVerifying(
      `${url.protocol}//${address}:${reached}/`,
      this.run.target.timeouts.requestMs,
    );
    assert.equal(
      typeof answered,
      'number',
      `${address}:${reached} gave no HTTP answer: ${answered}`,
    );
  },
);

Then(
  'the connector serves HTTPS with the certificate of server.security.cert',
  async function (this: IotcWorld) {
    const { server } = restFile();
    assert.equal(server.SSL, true, 'rest.json does not switch SSL on');
    assert.ok(server.security?.cert, 'rest.json names no server.security.cert');
    const expected = new X509Certificate(readFileSync(server.security.cert));
    const url = new URL(connectorTarget().url);
    assert.equal(url.protocol, 'https:');
    const presented = await new Promise<Buffer>((resolve, reject) => {
      const socket = tlsConnect(
        {
          host: url.hostname,
          port: Number(url.port),
          servername: url.hostname === '127.0.0.1' ? undefined : url.hostname,
          rejectUnauthorized: false,
        },
        () => {
          const certificate = socket.getPeerCertificate();
          socket.end();
          resolve(certificate.raw);
        },
      );
      socket.once('error', reject);
    });
    assert.ok(
      presented.equals(expected.raw),
      'the connector presents another certificate than server.security.cert',
    );
  },
);

Then('plain HTTP to the connector port gets no HTTP answer', async function (this: IotcWorld) {
  const url = new URL(connectorTarget().url);
  const outcome = await request(`http://${url.host}/conv`, {
    method: 'GET',
    headersTimeout: 2000,
    bodyTimeout: 2000,
  }).then(
    async (response) => {
      await response.body.dump();
      return response.statusCode;
    },
    () => 'refused',
  );
  assert.ok(outcome === 'refused' || outcome === 400, `plain HTTP was answered ${outcome}`);
});
