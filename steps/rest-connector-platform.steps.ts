/**
 * REST connector steps: what reached the platform, and the platform's side (shared attributes,
 * RPC).
 */
import assert from 'node:assert/strict';
import { Given, Then, When, type DataTable } from './support/cucumber';
import { describeTypedValue, parseLossless, type TypedValue } from '../lib/kv/values';
import type { AdminResponse } from '../src/admin-client';
import { deviceProfileOfDeviceSchema, rpcErrorReplySchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { refuseIfStallExplains } from './support/timing';
import { answerOf, recordOf } from './support/answer-of';
import { expectedValue, sameJson, storedMatches, storedValueMatches } from './support/expectations';
import { DataTableShapeError, headedRows } from './support/tables';
import {
  assertHolds,
  attributesSetWindows,
  externalUrls,
  names,
  send,
} from './support/connector-calls';

// ---- what reached the platform
// ------------------------------------------------------------------------------

async function deviceNamed(world: IotcWorld, text: string) {
  const name = names(world, text);
  world.expectCreated('device', name);
  return world.eventually(async () => {
    const device = await world.findDevice(name);
    assert.ok(device, `no device ${name} on the platform`);
    return device;
  });
}

/**
 * ts column: a number; `request` (assigned while the request ran); `day YYYY-MM-DD` (that calendar
 * day in any zone).
 */
function checkTimestamp(
  world: IotcWorld,
  key: string,
  expected: string | undefined,
  actual: number,
): void {
  if (!expected) return;
  if (expected === 'request') {
    const window = world.connectorWindow;
    assert.ok(window, `${key}: the client has sent no request whose time the ts could be`);
    const { start: before, end: after } = window;
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

/**
 * The rows of a value table; a `type` column is refused, so that no table believes it checks the
 * stored type.
 */
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

/**
 * Checked after a positive read-back of the same request: what the request carried has been stored
 * by then.
 */
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
    if (profileText.includes('<<profile:')) {
      const record = recordOf(deviceProfileOfDeviceSchema, device.raw, `device ${device.name}`);
      // the connect created the profile: journal it and delete it after the scenario (its device
      // first)
      this.adoptCreated('deviceProfile', profile, record.deviceProfileId.id, {
        heldBy: device.name,
      });
    }
  },
);

/**
 * Positive control first: data of another device sent afterwards with valid credentials must have
 * reached the platform, and the connector forwards over one MQTT session in order, so a refused
 * request that was forwarded (even after its answer) is on the platform by then.
 */
Then('no device {string} was created', async function (this: IotcWorld, local: string) {
  const name = names(this, local);
  this.expectCreated('device', name);
  const credentials = this.connectorCredentials;
  this.connectorCredentials = undefined;
  try {
    await forwardData(this, `${local.replace(/>>$/, '')}-control>>`);
  } finally {
    this.connectorCredentials = credentials;
  }
  assert.equal(
    await this.run.admin.findDeviceByName(name),
    undefined,
    `the device ${name} exists: the refused request was forwarded`,
  );
});

// ---- the platform's side
// ------------------------------------------------------------------------------------

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
    const start = Date.now();
    await this.run.admin.saveAttributes(device.id, 'SHARED_SCOPE', names(this, values));
    attributesSetWindows.set(this, { start, end: Date.now() });
  },
);

/** The key of the two-way RPC a scenario sent last: its reply is what the Then steps read. */
const LATEST_RPC = 'latest';
/**
 * How long the platform waits for the connector's reply to a two-way RPC (the call's `timeout`).
 */
const RPC_TIMEOUT_MS = 5000;
/**
 * When each scenario's latest two-way RPC was sent: the window whose stall a timed-out reply is
 * weighed against.
 */
const rpcSentAt = new WeakMap<IotcWorld, number>();

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
    timeout: RPC_TIMEOUT_MS,
  });
  rpcSentAt.set(world, Date.now());
  world.pending.start('connectorRpc', LATEST_RPC, call);
}

When(
  'the platform sends the RPC {string} with params {string} to {string}',
  async function (this: IotcWorld, method: string, params: string, local: string) {
    await sendRpc(this, method, params, local);
  },
);

/**
 * A one-way RPC: the platform does not wait for a reply, so an RPC no rule selects holds nothing
 * up.
 */
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
async function rpcReply(world: IotcWorld): Promise<AdminResponse> {
  const reply = await world.pending.get('connectorRpc', LATEST_RPC);
  assert.ok(reply, 'no RPC was sent');
  return reply;
}

/**
 * A reply the scenario expects that the platform ended as timed out (408, 504): the connector did
 * not reply within the call's RPC_TIMEOUT_MS. Every scenario that reads a reply scripts its
 * external API to answer within at most 1.5 s and its rules to give up within 3 s, so the reply had
 * at least half the call's timeout to spare; a stall of the harness (where the external API runs)
 * or of the target's process that long explains the timeout on a busy machine: INCONCLUSIVE with
 * the stall (steps/support/timing.ts), never FAIL. Without such a stall it FAILs.
 */
async function expectedReply(world: IotcWorld): Promise<AdminResponse> {
  const reply = await rpcReply(world);
  const sentAt = rpcSentAt.get(world);
  if ((reply.status === 408 || reply.status === 504) && sentAt !== undefined)
    refuseIfStallExplains(
      { harnessMs: world.stalls.worstBetween(sentAt, Date.now()) },
      RPC_TIMEOUT_MS / 2,
      `waiting for the connector's reply to an RPC (the platform ended it ${reply.status})`,
    );
  return reply;
}

Then('the RPC reply holds:', async function (this: IotcWorld, expected: string) {
  const reply = await expectedReply(this);
  assert.equal(reply.status, 200, `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}`);
  assertHolds(JSON.parse(reply.text), JSON.parse(expected));
});

Then('the RPC reply is exactly:', async function (this: IotcWorld, expected: string) {
  const reply = await expectedReply(this);
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
  const reply = await expectedReply(world);
  assert.equal(reply.status, 200, `the RPC ended ${reply.status} ${reply.text.slice(0, 300)}`);
  const document = answerOf(rpcErrorReplySchema, reply, 'POST /api/plugins/rpc/twoway/{deviceId}');
  assert.ok(
    document.error.includes(text),
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
