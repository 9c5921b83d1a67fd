/**
 * REST connector steps: a client sends requests to the connector's endpoints (connector-client
 * driver), the admin client reads back what reached the platform and plays the platform's side
 * (shared attributes, RPC), and the external-API simulator records the connector's outgoing calls.
 * Credentials and endpoints come from the connector's rest.json. `<<local>>` in a step's text is
 * the run-unique name of a device the connector creates.
 */
import assert from 'node:assert/strict';
import { AfterAll, Given, Then, When, type DataTable } from './support/cucumber';
import type { ConnectorResponse } from '../simulators/connector-client';
import type { IotcWorld } from './world';
import { closeConnectorSteps, endpointResponseTimeoutMs } from './support/connector';
import { settlesWithin } from './support/eventually';
import { headedRows } from './support/tables';
import { describeStall, Inconclusive, refuseIfStallExplains } from './support/timing';
import {
  answeredWith,
  assertHolds,
  attributesSetWindows,
  lastAnswer,
  names,
  remember,
  send,
} from './support/connector-calls';

AfterAll(closeConnectorSteps);

// ---- credentials
// --------------------------------------------------------------------------------------------

Given('the client sends no credentials', function (this: IotcWorld) {
  this.connectorCredentials = { kind: 'none' };
});

Given('the client sends the password {string}', function (this: IotcWorld, password: string) {
  this.connectorCredentials = { kind: 'password', password };
});

Given(
  'the client sends the Authorization header {string}',
  function (this: IotcWorld, header: string) {
    this.connectorCredentials = { kind: 'authorization', header };
  },
);

// ---- requests
// -----------------------------------------------------------------------------------------------

When(
  /^the client sends (GET|POST|PUT|DELETE|PATCH|HEAD) "([^"]*)" with JSON:$/,
  async function (this: IotcWorld, method: string, path: string, body: string) {
    remember(
      this,
      await send(this, {
        method,
        path,
        body: { raw: names(this, body), contentType: 'application/json' },
      }),
    );
  },
);

When(
  /^the client sends (GET|POST|PUT|DELETE|PATCH|HEAD) "([^"]*)"$/,
  async function (this: IotcWorld, method: string, path: string) {
    remember(this, await send(this, { method, path }));
  },
);

When(
  /^the client sends (POST|PUT) "([^"]*)" with the body "([^"]*)" of type "([^"]*)"$/,
  async function (
    this: IotcWorld,
    method: string,
    path: string,
    body: string,
    contentType: string,
  ) {
    remember(
      this,
      await send(this, { method, path, body: { raw: names(this, body), contentType } }),
    );
  },
);

When(
  /^the client sends (POST|PUT) "([^"]*)" with the bytes "([0-9a-fA-F ]*)"$/,
  async function (this: IotcWorld, method: string, path: string, hex: string) {
    const bytes = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
    remember(
      this,
      await send(this, { method, path, body: { bytes, contentType: 'application/octet-stream' } }),
    );
  },
);

/** Rows: | part | value | and optionally | filename | (a file part). */
When(
  /^the client sends (POST|PUT) "([^"]*)" with multipart parts:$/,
  async function (this: IotcWorld, method: string, path: string, table: DataTable) {
    const rows = headedRows<{ part: string; value: string; filename?: string }>(table, [
      'part',
      'value',
    ]);
    const fields: Record<string, string> = {};
    const files: Array<{ field: string; filename: string; content: string }> = [];
    for (const row of rows) {
      if (row.filename)
        files.push({ field: row.part, filename: row.filename, content: names(this, row.value) });
      else fields[row.part] = names(this, row.value);
    }
    remember(this, await send(this, { method, path, body: { multipart: { fields, files } } }));
  },
);

/**
 * By scenario and label: when a held request was started and when it settled (Date.now()), and its
 * endpoint.
 */
interface HeldRequest {
  path: string;
  startedAt: number;
  settledAt?: number;
}
const heldRequests = new WeakMap<IotcWorld, Map<string, HeldRequest>>();

function heldRequest(world: IotcWorld, label: string): HeldRequest | undefined {
  return heldRequests.get(world)?.get(label);
}

When(
  /^the client starts sending POST "([^"]*)" as request "([^"]*)" with JSON:$/,
  function (this: IotcWorld, path: string, label: string, body: string) {
    const held: HeldRequest = { path: path.split('?')[0]!, startedAt: Date.now() };
    const byLabel = heldRequests.get(this) ?? new Map<string, HeldRequest>();
    byLabel.set(label, held);
    heldRequests.set(this, byLabel);
    this.pending.start(
      'connectorRequest',
      label,
      send(this, {
        method: 'POST',
        path,
        body: { raw: names(this, body), contentType: 'application/json' },
      }).finally(() => {
        held.settledAt = Date.now();
      }),
    );
  },
);

// ---- answers
// ------------------------------------------------------------------------------------------------

Then('the connector answers {int}', function (this: IotcWorld, status: number) {
  answeredWith(this, status);
});

Then(
  'the connector answers {int} with the body {string}',
  function (this: IotcWorld, status: number, body: string) {
    const answer = answeredWith(this, status);
    assert.equal(answer.text, body);
  },
);

Then('the connector answers {int} with an empty body', function (this: IotcWorld, status: number) {
  const answer = answeredWith(this, status);
  assert.equal(answer.text, '', 'the body is not empty');
});

Then(
  'the connector answers {int} with a JSON body holding:',
  function (this: IotcWorld, status: number, expected: string) {
    const answer = answeredWith(this, status);
    assertHolds(JSON.parse(answer.text), JSON.parse(names(this, expected)));
  },
);

Then(
  'the connector answers {int} with exactly the JSON body:',
  function (this: IotcWorld, status: number, expected: string) {
    const answer = answeredWith(this, status);
    assert.deepEqual(JSON.parse(answer.text), JSON.parse(names(this, expected)));
  },
);

/**
 * A refusal that is not the 401 of security: the status is the target's, the body the configured
 * one.
 */
Then(
  'the connector answers a status other than 200 with the body {string}',
  function (this: IotcWorld, body: string) {
    const answer = lastAnswer(this);
    assert.ok(
      answer.status !== 200,
      `the connector answered ${answer.status} ${answer.text.slice(0, 200)}`,
    );
    assert.equal(answer.text, body);
  },
);

Then(
  'the connector answers {int} with a body starting {string}',
  function (this: IotcWorld, status: number, start: string) {
    const answer = lastAnswer(this);
    assert.equal(answer.status, status, `the connector answered ${answer.status} ${answer.text}`);
    assert.ok(answer.text.startsWith(start), `the body is ${JSON.stringify(answer.text)}`);
  },
);

Then(
  'the request {string} is answered {int} with the body {string}',
  async function (this: IotcWorld, label: string, status: number, body: string) {
    const answer = await answeredRequest(this, label, status);
    assert.equal(answer.text, body);
  },
);

Then(
  'the request {string} is answered {int} with a JSON body holding:',
  async function (this: IotcWorld, label: string, status: number, expected: string) {
    const answer = await answeredRequest(this, label, status);
    assertHolds(JSON.parse(answer.text), JSON.parse(expected));
  },
);

/** The answer of a request started earlier, checked for its status. */
async function answeredRequest(
  world: IotcWorld,
  label: string,
  status: number,
): Promise<ConnectorResponse> {
  const answer = await world.pending.get('connectorRequest', label);
  assert.ok(answer, `no request "${label}" was started`);
  if (answer.status !== status) refuseIfTimedOutStarved(world, label);
  assert.equal(
    answer.status,
    status,
    `request ${label} was answered ${answer.status} ${answer.text.slice(0, 200)}`,
  );
  return answer;
}

/**
 * A request held for the platform's answer (responses.feature) that got its response.timeout's
 * answer instead of the expected one: the platform's answer had to reach the connector within the
 * timeout T of the request, and the scenario spent (the end of its setting of the answer) - (the
 * request's start) of it. Throws Inconclusive when the scenario's stall (the harness's worst
 * event-loop stall while the request was held, and the target's round trip for that setting) is at
 * least what was left of T: a busy machine, not the connector, made the answer late. An answer that
 * came before T ran out is no timeout: returns, and the caller FAILs.
 */
function refuseIfTimedOutStarved(world: IotcWorld, label: string): void {
  const held = heldRequest(world, label);
  const set = attributesSetWindows.get(world);
  if (!held?.settledAt || !set) return;
  const timeoutMs = endpointResponseTimeoutMs(held.path);
  if (timeoutMs === undefined || held.settledAt - held.startedAt < timeoutMs) return;
  refuseIfStallExplains(
    {
      harnessMs: world.stalls.worstBetween(held.startedAt, held.settledAt),
      targetRoundTripMs: set.end - set.start,
    },
    timeoutMs - (set.end - held.startedAt),
    `request ${label} waited for the platform's answer, set ${set.end - held.startedAt} ms after it started (response.timeout ${timeoutMs} ms)`,
  );
}

/**
 * The request is still held 100 ms after this step begins. An answer that came before the
 * endpoint's response.timeout T ran out (counted from the request's start, before the connector's
 * own timer began) is a FAIL: no stall makes a timer fire early. One that came later may be that
 * timeout's own answer: the check came too late to see the request held (the harness was starved,
 * or the steps before it took T), so it is INCONCLUSIVE, with the measured stall.
 */
Then('the request {string} is not answered yet', async function (this: IotcWorld, label: string) {
  const pending = this.pending.get('connectorRequest', label);
  assert.ok(pending, `no request "${label}" was started`);
  const checkedAt = Date.now();
  if (!(await settlesWithin(pending, 100))) return;
  const held = heldRequest(this, label);
  const timeoutMs = held && endpointResponseTimeoutMs(held.path);
  if (held?.settledAt !== undefined && timeoutMs !== undefined) {
    const answeredMs = held.settledAt - held.startedAt;
    if (answeredMs >= timeoutMs)
      throw new Inconclusive(
        `request ${label} was answered ${answeredMs} ms after it started, once its response.timeout of ${timeoutMs} ms had run out: this check came ${checkedAt - held.startedAt} ms after the request, too late to see it held (${describeStall({ harnessMs: this.stalls.worstBetween(held.startedAt, held.settledAt) })})`,
      );
  }
  assert.fail(
    `request ${label} was answered before the platform produced its answer${held?.settledAt === undefined ? '' : `, ${held.settledAt - held.startedAt} ms after it started`}`,
  );
});
