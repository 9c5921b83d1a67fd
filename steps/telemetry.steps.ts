/**
 * Telemetry and client attributes sent by a device, read back through the admin API value by value
 * and type by type.
 */
import assert from 'node:assert/strict';
import { Given, Then, When, type DataTable } from './support/cucumber';
import { describeTypedValue } from '../lib/kv/values';
import type { IotcWorld } from './world';
import { expectedValue, storedMatches } from './support/expectations';
import { headedRows } from './support/tables';

const SENTINEL = 'iotc_sentinel';

async function post(
  world: IotcWorld,
  local: string,
  resource: 'telemetry' | 'attributes',
  body: string,
) {
  const device = world.device(local);
  const before = Date.now();
  world.response =
    resource === 'telemetry'
      ? await device.driver.postTelemetry({ raw: body })
      : await device.driver.postAttributes({ raw: body });
  world.sentWindows.set(local, { start: before, end: Date.now() });
}

When(
  /^the device "([^"]*)" posts telemetry (.+)$/,
  async function (this: IotcWorld, local: string, body: string) {
    await post(this, local, 'telemetry', body);
  },
);

/**
 * Deviation HTTP-TEL-02-EMPTY (docs/thingsboard-4.3-deviations.md): ThingsBoard holds the answer to
 * `[]` until its servlet container's async timeout (spring.mvc.async.request-timeout, 30 s by
 * default) ends the request, as long as the profile's requestMs on real ThingsBoard: the request
 * waits another requestMs for that end (a hang guard covers the step). The answer's status is
 * checked by the next step, whenever it came.
 */
When(
  "the device {string} posts an empty telemetry array, waiting out the platform's request timeout",
  { timeout: 180_000 },
  async function (this: IotcWorld, local: string) {
    const device = this.device(local);
    const before = Date.now();
    this.response = await device.driver.postTelemetry(
      { raw: '[]' },
      { extraTimeoutMs: this.run.target.timeouts.requestMs },
    );
    this.sentWindows.set(local, { start: before, end: Date.now() });
  },
);

When(
  'the device {string} posts telemetry:',
  async function (this: IotcWorld, local: string, body: string) {
    await post(this, local, 'telemetry', body);
  },
);

When(
  /^the device "([^"]*)" posts client attributes (.+)$/,
  async function (this: IotcWorld, local: string, body: string) {
    await post(this, local, 'attributes', body);
  },
);

When(
  'the device {string} posts client attributes:',
  async function (this: IotcWorld, local: string, body: string) {
    await post(this, local, 'attributes', body);
  },
);

/**
 * `ts` column: a number, or `server` for a timestamp the platform assigned during the last request.
 */
function checkTs(world: IotcWorld, local: string, key: string, expected: string, actual: number) {
  if (expected === 'server') {
    const window = world.sentWindows.get(local);
    assert.ok(window, `"${local}" has sent nothing whose server time ${key} could carry`);
    const { start: before, end: after } = window;
    const slack = 60_000; // clocks of a remote platform and of this machine may differ a little
    assert.ok(
      actual >= before - slack && actual <= after + slack,
      `${key}: ts ${actual} is not a server time of the request (${before}..${after})`,
    );
  } else {
    assert.equal(actual, Number(expected), `${key}: stored at ts ${actual}, expected ${expected}`);
  }
}

Then(
  'the platform eventually holds telemetry of {string}:',
  async function (this: IotcWorld, local: string, table: DataTable) {
    const device = this.device(local);
    const rows = headedRows<{ key: string; ts?: string; value: string; type: string }>(table, [
      'key',
      'value',
      'type',
    ]);
    await this.eventually(async () => {
      const stored = await this.run.admin.latestTelemetry(
        device.record.id,
        rows.map((row) => row.key),
      );
      for (const row of rows) {
        const expected = expectedValue(row.value, row.type);
        const found = stored.get(row.key);
        assert.ok(
          found && storedMatches(expected, found.value),
          `${row.key}: expected ${describeTypedValue(expected)}, stored ${found?.value ? describeTypedValue(found.value) : 'nothing'}`,
        );
        if (row.ts) checkTs(this, local, row.key, row.ts, found.ts);
      }
    });
  },
);

/**
 * The attributes of one scope as the administration API shows them (the interface that shows every
 * scope: client attributes a device posted, shared and server ones the platform set), retried for
 * eventuallyMs.
 */
Then(
  /^the platform eventually holds (client|shared|server) attributes of "([^"]*)":$/,
  async function (this: IotcWorld, scope: string, local: string, table: DataTable) {
    const device = this.device(local);
    const rows = headedRows<{ key: string; value: string; type: string }>(table, [
      'key',
      'value',
      'type',
    ]);
    await this.eventually(async () => {
      const stored = await this.run.admin.attributes(
        device.record.id,
        scope === 'client' ? 'CLIENT_SCOPE' : scope === 'shared' ? 'SHARED_SCOPE' : 'SERVER_SCOPE',
        rows.map((row) => row.key),
      );
      for (const row of rows) {
        const expected = expectedValue(row.value, row.type);
        const found = stored.get(row.key);
        assert.ok(
          found && storedMatches(expected, found.value),
          `${scope} attribute ${row.key}: expected ${describeTypedValue(expected)}, stored ${found?.value ? describeTypedValue(found.value) : 'nothing'}`,
        );
      }
    });
  },
);

/**
 * "Nothing was stored": a later valid sentinel proves the platform has processed what came before
 * it, so checking that the sentinel is the only key is not just "not stored yet".
 */
Then('no telemetry was stored for {string}', async function (this: IotcWorld, local: string) {
  const device = this.device(local);
  const sentinel = await device.driver.postTelemetry({ json: { [SENTINEL]: 1 } });
  assert.equal(sentinel.status, 200, `the sentinel telemetry was refused: ${sentinel.status}`);
  await this.eventually(async () => {
    const keys = await this.run.admin.telemetryKeys(device.record.id);
    assert.deepEqual(keys, [SENTINEL], `the device holds telemetry keys ${JSON.stringify(keys)}`);
  });
});

Then(
  'no client attribute was stored for {string}',
  async function (this: IotcWorld, local: string) {
    const device = this.device(local);
    const sentinel = await device.driver.postAttributes({ json: { [SENTINEL]: 1 } });
    assert.equal(sentinel.status, 200, `the sentinel attribute was refused: ${sentinel.status}`);
    await this.eventually(async () => {
      const keys = [...(await this.run.admin.attributes(device.record.id, 'CLIENT_SCOPE')).keys()];
      assert.deepEqual(
        keys,
        [SENTINEL],
        `the device holds client attributes ${JSON.stringify(keys)}`,
      );
    });
  },
);

Then(
  'the telemetry history of {string} holds {string} at {int} and {int}',
  async function (this: IotcWorld, local: string, key: string, first: number, second: number) {
    const device = this.device(local);
    await this.eventually(async () => {
      const history = await this.run.admin.telemetryHistory(
        device.record.id,
        [key],
        Math.min(first, second),
        Math.max(first, second),
      );
      const times = (history.get(key) ?? []).map((entry) => entry.ts).sort();
      assert.deepEqual(
        times,
        [first, second].sort(),
        `${key} is stored at ${JSON.stringify(times)}`,
      );
    });
  },
);

Given('the target serves the HTTP device API over HTTPS too', function (this: IotcWorld) {
  if (!this.run.target.httpsUrl) {
    this.log(
      'skipped: the target profile names no https URL of the HTTP device API (platform.https)',
    );
    return 'skipped';
  }
  return undefined;
});

When(
  /^the device "([^"]*)" posts over HTTPS the telemetry (.+)$/,
  async function (this: IotcWorld, local: string, body: string) {
    const device = this.device(local);
    const before = Date.now();
    this.response = await this.newDriver(device.token, { https: true }).postTelemetry({
      raw: body,
    });
    this.sentWindows.set(local, { start: before, end: Date.now() });
  },
);

/**
 * The same with the keys as a JSON array, for keys a table cell cannot hold (leading or trailing
 * spaces).
 */
Then(
  'the telemetry keys of {string} are exactly the JSON:',
  async function (this: IotcWorld, local: string, list: string) {
    const device = this.device(local);
    const expected = (JSON.parse(list) as string[]).sort();
    await this.eventually(async () => {
      const keys = [...(await this.run.admin.telemetryKeys(device.record.id))].sort();
      assert.deepEqual(keys, expected, `the device holds telemetry keys ${JSON.stringify(keys)}`);
    });
  },
);

Then(
  'the telemetry keys of {string} are exactly {string}',
  async function (this: IotcWorld, local: string, list: string) {
    const device = this.device(local);
    const expected = list
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean)
      .sort();
    await this.eventually(async () => {
      const keys = [...(await this.run.admin.telemetryKeys(device.record.id))].sort();
      assert.deepEqual(keys, expected, `the device holds telemetry keys ${JSON.stringify(keys)}`);
    });
  },
);
