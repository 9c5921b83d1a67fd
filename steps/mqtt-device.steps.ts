/**
 * The MQTT device API (features/mqtt-device-api): a device on its own MQTT connection
 * (simulators/device), sending what ThingsBoard's Python SDK sends; effects are read back through
 * the admin API. The device's connection is kept with the scenario's gateways (same driver;
 * `driver.device` is the device API), so the steps written for a gateway as an ordinary device
 * ("publishes its own telemetry", "answers its own RPCs") serve it too.
 */
import assert from 'node:assert/strict';
import { type DataTable, Given, Then, When } from './support/cucumber';
import type { MqttVersion } from '../simulators/device/mqtt-connection';
import type { MqttDevice } from '../simulators/device/mqtt-device';
import type { IotcWorld } from './world';
import { DEVICE_MQTT_API, deviceTopicFilter } from '../schemas/device-mqtt';
import { claimBodyOverNetwork } from './support/claim-window';
import { GiveUp } from './support/eventually';
import { assertRpcStatus } from './support/rpc-answer';
import { connectPlainDevice } from './support/gateway';
import { DELAY_KINDS, awaitQuietWindow, withoutProbe } from './support/readiness';

function mqttDevice(world: IotcWorld, local: string): MqttDevice {
  return world.gateway(local).driver.device;
}

Given(
  'an MQTT device {string} connected over MQTT {mqttVersion}',
  async function (this: IotcWorld, local: string, version: MqttVersion) {
    await connectPlainDevice(this, local, version);
  },
);

/**
 * As the SDK's request_attributes: a key list is sent only when it has keys; none at all is `{}`.
 */
function requestAttributes(
  world: IotcWorld,
  local: string,
  keys: { clientKeys?: string[]; sharedKeys?: string[] },
): void {
  world.pending.start(
    'mqttAttributes',
    local,
    mqttDevice(world, local).requestAttributes(keys, world.run.target.timeouts.eventuallyMs),
  );
}

When(
  'the MQTT device {string} requests its attributes with clientKeys {string} and sharedKeys {string}',
  function (this: IotcWorld, local: string, clientKeys: string, sharedKeys: string) {
    requestAttributes(this, local, {
      clientKeys: clientKeys.split(','),
      sharedKeys: sharedKeys.split(','),
    });
  },
);

When(
  'the MQTT device {string} requests its attributes with sharedKeys {string} only',
  function (this: IotcWorld, local: string, sharedKeys: string) {
    requestAttributes(this, local, { sharedKeys: sharedKeys.split(',') });
  },
);

When(
  'the MQTT device {string} requests all its attributes',
  function (this: IotcWorld, local: string) {
    requestAttributes(this, local, {});
  },
);

Then(
  /^the MQTT device "([^"]*)" receives the attributes (.+)$/,
  async function (this: IotcWorld, local: string, expected: string) {
    const answer = await this.pending.get('mqttAttributes', local);
    assert.ok(answer, 'no answer on v1/devices/me/attributes/response/{id}');
    // the driver parses the answer as plain JSON: compared as plain values
    assert.deepEqual(
      answer,
      JSON.parse(expected),
      `the attribute answer was ${JSON.stringify(answer)}`,
    );
  },
);

When(
  /^the (?:gateway|MQTT device) "([^"]*)" replies to its own RPCs with the raw payload "(.*)"$/,
  async function (this: IotcWorld, local: string, payload: string) {
    await mqttDevice(this, local).handleRpc(() => Buffer.from(payload, 'utf8'));
  },
);

Then(
  "the platform's RPC call to {string} answers {int} and no body",
  async function (this: IotcWorld, local: string, status: number) {
    const answer = await this.pending.get('rpcCall', local);
    assert.ok(answer, 'the platform sent no RPC');
    assertRpcStatus(this, local, answer, status, this.shown(answer));
    assert.equal(answer.text, '', `the RPC call answered ${this.shown(answer)}`);
  },
);

When(
  /^the MQTT device "([^"]*)" sends the client-side RPC "([^"]*)" with params (.+)$/,
  function (this: IotcWorld, local: string, method: string, params: string) {
    this.pending.start(
      'mqttClientRpc',
      local,
      mqttDevice(this, local).callRpc(
        method,
        JSON.parse(params),
        this.run.target.timeouts.eventuallyMs,
      ),
    );
  },
);

Then(
  'the MQTT device {string} receives a JSON answer to its client-side RPC',
  async function (this: IotcWorld, local: string) {
    const answer = await this.pending.get('mqttClientRpc', local);
    assert.ok(answer !== undefined, 'no answer on v1/devices/me/rpc/response/{id}');
    assert.notEqual(typeof answer, 'string', `the answer ${String(answer)} is not JSON`);
  },
);

When(
  /^the (?:gateway|MQTT device) "([^"]*)" asks for its session limits$/,
  function (this: IotcWorld, local: string) {
    this.pending.start(
      'sessionLimits',
      local,
      mqttDevice(this, local).sessionLimits(this.run.target.timeouts.eventuallyMs),
    );
  },
);

Then(
  /^"([^"]*)" receives its session limits( with the gateway rate limits)?$/,
  async function (this: IotcWorld, local: string, gateway: string | undefined) {
    const limits = await this.pending.get('sessionLimits', local);
    assert.ok(limits, 'no answer to getSessionLimits on v1/devices/me/rpc/response/{id}');
    assert.ok(
      Number.isInteger(limits.maxPayloadSize) && limits.maxPayloadSize > 0,
      `maxPayloadSize ${limits.maxPayloadSize}`,
    );
    assert.ok(
      Number.isInteger(limits.maxInflightMessages) && limits.maxInflightMessages > 0,
      `maxInflightMessages ${limits.maxInflightMessages}`,
    );
    const rateLimitKeys = ['messages', 'telemetryMessages', 'telemetryDataPoints'];
    assert.deepEqual(Object.keys(limits.rateLimits ?? {}).sort(), [...rateLimitKeys].sort());
    if (gateway)
      assert.deepEqual(
        Object.keys(limits.gatewayRateLimits ?? {}).sort(),
        [...rateLimitKeys].sort(),
      );
    else assert.equal(limits.gatewayRateLimits, undefined, 'a device gets no gatewayRateLimits');
    assert.notEqual(
      (limits as unknown as { method?: unknown }).method,
      'getSessionLimits',
      'the request was echoed, not answered',
    );
  },
);

When(
  /^the MQTT device "([^"]*)" publishes the claim (.+)$/,
  async function (this: IotcWorld, local: string, claim: string) {
    const parsed = JSON.parse(claimBodyOverNetwork(this, local, claim)) as {
      secretKey?: string;
      durationMs?: number;
    };
    if (typeof parsed.secretKey === 'string') this.redactor.addSecret(parsed.secretKey);
    this.lastPublish = await mqttDevice(this, local).claim(parsed);
    this.claimsAcknowledgedAt.set(local, Date.now());
  },
);

/**
 * Counts deliveries: what the device received on a topic, in order, must become exactly `expected`
 * (plain JSON values), no more. The last expected message is the positive control: once it came,
 * everything sent before it on the same connection has come too, so a duplicate of an earlier one
 * is seen; more messages than expected fail at once.
 */
async function receivesExactly(
  world: IotcWorld,
  receivedSoFar: () => unknown[],
  expected: unknown[],
  what: string,
): Promise<void> {
  await world.eventually(() => {
    const received = receivedSoFar();
    const shown = `${what}: received ${JSON.stringify(received)}, expected exactly ${JSON.stringify(expected)}`;
    if (received.length > expected.length) throw new GiveUp(shown);
    assert.deepEqual(received, expected, shown);
  });
}

/** One JSON document a row, the table read with raw() so that no row is taken for a header. */
Then(
  'the MQTT device {string} has received exactly the shared attribute updates:',
  async function (this: IotcWorld, local: string, table: DataTable) {
    const updates = this.ownSharedUpdates.get(local);
    assert.ok(updates, `"${local}" has not subscribed to its shared attribute updates`);
    const expected = table.raw().map(([document]) => JSON.parse(document!) as unknown);
    // the harness's readiness probes are not updates under test: their key is dropped, a probe
    // alone not counted
    const underTest = () =>
      updates.flatMap((update) => {
        const rest = withoutProbe(update);
        return rest === undefined ? [] : [rest];
      });
    await receivesExactly(this, underTest, expected, DEVICE_MQTT_API.attributes.topic);
    // a duplicate may come late: the count is read again after a quiet window of the measured
    // delivery delays
    await awaitQuietWindow(this, DELAY_KINDS.deviceUpdate, `counting the updates of ${local}`);
    assert.deepEqual(
      underTest(),
      expected,
      `${DEVICE_MQTT_API.attributes.topic}: received ${JSON.stringify(underTest())}, expected exactly ${JSON.stringify(expected)}`,
    );
  },
);

/**
 * Rows `method | params` (read with raw(): no header row), compared with the {method, params} the
 * device got.
 */
Then(
  'the MQTT device {string} has received exactly the RPC requests:',
  async function (this: IotcWorld, local: string, table: DataTable) {
    const requests = this.ownRpcRequests.get(local);
    assert.ok(requests, `"${local}" does not answer its RPCs`);
    const expected = table.raw().map(([method, params]) => ({
      method,
      params: JSON.parse(params!) as unknown,
    }));
    await receivesExactly(
      this,
      () => requests.map(({ method, params }) => ({ method, params })),
      expected,
      deviceTopicFilter('rpcRequest'),
    );
  },
);
