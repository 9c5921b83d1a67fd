/**
 * Device provisioning: profiles with a strategy, key and secret; the provisioning request over HTTP
 * or MQTT; what it created.
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { Given, Then, When } from './support/cucumber';
import { provision, type DeviceResponse } from '../simulators/device/http-device';
import { provisionOverMqtt } from '../simulators/device/mqtt-provision';
import { parseLossless, toPlain } from '../lib/kv/values';
import type { ProvisionStrategy } from '../src/admin-client';
import { PROVISION_MQTT_API, provisionResponseSchema } from '../schemas';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { creation } from '../src/target/journal';
import { mqttUrl } from './support/gateway';
import { LagWatch, quietWindowMs } from './support/timing';

Given(
  'a device profile {string} with provisioning strategy {word}, key {string} and secret {string}',
  async function (
    this: IotcWorld,
    local: string,
    strategy: ProvisionStrategy,
    key: string,
    secret: string,
  ) {
    const name = this.unique(local);
    this.redactor.addSecret(secret); // blanked wherever it stands, when it is not an ordinary word
    const profile = await this.track(
      'deviceProfile',
      name,
      () =>
        this.run.admin.createDeviceProfile({
          name,
          provisionType: strategy,
          provisionDeviceKey: this.unique(key),
          provisionDeviceSecret: secret,
        }),
      (created) => this.run.admin.deleteDeviceProfile(created.id),
    );
    this.ids.set('deviceProfile', local, profile.id);
  },
);

Given(
  'a device {string} of the profile {string}',
  async function (this: IotcWorld, local: string, profile: string) {
    const profileId = this.ids.get('deviceProfile', profile);
    assert.ok(profileId, `no device profile "${profile}" in this scenario`);
    await this.createDevice(local, { deviceProfileId: profileId });
  },
);

/**
 * Keys and device names in the scenario are local; the request carries their unique platform
 * values. A JSON field written as "<unique:x>" is replaced by the unique value of x.
 */
When(
  /^a device sends the provisioning request( over MQTT)?:$/,
  async function (this: IotcWorld, overMqtt: string | undefined, body: string) {
    const text = body.replace(/<unique:([^>]+)>/g, (_match, local: string) => this.unique(local));
    // the request may create a device: journal its name first, so an interrupted run still cleans
    // it up
    const deviceName = /"deviceName"\s*:\s*"([^"]+)"/.exec(text)?.[1];
    if (deviceName?.startsWith(this.unique('')) && !isScenarioDevice(this, deviceName))
      this.expectCreated('device', deviceName);
    this.response = overMqtt
      ? await creation(provisionOverMqttAsResponse(this, text))
      : await creation(
          provision(
            this.run.target.httpUrl,
            { raw: text },
            {
              requestTimeoutMs: this.run.target.timeouts.requestMs,
              dispatcher: this.run.deviceDispatcher,
              recorder: this.exchanges.record,
            },
          ),
        );
    const credentials = (toPlain(this.response.json) as { credentialsValue?: unknown } | undefined)
      ?.credentialsValue;
    if (typeof credentials === 'string') this.redactor.addSecret(credentials);
  },
);

/**
 * A device the scenario created itself (and deletes by its own cleanup), which a request may name
 * too.
 */
function isScenarioDevice(world: IotcWorld, name: string): boolean {
  return [...world.devices.values()].some((device) => device.record.name === name);
}

/**
 * MQTT provisioning as the SDK's ProvisionClient (simulators/device/mqtt-provision.ts); the answer
 * on /provision/response is kept in the shape of an HTTP answer, so the status and credential steps
 * read both.
 */
async function provisionOverMqttAsResponse(
  world: IotcWorld,
  text: string,
): Promise<DeviceResponse> {
  const { target } = world.run;
  const started = performance.now();
  const answer = await provisionOverMqtt(
    {
      url: mqttUrl(world),
      connectTimeoutMs: target.timeouts.requestMs,
      tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      recorder: world.exchanges.record,
    },
    text,
    target.timeouts.eventuallyMs,
  );
  assert.ok(answer !== undefined, `no answer on ${PROVISION_MQTT_API.response.topic}`);
  let json: unknown;
  try {
    json = parseLossless(answer);
  } catch {
    json = undefined;
  }
  return {
    request: { method: 'PUBLISH', url: PROVISION_MQTT_API.request.topic },
    status: 200,
    headers: {},
    text: answer,
    json,
    bytes: Buffer.from(answer, 'utf8'),
    elapsedMs: performance.now() - started,
  };
}

const PROVISION = 'the provisioning request';

Then('the provisioning status is {word}', function (this: IotcWorld, status: string) {
  const response = this.lastResponse();
  const body = answerOf(provisionResponseSchema, response, PROVISION);
  assert.equal(body.status, status, `the provisioning answer was ${this.shown(response)}`);
});

Then(
  'the returned credentials are the access token of the device {string} on the platform',
  async function (this: IotcWorld, local: string) {
    const body = answerOf(provisionResponseSchema, this.lastResponse(), PROVISION);
    assert.equal(body.credentialsType, 'ACCESS_TOKEN');
    const record = await this.findDevice(this.unique(local));
    assert.ok(record, `the device ${this.unique(local)} does not exist on the platform`);
    if (!this.devices.has(local)) {
      this.expectCreated('device', record.name); // once per name: the request's journal entry may be it
      await this.adoptDevice(local, record);
    }
    assert.equal(
      body.credentialsValue,
      await this.run.admin.getDeviceCredentials(record.id),
      'the returned credentials are not the device access token',
    );
  },
);

/**
 * No device of that name exists, and none appears. A platform may create a device after it answered
 * (a gateway's PUBACK means queued), so one lookup proves nothing: the lookup by name is first
 * shown to find a device this scenario knows exists (one is created when it has none: a lookup that
 * finds nothing would pass any absence), then the name is watched over a quiet window derived from
 * the device creations the run measured (`device-creation`, recorded by "the platform eventually
 * holds a device"), lengthened by the worst stall of the harness's event loop; a stall over half of
 * eventuallyMs makes the verdict INCONCLUSIVE, never PASS.
 */
Then('no device {string} exists on the platform', async function (this: IotcWorld, local: string) {
  const name = this.unique(local);
  const known =
    [...this.devices.values()][0] ?? (await this.createDevice(`${local}-lookup-control`));
  const found = await this.run.admin.findDeviceByName(known.record.name);
  assert.ok(
    found,
    `the lookup by name does not find ${known.record.name}, a device of this scenario`,
  );
  const { timeouts } = this.run.target;
  const windowMs = quietWindowMs('device-creation', timeouts);
  const watch = new LagWatch();
  const started = performance.now();
  try {
    for (;;) {
      const record = await this.run.admin.findDeviceByName(name);
      if (record) this.expectCreated('device', record.name);
      assert.equal(
        record,
        undefined,
        `the device ${name} was created (${Math.round(performance.now() - started)} ms into the ${windowMs} ms watch)`,
      );
      // a stalled harness (on an embedded target, the platform stalls with it) lengthens the watch
      // by the stall
      const left = windowMs + watch.worstMs() - (performance.now() - started);
      if (left <= 0) break;
      await delay(Math.min(timeouts.pollIntervalMs, left));
      watch.refuseIfStarved(timeouts.eventuallyMs / 2, `watching that no device ${name} appears`);
    }
  } finally {
    watch.stop();
  }
  this.log(
    `no device ${name} appeared over ${Math.round(performance.now() - started)} ms (window ${windowMs} ms)`,
  );
});
