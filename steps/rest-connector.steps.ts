/**
 * REST connector steps: a client sends requests to the connector's endpoints (connector-client driver), the admin
 * client reads back what reached the platform and plays the platform's side (shared attributes, RPC), and the
 * external-API simulator records the connector's outgoing calls. Credentials and endpoints come from the
 * connector's rest.json. `<<local>>` in a step's text is the run-unique name of a device the connector creates.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { AfterAll, Given, Then, When, type DataTable } from '@cucumber/cucumber';
import { Agent, request } from 'undici';
import { describeTypedValue, parseLossless, type TypedValue } from '../src/kv/values';
import type { ConnectorCall, ConnectorResponse } from '../simulators/connector-client';
import type { RecordedRequest } from '../simulators/external-api/control';
import type { IotcWorld } from './world';
import { expectedValue, sameJson, storedMatches, storedValueMatches } from './support/expectations';
import { missingGatewayMembers } from '../src/target/gateway-rest';
import {
  closeConnectorSteps,
  connectorClient,
  connectorTarget,
  endpointSecurity,
  externalApi,
  restFile,
} from './support/connector';
import { settlesWithin } from './support/eventually';
import { DataTableShapeError, headedRows, pairRows } from './support/tables';

AfterAll(closeConnectorSteps);

const QUIET_MS = 150; // how long "no request" and "exactly n requests" watch for late calls

/** Replaces <<local>> (and <<profile:local>>) by run-unique names; every device name is journaled for cleanup. */
function names(world: IotcWorld, text: string): string {
  return text.replace(
    /<<(profile:)?([\w.-]+)>>/g,
    (_match, profile: string | undefined, local: string) => {
      const name = world.unique(local);
      if (!profile) trackDevice(world, name);
      return name;
    },
  );
}

/** A device the connector will create: journaled before the request, deleted after the scenario. */
function trackDevice(world: IotcWorld, name: string): void {
  if (world.ids.has(`connector-device:${name}`)) return;
  world.ids.set(`connector-device:${name}`, name);
  world.run.journal.intend('device', name);
  world.cleanups.push({
    what: `device ${name}`,
    undo: async () => {
      const device = await world.run.admin.findDeviceByName(name);
      if (device) await world.run.admin.deleteDevice(device.id);
      world.run.journal.deleted('device', name, device?.id);
    },
  });
}

function credentials(
  world: IotcWorld,
  path: string,
): Pick<ConnectorCall, 'basic' | 'authorization'> {
  const mode = world.ids.get('connector-credentials');
  if (mode === 'none') return {};
  if (mode?.startsWith('header:')) return { authorization: mode.slice('header:'.length) };
  const security = endpointSecurity(path.split('?')[0]!);
  if (security.type !== 'basic') return {};
  return {
    basic: {
      username: security.username!,
      password: mode?.startsWith('password:') ? mode.slice('password:'.length) : security.password!,
    },
  };
}

async function send(world: IotcWorld, call: ConnectorCall): Promise<ConnectorResponse> {
  const path = names(world, call.path);
  const started = Date.now();
  const response = await connectorClient().send({
    ...call,
    path,
    ...credentials(world, path),
    timeoutMs: world.run.target.timeouts.requestMs,
  });
  world.ids.set('connector-window', `${started}:${Date.now()}`);
  return response;
}

function lastAnswer(world: IotcWorld): ConnectorResponse {
  if (!world.connectorResponse)
    throw new Error('no connector request was sent in this scenario yet');
  return world.connectorResponse;
}

/** The last answer, after checking its status. */
function answeredWith(world: IotcWorld, status: number): ConnectorResponse {
  const answer = lastAnswer(world);
  assert.equal(
    answer.status,
    status,
    `the connector answered ${answer.status} ${answer.text.slice(0, 200)}`,
  );
  return answer;
}

function remember(world: IotcWorld, response: ConnectorResponse): void {
  world.connectorResponse = response;
}

// ---- credentials --------------------------------------------------------------------------------------------

Given('the client sends no credentials', function (this: IotcWorld) {
  this.ids.set('connector-credentials', 'none');
});

Given('the client sends the password {string}', function (this: IotcWorld, password: string) {
  this.ids.set('connector-credentials', `password:${password}`);
});

Given(
  'the client sends the Authorization header {string}',
  function (this: IotcWorld, header: string) {
    this.ids.set('connector-credentials', `header:${header}`);
  },
);

// ---- requests -----------------------------------------------------------------------------------------------

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

When(
  /^the client starts sending POST "([^"]*)" as request "([^"]*)" with JSON:$/,
  function (this: IotcWorld, path: string, label: string, body: string) {
    this.pending.set(
      `connector:${label}`,
      send(this, {
        method: 'POST',
        path,
        body: { raw: names(this, body), contentType: 'application/json' },
      }),
    );
  },
);

// ---- answers ------------------------------------------------------------------------------------------------

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

/** A refusal that is not the 401 of security: the status is the target's, the body the configured one. */
Then(
  'the connector answers a status other than 200 and 401 with the body {string}',
  function (this: IotcWorld, body: string) {
    const answer = lastAnswer(this);
    assert.ok(
      answer.status !== 200 && answer.status !== 401,
      `the connector answered ${answer.status} ${answer.text.slice(0, 200)}`,
    );
    assert.equal(answer.text, body);
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
  const answer = (await world.pending.get(`connector:${label}`)) as ConnectorResponse | undefined;
  assert.ok(answer, `no request "${label}" was started`);
  assert.equal(
    answer.status,
    status,
    `request ${label} was answered ${answer.status} ${answer.text.slice(0, 200)}`,
  );
  return answer;
}

Then('the request {string} is not answered yet', async function (this: IotcWorld, label: string) {
  const pending = this.pending.get(`connector:${label}`);
  assert.ok(pending, `no request "${label}" was started`);
  assert.equal(
    await settlesWithin(pending, 100),
    false,
    `request ${label} was answered before the platform produced its answer`,
  );
});

/** Every member of `expected` is in `actual` with the same value (recursively). */
function assertHolds(actual: unknown, expected: unknown, at = '$'): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(
      actual !== null && typeof actual === 'object',
      `${at}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [key, value] of Object.entries(expected))
      assertHolds((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
  } else {
    assert.deepEqual(
      actual,
      expected,
      `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
  }
}

// ---- what reached the platform ------------------------------------------------------------------------------

async function deviceNamed(world: IotcWorld, text: string) {
  const name = names(world, text);
  trackDevice(world, name);
  return world.eventually(async () => {
    const device = await world.run.admin.findDeviceByName(name);
    assert.ok(device, `no device ${name} on the platform`);
    return device;
  });
}

/** ts column: a number; `request` (assigned while the request ran); `day YYYY-MM-DD` (that calendar day in any zone). */
function checkTimestamp(
  world: IotcWorld,
  key: string,
  expected: string | undefined,
  actual: number,
): void {
  if (!expected) return;
  if (expected === 'request') {
    const [before, after] = (world.ids.get('connector-window') ?? '0:0').split(':').map(Number);
    assert.ok(
      actual >= before! - 60_000 && actual <= after! + 60_000,
      `${key}: ts ${actual} is not the time of the request`,
    );
  } else if (expected.startsWith('day ')) {
    const midnight = Date.parse(`${expected.slice(4)}T00:00:00Z`);
    const zoneSlack = 14 * 3_600_000; // a zone-less datetime is read in the connector's zone: UTC-12..UTC+14
    assert.ok(
      actual >= midnight - zoneSlack && actual < midnight + 86_400_000 + zoneSlack,
      `${key}: ts ${actual} (${new Date(actual).toISOString()}) is not on ${expected.slice(4)}`,
    );
  } else {
    assert.equal(
      actual,
      Number(expected),
      `${key}: stored at ts ${actual} (${new Date(actual).toISOString()}), expected ${expected}`,
    );
  }
}

/**
 * A row of | key | value | and optionally | stored type |: the value is compared whatever type it was stored with,
 * and the stored type is checked only where the table has that column (the entry-type requirements RC-ENT-02 and
 * RC-BODY-03), so that a connector sending values as text fails the type requirements and no other.
 */
type ValueRow = {
  key: string;
  value: string;
  'stored type'?: string;
};

function assertStoredValue(row: ValueRow, stored: TypedValue | undefined): void {
  const shown = stored ? describeTypedValue(stored) : 'nothing';
  const storedType = row['stored type'];
  if (storedType) {
    const expected = expectedValue(row.value, storedType);
    assert.ok(
      storedMatches(expected, stored),
      `${row.key}: expected ${describeTypedValue(expected)}, stored ${shown}`,
    );
  } else {
    assert.ok(
      storedValueMatches(row.value, stored),
      `${row.key}: expected the value ${row.value} (any type), stored ${shown}`,
    );
  }
}

/** The rows of a value table; a `type` column is refused, so that no table believes it checks the stored type. */
function valueRows(table: DataTable): Array<ValueRow & { ts?: string }> {
  if (table.raw()[0]?.includes('type'))
    throw new DataTableShapeError(
      'a value table compares values only; name the column `stored type` to check the stored type',
    );
  return headedRows<ValueRow & { ts?: string }>(table, ['key', 'value']);
}

Then(
  'the device {string} eventually has telemetry:',
  async function (this: IotcWorld, local: string, table: DataTable) {
    const device = await deviceNamed(this, local);
    const rows = valueRows(table);
    await this.eventually(async () => {
      const stored = await this.run.admin.latestTelemetry(
        device.id,
        rows.map((row) => row.key),
      );
      for (const row of rows) {
        const found = stored.get(row.key);
        assertStoredValue(row, found?.value);
        checkTimestamp(this, row.key, row.ts, found!.ts);
      }
    });
  },
);

Then(
  'the device {string} eventually has client attributes:',
  async function (this: IotcWorld, local: string, table: DataTable) {
    const device = await deviceNamed(this, local);
    const rows = valueRows(table);
    await this.eventually(async () => {
      const stored = await this.run.admin.attributes(
        device.id,
        'CLIENT_SCOPE',
        rows.map((row) => row.key),
      );
      for (const row of rows) {
        const found = stored.get(names(this, row.key));
        assertStoredValue({ ...row, value: names(this, row.value) }, found?.value);
      }
    });
  },
);

/** Checked after a positive read-back of the same request: what the request carried has been stored by then. */
Then(
  'the device {string} has no telemetry {string}',
  async function (this: IotcWorld, local: string, keys: string) {
    const device = await deviceNamed(this, local);
    const stored = await this.run.admin.telemetryKeys(device.id);
    const unexpected = keys
      .split(',')
      .map((key) => key.trim())
      .filter((key) => stored.includes(key));
    assert.deepEqual(unexpected, [], `stored although not passed on: ${unexpected.join(', ')}`);
  },
);

Then(
  'the device {string} has no client attribute {string}',
  async function (this: IotcWorld, local: string, keys: string) {
    const device = await deviceNamed(this, local);
    const stored = await this.run.admin.attributes(device.id, 'CLIENT_SCOPE');
    const unexpected = keys
      .split(',')
      .map((key) => key.trim())
      .filter((key) => stored.has(key));
    assert.deepEqual(unexpected, [], `stored although not passed on: ${unexpected.join(', ')}`);
  },
);

Then(
  'the device {string} has the device profile {string}',
  async function (this: IotcWorld, local: string, profileText: string) {
    const device = await deviceNamed(this, local);
    const profile = names(this, profileText);
    assert.equal(device.type, profile, `the device has the profile ${device.type}`);
    const profileId = (device.raw.deviceProfileId as { id?: string } | undefined)?.id;
    if (profileText.includes('<<profile:') && profileId) {
      // the connect created the profile: journal it and delete it after the scenario (its device first)
      this.run.journal.created('deviceProfile', profile, profileId);
      this.cleanups.push({
        what: `device profile ${profile}`,
        undo: async () => {
          const holder = await this.run.admin.findDeviceByName(device.name);
          if (holder) await this.run.admin.deleteDevice(holder.id);
          await this.run.admin.deleteDeviceProfile(profileId);
          this.run.journal.deleted('deviceProfile', profile, profileId);
        },
      });
    }
  },
);

/**
 * Positive control first: data of another device sent afterwards with valid credentials must have reached the
 * platform, and the connector forwards over one MQTT session in order, so a refused request that was forwarded
 * (even after its answer) is on the platform by then.
 */
Then('no device {string} was created', async function (this: IotcWorld, local: string) {
  const name = names(this, local);
  trackDevice(this, name);
  const mode = this.ids.get('connector-credentials');
  this.ids.delete('connector-credentials');
  try {
    await forwardData(this, `${local.replace(/>>$/, '')}-control>>`);
  } finally {
    if (mode !== undefined) this.ids.set('connector-credentials', mode);
  }
  assert.equal(
    await this.run.admin.findDeviceByName(name),
    undefined,
    `the device ${name} exists: the refused request was forwarded`,
  );
});

// ---- the platform's side ------------------------------------------------------------------------------------

async function forwardData(world: IotcWorld, local: string): Promise<void> {
  const name = names(world, local);
  const response = await send(world, {
    method: 'POST',
    path: '/conv',
    body: { json: { name, temp: 1.5, model: 'M1' } },
  });
  assert.equal(response.status, 200, `the connector answered ${response.status} ${response.text}`);
  await deviceNamed(world, local);
}

Given(
  'the connector has forwarded data of the device {string}',
  async function (this: IotcWorld, local: string) {
    await forwardData(this, local);
  },
);

When(
  'the platform sets the shared attributes of {string}:',
  async function (this: IotcWorld, local: string, values: string) {
    const device = await deviceNamed(this, local);
    await this.run.admin.saveAttributes(device.id, 'SHARED_SCOPE', names(this, values));
  },
);

async function sendRpc(
  world: IotcWorld,
  method: string,
  params: string,
  local: string,
  kind: 'oneway' | 'twoway' = 'twoway',
): Promise<void> {
  const device = await deviceNamed(world, local);
  if (kind === 'oneway') {
    const sent = await world.run.admin.rpc(device.id, 'oneway', {
      method,
      params: JSON.parse(names(world, externalUrls(params))),
    });
    assert.equal(sent.status, 200, `the one-way RPC ended ${sent.status} ${sent.text}`);
    return;
  }
  const call = world.run.admin.rpc(device.id, 'twoway', {
    method,
    params: JSON.parse(names(world, externalUrls(params))),
    timeout: 5000,
  });
  world.pending.set('connector-rpc', call);
}

When(
  'the platform sends the RPC {string} with params {string} to {string}',
  async function (this: IotcWorld, method: string, params: string, local: string) {
    await sendRpc(this, method, params, local);
  },
);

/** A one-way RPC: the platform does not wait for a reply, so an RPC no rule selects holds nothing up. */
When(
  'the platform sends the one-way RPC {string} with params {string} to {string}',
  async function (this: IotcWorld, method: string, params: string, local: string) {
    await sendRpc(this, method, params, local, 'oneway');
  },
);

When(
  'the platform sends the RPC {string} to {string} with params:',
  async function (this: IotcWorld, method: string, local: string, params: string) {
    await sendRpc(this, method, params, local);
  },
);

/** The platform's answer to the RPC the scenario sent: status and body. */
async function rpcReply(world: IotcWorld): Promise<{ status: number; text: string }> {
  const reply = (await world.pending.get('connector-rpc')) as
    | { status: number; text: string }
    | undefined;
  assert.ok(reply, 'no RPC was sent');
  return reply;
}

Then('the RPC reply holds:', async function (this: IotcWorld, expected: string) {
  const reply = await rpcReply(this);
  assert.equal(reply.status, 200, `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}`);
  assertHolds(JSON.parse(reply.text), JSON.parse(expected));
});

Then('the RPC reply is exactly:', async function (this: IotcWorld, expected: string) {
  const reply = await rpcReply(this);
  assert.equal(reply.status, 200, `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}`);
  assert.ok(sameJson(parseLossless(reply.text), expected), `the reply is ${reply.text}`);
});

/** The platform ends an RPC the gateway never replies to as timed out (ThingsBoard: 408 / 504). */
Then('the RPC gets no reply from the connector', async function (this: IotcWorld) {
  const reply = await rpcReply(this);
  assert.ok(
    reply.status === 408 || reply.status === 504,
    `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}, not timed out`,
  );
});

async function assertRpcError(world: IotcWorld, text: string): Promise<void> {
  const reply = await rpcReply(world);
  assert.equal(reply.status, 200, `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}`);
  const document = JSON.parse(reply.text) as { error?: unknown };
  assert.ok(
    typeof document.error === 'string' && document.error.includes(text),
    `the reply ${reply.text} is not an error${text ? ` mentioning ${text}` : ''}`,
  );
}
Then(
  'the RPC reply is an error mentioning {string}',
  async function (this: IotcWorld, text: string) {
    await assertRpcError(this, text);
  },
);

/** The reply reports a failure, in the target's own words. */
Then('the RPC reply is an error', async function (this: IotcWorld) {
  await assertRpcError(this, '');
});

// ---- the external API ---------------------------------------------------------------------------------------

/** `${external}` in a step's text is the external-API simulator's URL. */
function externalUrls(text: string): string {
  return text.replaceAll('${external}', connectorTarget().externalApiUrl ?? '');
}

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
  },
);

Given(
  'the external API redirects requests to {string} to {string}',
  async function (this: IotcWorld, path: string, target: string) {
    await externalApi().script({
      pathPrefix: names(this, path),
      redirectTo: `${connectorTarget().externalApiUrl}${names(this, target)}?redirected=1`,
    });
  },
);

async function recorded(world: IotcWorld, path: string) {
  return externalApi().requests(names(world, path));
}

/**
 * Rows of | what | expected |: `method`, `path`, `body` (exact text), `json body` (a JSON document, compared
 * as documents), `header <name>` (exact value), `no header <name>`, `basic` (user:password of the Authorization).
 */
Then(
  'the external API eventually receives a request to {string}:',
  async function (this: IotcWorld, path: string, table: DataTable) {
    // every row is an expectation: a header-less table read with rows() lost its first one (issue 10)
    const expectations = pairRows(table).map(
      ([what, value]) => [what, names(this, value)] as const,
    );
    await this.eventually(async () => {
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
    });
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
  else if (what.startsWith('no header ')) {
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
  await world.eventually(async () => {
    const requests = await recorded(world, path);
    assert.ok(
      requests.length >= count,
      `${requests.length} of ${count} requests to ${names(world, path)} so far`,
    );
  }, extraMs);
}

/** The HTTP status a GET of `url` gets, the certificate not checked; the error's message when none comes. */
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
 * Proves the HTTPS listener of the external API answers (any HTTP status, certificate not checked), so a scenario
 * about certificate verification cannot pass on a refused connection.
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
 * At least `count` requests, every one of them answered, then a quiet window: an attempt given up too early is
 * tried again while the first is still waiting for its answer, so it is counted here.
 */
Then(
  'the external API receives exactly {int} requests to {string}',
  async function (this: IotcWorld, count: number, path: string) {
    await this.eventually(async () => {
      const requests = await recorded(this, path);
      assert.ok(
        requests.length >= count,
        `${requests.length} of ${count} requests to ${names(this, path)} so far`,
      );
      const waiting = requests.filter((request) => request.answeredAt === undefined).length;
      assert.equal(waiting, 0, `${waiting} requests to ${names(this, path)} not answered yet`);
    }, 2000);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const requests = await recorded(this, path);
    assert.equal(
      requests.length,
      count,
      `${requests.length} requests to ${names(this, path)}, expected exactly ${count}`,
    );
  },
);

Then(
  'the external API eventually receives at least {int} requests to {string}',
  async function (this: IotcWorld, count: number, path: string) {
    await this.eventually(async () => {
      const requests = await recorded(this, path);
      assert.ok(
        requests.length >= count,
        `${requests.length} of at least ${count} requests to ${names(this, path)} so far`,
      );
    });
  },
);

Then(
  'the external API records an RPC request id in {string} with the query {string}',
  async function (this: IotcWorld, path: string, query: string) {
    const requests = await this.eventually(async () => {
      const found = await recorded(this, path);
      assert.ok(found.length > 0, `no request to ${names(this, path)} yet`);
      return found;
    });
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
    for (let index = 1; index < requests.length; index++) {
      const gap = requests[index]!.receivedAt - requests[index - 1]!.receivedAt;
      assert.ok(gap >= gapMs * 0.9, `requests ${index} and ${index + 1} came ${gap} ms apart`);
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

// ---- the server ---------------------------------------------------------------------------------------------

/**
 * The connector's URL names server.host (default 127.0.0.1) and server.port (default 5000), and a connection to
 * that very address is answered. A wildcard host (0.0.0.0, ::) is reached through the target's URL.
 */
Then(
  'the connector listens on the host and port of its rest.json',
  async function (this: IotcWorld) {
    const { server } = restFile();
    const url = new URL(connectorTarget().url);
    const host = server.host ?? '127.0.0.1';
    const port = server.port ?? 5000;
    assert.equal(Number(url.port || (url.protocol === 'https:' ? 443 : 80)), port);
    const wildcard = host === '0.0.0.0' || host === '::';
    if (!wildcard) assert.equal(url.hostname.replace(/^\[|\]$/g, ''), host);
    const address = wildcard ? url.hostname : host.includes(':') ? `[${host}]` : host;
    // reachability only: the certificate is the HTTPS scenario's business
    const answered = await statusWithoutVerifying(
      `${url.protocol}//${address}:${port}/`,
      this.run.target.timeouts.requestMs,
    );
    assert.equal(typeof answered, 'number', `${address}:${port} gave no HTTP answer: ${answered}`);
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
