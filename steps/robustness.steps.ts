/**
 * The robustness feature set (features/robustness/, capability `robustness`): abusive traffic any
 * target can be checked with, bounded in size and time, each scenario also checking that a
 * well-behaved device is served while the abuse goes on (its answer within the profile's request
 * timeout, its data read back through the admin API).
 */
import assert from 'node:assert/strict';
import { Then, When } from './support/cucumber';
import type { IotcWorld } from './world';
import { DEVICE_MQTT_API } from '../schemas/device-mqtt';
import { GiveUp } from './support/eventually';
import { postOversized } from './support/robustness/oversized-request';
import { nestedDocument, nestedMessage, paddedMessage } from './support/robustness/payloads';

/**
 * The platform record of a device of the scenario, created by the scenario or by the platform (a
 * gateway's).
 */
async function deviceRecord(
  world: IotcWorld,
  local: string,
): Promise<{ id: string; name: string }> {
  const own = world.devices.get(local);
  if (own) return own.record;
  const name = world.platformCreatedDevice(local);
  const record = await world.eventually(async () => {
    const found = await world.findDevice(name);
    assert.ok(found, `the platform holds no device ${name}`);
    return found;
  });
  return record;
}

// ---- the well-behaved device
// --------------------------------------------------------------------------------

Then('the device {string} is served meanwhile', async function (this: IotcWorld, local: string) {
  const device = this.device(local);
  const nonce = `calm-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  // the driver gives up after the profile's request timeout: that is the latency bound, not a
  // number here
  const answer = await device.driver.postTelemetry({ json: { iotc_calm: nonce } });
  assert.equal(answer.status, 200, `the well-behaved device got ${this.shown(answer)}`);
  this.robustness.servedAt = Date.now();
  await this.eventually(async () => {
    const stored = await this.run.admin.latestTelemetry(device.record.id, ['iotc_calm']);
    const value = stored.get('iotc_calm')?.value;
    assert.equal(value?.value, nonce, `the well-behaved device's telemetry was not stored`);
  });
});

/**
 * Nothing of the abuse was stored: a sentinel telemetry key and client attribute sent afterwards
 * over HTTP are the positive control (they must arrive, after what must not), and then they are all
 * the device holds.
 */
Then(
  'after a sentinel, only the sentinel is stored for {string}',
  async function (this: IotcWorld, local: string) {
    const record = await deviceRecord(this, local);
    const token =
      this.devices.get(local)?.token ?? (await this.run.admin.getDeviceCredentials(record.id));
    const driver = this.devices.get(local)?.driver ?? this.newDriver(token);
    const telemetry = await driver.postTelemetry({ json: { iotc_sentinel: 1 } });
    assert.equal(telemetry.status, 200, `the sentinel telemetry got ${this.shown(telemetry)}`);
    const attributes = await driver.postAttributes({ json: { iotc_sentinel: 1 } });
    assert.equal(attributes.status, 200, `the sentinel attribute got ${this.shown(attributes)}`);
    await this.eventually(async () => {
      const keys = (await this.run.admin.telemetryKeys(record.id)).sort();
      assert.deepEqual(keys, ['iotc_sentinel'], 'telemetry keys besides the sentinel were stored');
      const clientKeys = [...(await this.run.admin.attributes(record.id, 'CLIENT_SCOPE')).keys()];
      assert.deepEqual(
        clientKeys.sort(),
        ['iotc_sentinel'],
        'client attributes besides the sentinel were stored',
      );
    });
  },
);

// ---- oversized and nested payloads over HTTP
// -----------------------------------------------------------------

When(
  /^the device "([^"]*)" starts posting a JSON body of (\d+) bytes to (\/\S*\{token\}\S*)$/,
  function (this: IotcWorld, local: string, bytes: string, path: string) {
    const device = this.device(local);
    const { target } = this.run;
    const url = target.httpUrl + path.replace('{token}', encodeURIComponent(device.token));
    this.robustness.oversized = postOversized(url, 'iotc_big', Number(bytes), {
      timeoutMs: target.timeouts.requestMs,
      tls: target.tls,
    });
  },
);

Then(
  /^the (?:oversized|posted) request is answered (\d+)$/,
  async function (this: IotcWorld, code: string) {
    const status = Number(code);
    const pending = this.robustness.oversized;
    assert.ok(pending, 'no oversized request was started in this scenario');
    const answer = await pending;
    assert.equal(
      answer.status,
      status,
      `the oversized request got ${answer.status ?? 'no answer'} ${answer.error ?? this.redact(answer.text.slice(0, 200))} after ${answer.bytesSent} bytes`,
    );
  },
);

When(
  /^the device "([^"]*)" posts to (\/\S*\{token\}\S*) a JSON document nested (\d+) levels deep$/,
  async function (this: IotcWorld, local: string, path: string, depth: string) {
    const device = this.device(local);
    this.response = await device.driver.request('POST', path.replace('/api/v1/{token}/', ''), {
      raw: nestedDocument('iotc_deep', Number(depth)),
    });
  },
);

/**
 * The value stored under `key` is the posted document's: nested `depth` levels (the document's
 * object and depth - 1 arrays around one number), neither cut nor flattened. A platform that
 * refuses the bound itself fails the answer before this; this reads back that the accepted document
 * was stored whole.
 */
Then(
  /^the device "([^"]*)" eventually holds "([^"]*)" nested (\d+) levels deep in its (telemetry|client attributes)$/,
  async function (this: IotcWorld, local: string, key: string, depth: string, where: string) {
    const device = this.device(local);
    const arrays = Number(depth) - 1;
    await this.eventually(async () => {
      const stored =
        where === 'telemetry'
          ? (await this.run.admin.latestTelemetry(device.record.id, [key])).get(key)?.value?.value
          : (await this.run.admin.attributes(device.record.id, 'CLIENT_SCOPE', [key])).get(key)
              ?.value?.value;
      assert.ok(stored !== undefined, `no ${where} ${key} is stored`);
      const text = typeof stored === 'string' ? stored : JSON.stringify(stored);
      assert.equal(
        text.replace(/\s/g, ''),
        `${'['.repeat(arrays)}1${']'.repeat(arrays)}`,
        `the stored ${key} is not the posted ${arrays} nested arrays`,
      );
    });
  },
);

Then('the answer is an error status', function (this: IotcWorld) {
  const response = this.lastResponse();
  assert.ok(response.status >= 400, `the target accepted it: ${this.shown(response)}`);
});

// ---- oversized and nested payloads over MQTT
// -----------------------------------------------------------------

When(
  /^"([^"]*)" publishes a message of (\d+) bytes on "([^"]*)"(?: for "([^"]*)")?$/,
  async function (
    this: IotcWorld,
    connection: string,
    bytes: string,
    topic: string,
    // cucumber gives an optional group that did not match as null
    device: string | null,
  ) {
    const name = device === null ? undefined : this.platformCreatedDevice(device);
    this.lastPublish = await this.gateway(connection).driver.publish(topic, {
      raw: paddedMessage(topic, Number(bytes), name),
    });
  },
);

/**
 * A PUBLISH whose remaining length (variable header and payload: what the transport's packet limit
 * counts, MQTT §2.2.3) is exactly `bytes`: the topic's length prefix and name, the packet id of QoS
 * 1, and with MQTT 5 the properties' length (one byte: none) come off the payload.
 */
When(
  /^"([^"]*)" publishes a packet of exactly (\d+) bytes on "([^"]*)"$/,
  async function (this: IotcWorld, connection: string, bytes: string, topic: string) {
    const { driver } = this.gateway(connection);
    const header =
      2 + Buffer.byteLength(topic) + 2 + (driver.connection.protocolVersion === 5 ? 1 : 0);
    this.lastPublish = await driver.publish(
      topic,
      { raw: paddedMessage(topic, Number(bytes) - header) },
      1,
    );
  },
);

When(
  /^"([^"]*)" publishes a message nested (\d+) levels deep on "([^"]*)"(?: for "([^"]*)")?$/,
  async function (
    this: IotcWorld,
    connection: string,
    depth: string,
    topic: string,
    // cucumber gives an optional group that did not match as null
    device: string | null,
  ) {
    const name = device === null ? undefined : this.platformCreatedDevice(device);
    this.lastPublish = await this.gateway(connection).driver.publish(topic, {
      raw: nestedMessage(topic, Number(depth), name),
    });
  },
);

Then(
  'the target closes the MQTT connection of {string}',
  async function (this: IotcWorld, local: string) {
    const { connection } = this.gateway(local).driver;
    await this.eventually(() =>
      assert.ok(connection.closed, `the connection of ${local} is still open`),
    );
  },
);

// ---- bytes that are not UTF-8
// ----------------------------------------------------------------------------------

/** `{"<key>":"a<FF><FE>b"}`: two bytes that can begin no UTF-8 sequence inside a JSON string. */
function invalidUtf8Telemetry(key: string): Buffer {
  return Buffer.concat([
    Buffer.from(`{${JSON.stringify(key)}:"a`),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('b"}'),
  ]);
}

When(
  'the device {string} sends telemetry whose {string} holds bytes that are not UTF-8',
  async function (this: IotcWorld, local: string, key: string) {
    this.response = await this.device(local).driver.postTelemetry({
      raw: invalidUtf8Telemetry(key),
    });
    this.robustness.invalidUtf8Refused = this.response.status >= 400;
  },
);

When(
  '{string} publishes telemetry whose {string} holds bytes that are not UTF-8',
  async function (this: IotcWorld, local: string, key: string) {
    const outcome = await this.gateway(local).driver.publish(DEVICE_MQTT_API.telemetry.topic, {
      raw: invalidUtf8Telemetry(key),
    });
    this.lastPublish = outcome;
    this.robustness.invalidUtf8Refused =
      outcome.result !== 'acked' || (outcome.reasonCode ?? 0) >= 0x80;
  },
);

/**
 * Either answer is robust: refused (then nothing is stored), or decoded as ThingsBoard's UTF-8
 * decoder does, one U+FFFD for each byte that begins no sequence. Never another reading of the
 * bytes (Latin-1 would give "aÿþb").
 */
Then(
  'the telemetry {string} of {string} is refused, or stored with U+FFFD for each invalid byte',
  async function (this: IotcWorld, key: string, local: string) {
    const refused = this.robustness.invalidUtf8Refused;
    assert.ok(refused !== undefined, 'no payload with bytes that are not UTF-8 was sent');
    const device = this.device(local);
    if (refused) {
      const sentinel = await device.driver.postTelemetry({ json: { iotc_sentinel: 1 } });
      assert.equal(sentinel.status, 200, `the sentinel telemetry got ${this.shown(sentinel)}`);
      await this.eventually(async () =>
        assert.deepEqual(await this.run.admin.telemetryKeys(device.record.id), ['iotc_sentinel']),
      );
      return;
    }
    await this.eventually(async () => {
      const stored = (await this.run.admin.latestTelemetry(device.record.id, [key])).get(key);
      // a key never stored reads back as {"ts": <now>, "value": null} (ThingsBoard:
      // SqlTimeseriesLatestDao.java:290, and the reference alike): no value is "not stored (yet)",
      // never a stored value
      assert.ok(stored && stored.value?.value != null, `${key} is not stored yet`);
      // a value stored in another reading is there for good: no use waiting
      if (stored.value?.value !== 'a\uFFFD\uFFFDb')
        throw new GiveUp(
          `${key} holds ${JSON.stringify(stored.value?.value)}, not "a\uFFFD\uFFFDb"`,
        );
    });
  },
);
