/**
 * The robustness feature set (features/robustness/, capability `robustness`): abusive traffic any target can be
 * checked with, bounded in size and time, each scenario also checking that a well-behaved device is served while
 * the abuse goes on (its answer within the profile's request timeout, its data read back through the admin API).
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { Agent } from 'undici';
import type { IotcWorld } from './world';
import { deviceRequest, type DeviceResponse } from '../simulators/device/http-device';
import { mqttUrl } from './support/gateway';
import { GiveUp, settlesWithin } from './support/eventually';
import { postOversized, type OversizedAnswer } from './support/robustness/oversized-request';
import { RawMqttClient } from '../simulators/device/raw-mqtt-client';
import { nestedDocument, nestedMessage, paddedMessage } from './support/robustness/payloads';

/** What one scenario of this set keeps between its steps. */
interface RobustnessState {
  oversized?: Promise<OversizedAnswer>;
  bareClients: Map<string, RawMqttClient>;
  /** When the well-behaved device's telemetry was last answered (it is read back afterwards). */
  servedAt?: number;
  polls: Array<Promise<{ response: DeviceResponse; answeredAt: number }>>;
  /** Whether the target refused the payload with bytes that are not UTF-8 (undefined: none was sent). */
  invalidUtf8Refused?: boolean;
}

const states = new WeakMap<IotcWorld, RobustnessState>();

function state(world: IotcWorld): RobustnessState {
  let own = states.get(world);
  if (!own) {
    own = { bareClients: new Map(), polls: [] };
    states.set(world, own);
  }
  return own;
}

function bareClient(world: IotcWorld, local: string): RawMqttClient {
  const client = state(world).bareClients.get(local);
  if (!client) throw new Error(`no bare MQTT connection "${local}" in this scenario`);
  return client;
}

/** The platform record of a device of the scenario, created by the scenario or by the platform (a gateway's). */
async function deviceRecord(
  world: IotcWorld,
  local: string,
): Promise<{ id: string; name: string }> {
  const own = world.devices.get(local);
  if (own) return own.record;
  const name = world.platformCreatedDevice(local);
  const record = await world.eventually(async () => {
    const found = await world.run.admin.findDeviceByName(name);
    assert.ok(found, `the platform holds no device ${name}`);
    return found;
  });
  return record;
}

// ---- the well-behaved device --------------------------------------------------------------------------------

Then('the device {string} is served meanwhile', async function (this: IotcWorld, local: string) {
  const device = this.device(local);
  const nonce = `calm-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  // the driver gives up after the profile's request timeout: that is the latency bound, not a number here
  const answer = await device.driver.postTelemetry({ json: { iotc_calm: nonce } });
  assert.equal(answer.status, 200, `the well-behaved device got ${this.shown(answer)}`);
  state(this).servedAt = Date.now();
  await this.eventually(async () => {
    const stored = await this.run.admin.latestTelemetry(device.record.id, ['iotc_calm']);
    const value = stored.get('iotc_calm')?.value;
    assert.equal(value?.value, nonce, `the well-behaved device's telemetry was not stored`);
  });
});

/**
 * Nothing of the abuse was stored: a sentinel telemetry key and client attribute sent afterwards over HTTP are the
 * positive control (they must arrive, after what must not), and then they are all the device holds.
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

// ---- oversized and nested payloads over HTTP -----------------------------------------------------------------

When(
  /^the device "([^"]*)" starts posting a JSON body of (\d+) bytes to (\/\S*\{token\}\S*)$/,
  function (this: IotcWorld, local: string, bytes: string, path: string) {
    const device = this.device(local);
    const { target } = this.run;
    const url = target.httpUrl + path.replace('{token}', encodeURIComponent(device.token));
    state(this).oversized = postOversized(url, 'iotc_big', Number(bytes), {
      timeoutMs: target.timeouts.requestMs,
      tls: target.tls,
    });
  },
);

Then('the oversized request is answered {int}', async function (this: IotcWorld, status: number) {
  const pending = state(this).oversized;
  assert.ok(pending, 'no oversized request was started in this scenario');
  const answer = await pending;
  assert.equal(
    answer.status,
    status,
    `the oversized request got ${answer.status ?? 'no answer'} ${answer.error ?? this.redact(answer.text.slice(0, 200))} after ${answer.bytesSent} bytes`,
  );
});

When(
  /^the device "([^"]*)" posts to (\/\S*\{token\}\S*) a JSON document nested (\d+) levels deep$/,
  async function (this: IotcWorld, local: string, path: string, depth: string) {
    const device = this.device(local);
    this.response = await device.driver.request('POST', path.replace('/api/v1/{token}/', ''), {
      raw: nestedDocument('iotc_deep', Number(depth)),
    });
  },
);

Then('the answer is an error status', function (this: IotcWorld) {
  const response = this.lastResponse();
  assert.ok(response.status >= 400, `the target accepted it: ${this.shown(response)}`);
});

// ---- oversized and nested payloads over MQTT -----------------------------------------------------------------

When(
  /^"([^"]*)" publishes a message of (\d+) bytes on "([^"]*)"(?: for "([^"]*)")?$/,
  async function (
    this: IotcWorld,
    connection: string,
    bytes: string,
    topic: string,
    device?: string,
  ) {
    const name = device === undefined ? undefined : this.platformCreatedDevice(device);
    this.lastPublish = await this.gateway(connection).driver.publish(topic, {
      raw: paddedMessage(topic, Number(bytes), name),
    });
  },
);

When(
  /^"([^"]*)" publishes a message nested (\d+) levels deep on "([^"]*)"(?: for "([^"]*)")?$/,
  async function (
    this: IotcWorld,
    connection: string,
    depth: string,
    topic: string,
    device?: string,
  ) {
    const name = device === undefined ? undefined : this.platformCreatedDevice(device);
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

// ---- bytes that are not UTF-8 ----------------------------------------------------------------------------------

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
    state(this).invalidUtf8Refused = this.response.status >= 400;
  },
);

When(
  '{string} publishes telemetry whose {string} holds bytes that are not UTF-8',
  async function (this: IotcWorld, local: string, key: string) {
    const outcome = await this.gateway(local).driver.publish('v1/devices/me/telemetry', {
      raw: invalidUtf8Telemetry(key),
    });
    this.lastPublish = outcome;
    state(this).invalidUtf8Refused =
      outcome.result !== 'acked' || (outcome.reasonCode ?? 0) >= 0x80;
  },
);

/**
 * Either answer is robust: refused (then nothing is stored), or decoded as ThingsBoard's UTF-8 decoder does, one
 * U+FFFD for each byte that begins no sequence. Never another reading of the bytes (Latin-1 would give "aÿþb").
 */
Then(
  'the telemetry {string} of {string} is refused, or stored with U+FFFD for each invalid byte',
  async function (this: IotcWorld, key: string, local: string) {
    const refused = state(this).invalidUtf8Refused;
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
      assert.ok(stored, `${key} is not stored yet`);
      // a value stored in another reading is there for good: no use waiting
      if (stored.value?.value !== 'a\uFFFD\uFFFDb')
        throw new GiveUp(
          `${key} holds ${JSON.stringify(stored.value?.value)}, not "a\uFFFD\uFFFDb"`,
        );
    });
  },
);

// ---- bare MQTT connections: not reading, not MQTT, never connecting --------------------------------------------

async function openBare(world: IotcWorld, local: string): Promise<RawMqttClient> {
  const client = await RawMqttClient.open({ url: mqttUrl(world), tls: world.run.target.tls });
  state(world).bareClients.set(local, client);
  world.cleanups.push({
    what: `bare MQTT connection ${local}`,
    undo: async () => client.destroy(),
  });
  return client;
}

Given(
  'an MQTT device {string} on a bare connection',
  async function (this: IotcWorld, local: string) {
    const device = await this.createDevice(local);
    const client = await openBare(this, local);
    const code = await client.connect(device.token, this.run.target.timeouts.requestMs);
    assert.equal(code, 0, `the CONNECT of ${local} was refused with ${code}`);
  },
);

Given(
  'a bare TCP connection {string} to the MQTT transport that sends nothing',
  async function (this: IotcWorld, local: string) {
    await openBare(this, local);
  },
);

When(
  'the bare connection {string} subscribes to its attribute updates and stops reading',
  async function (this: IotcWorld, local: string) {
    const client = bareClient(this, local);
    await client.subscribe('v1/devices/me/attributes', this.run.target.timeouts.requestMs);
    client.pause();
  },
);

When(
  'the bare connection {string} sends bytes that are not MQTT',
  function (this: IotcWorld, local: string) {
    // packet type 0 is reserved, and a remaining length of five bytes is malformed in every MQTT version
    bareClient(this, local).writeRaw(
      Buffer.concat([
        Buffer.from([0x00, 0xff, 0xff, 0xff, 0xff, 0x7f]),
        Buffer.from('GET / HTTP/1.1\r\n\r\n'),
      ]),
    );
  },
);

When(
  /^the platform sends (\d+) shared attribute updates of (\d+) bytes to "([^"]*)"$/,
  async function (this: IotcWorld, count: string, bytes: string, local: string) {
    const device = this.device(local);
    const filler = 'x'.repeat(Number(bytes));
    // bounded: exactly `count` updates, one after the other
    for (let sequence = 1; sequence <= Number(count); sequence++)
      await this.run.admin.saveAttributes(device.record.id, 'SHARED_SCOPE', {
        iotc_bulk: filler,
        iotc_sequence: sequence,
      });
  },
);

When('the bare connection {string} reads again', function (this: IotcWorld, local: string) {
  bareClient(this, local).resume();
});

Then(
  /^the target has disconnected "([^"]*)" or dropped some of the (\d+) updates$/,
  async function (this: IotcWorld, local: string, count: string) {
    const client = bareClient(this, local);
    const all = Number(count);
    const received = () => client.received.get('v1/devices/me/attributes') ?? 0;
    // what the socket buffers held arrives first; then the connection ends, or everything was queued for it
    await this.eventually(() =>
      assert.ok(client.closed || received() >= all, `${received()} of ${all} updates so far`),
    ).catch(() => undefined);
    assert.ok(
      client.closed || received() < all,
      `the target queued all ${all} updates for a client that did not read, and kept it connected`,
    );
  },
);

Then(
  'the target closes the bare connection {string}',
  async function (this: IotcWorld, local: string) {
    const client = bareClient(this, local);
    await this.eventually(() => assert.ok(client.closed, `the connection ${local} is still open`));
  },
);

Then(
  'the target closes the bare connection {string} once its CONNECT timeout has passed',
  async function (this: IotcWorld, local: string) {
    const client = bareClient(this, local);
    const { mqttConnectTimeoutMs } = this.run.target;
    await this.eventually(
      () => assert.ok(client.closed, `the connection ${local} is still open`),
      mqttConnectTimeoutMs,
    );
  },
);

// ---- many long-polls -----------------------------------------------------------------------------------------

Given(
  /^(\d+) devices "([^"]*)" each waiting for shared attribute updates$/,
  async function (this: IotcWorld, count: string, prefix: string) {
    const total = Number(count);
    const { target } = this.run;
    // created a few at a time: bounded concurrency towards the admin API
    for (let first = 1; first <= total; first += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, total - first + 1) }, (_, offset) =>
          this.createDevice(`${prefix}-${first + offset}`),
        ),
      );
    // one connection per poll (the shared pool would queue them), closed after the scenario
    const agent = new Agent({ connections: total + 1 });
    this.cleanups.push({ what: 'long-poll connections', undo: () => agent.close() });
    const timeout = target.timeouts.eventuallyMs;
    for (let index = 1; index <= total; index++) {
      const device = this.device(`${prefix}-${index}`);
      state(this).polls.push(
        deviceRequest(
          target.httpUrl,
          'GET',
          `/api/v1/${encodeURIComponent(device.token)}/attributes/updates?timeout=${timeout}`,
          undefined,
          {
            dispatcher: agent,
            requestTimeoutMs: target.timeouts.requestMs,
            extraTimeoutMs: timeout,
          },
        ).then((response) => ({ response, answeredAt: Date.now() })),
      );
    }
  },
);

When(
  /^the platform sets a shared attribute of "([^"]*)" and its poll answers with it$/,
  async function (this: IotcWorld, local: string) {
    const device = this.device(local);
    const index = Number(local.slice(local.lastIndexOf('-') + 1));
    const poll = state(this).polls[index - 1];
    assert.ok(poll, `no long-poll of ${local}`);
    // the poll may reach the target after the first update (its connection opens last): the update is sent again
    // until the poll answers, which also shows that the polls sent before it are being held
    let wake = 0;
    await this.eventually(async () => {
      wake++;
      await this.run.admin.saveAttributes(device.record.id, 'SHARED_SCOPE', { iotc_wake: wake });
      assert.ok(
        await settlesWithin(poll, this.run.target.timeouts.pollIntervalMs),
        `the poll of ${local} has not answered the update`,
      );
    });
    const { response } = await poll;
    assert.equal(response.status, 200, `the poll of ${local} got ${this.shown(response)}`);
    assert.ok(
      'iotc_wake' in JSON.parse(response.text),
      `the poll of ${local} answered ${response.text}`,
    );
  },
);

Then(
  /^every other poll is answered 408 after "([^"]*)" was served$/,
  async function (this: IotcWorld, calm: string) {
    const own = state(this);
    assert.ok(own.servedAt, `the device ${calm} was not served in this scenario`);
    const answers = await Promise.allSettled(own.polls);
    const wrong: string[] = [];
    answers.forEach((settled, index) => {
      if (index === answers.length - 1) return; // the poll the scenario answered with an update
      if (settled.status === 'rejected') wrong.push(`poll ${index + 1}: ${String(settled.reason)}`);
      else if (settled.value.response.status !== 408)
        wrong.push(`poll ${index + 1}: ${this.shown(settled.value.response)}`);
      else if (settled.value.answeredAt < own.servedAt!)
        wrong.push(`poll ${index + 1}: timed out before ${calm} was served`);
    });
    assert.deepEqual(
      wrong.slice(0, 10),
      [],
      `${wrong.length} polls were not answered as they should`,
    );
  },
);
