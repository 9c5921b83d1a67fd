/**
 * Device provisioning: profiles with a strategy, key and secret; the provisioning request over HTTP or MQTT; what it
 * created.
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { provision, type DeviceResponse } from '../simulators/device/http-device';
import { provisionOverMqtt } from '../simulators/device/mqtt-provision';
import { parseLossless, toPlain } from '../lib/kv/values';
import type { ProvisionStrategy } from '../src/admin-client';
import { provisionResponseSchema } from '../schemas';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { creation } from '../src/target/journal';
import { mqttUrl } from './support/gateway';

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
 * Keys and device names in the scenario are local; the request carries their unique platform values. A JSON field
 * written as "<unique:x>" is replaced by the unique value of x.
 */
When(
  /^a device sends the provisioning request( over MQTT)?:$/,
  async function (this: IotcWorld, overMqtt: string | undefined, body: string) {
    const text = body.replace(/<unique:([^>]+)>/g, (_match, local: string) => this.unique(local));
    // the request may create a device: journal its name first, so an interrupted run still cleans it up
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

/** A device the scenario created itself (and deletes by its own cleanup), which a request may name too. */
function isScenarioDevice(world: IotcWorld, name: string): boolean {
  return [...world.devices.values()].some((device) => device.record.name === name);
}

/**
 * MQTT provisioning as the SDK's ProvisionClient (simulators/device/mqtt-provision.ts); the answer on
 * /provision/response is kept in the shape of an HTTP answer, so the status and credential steps read both.
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
  assert.ok(answer !== undefined, 'no answer on /provision/response');
  let json: unknown;
  try {
    json = parseLossless(answer);
  } catch {
    json = undefined;
  }
  return {
    request: { method: 'PUBLISH', url: '/provision/request' },
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
    const record = await this.run.admin.findDeviceByName(this.unique(local));
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

Then('no device {string} exists on the platform', async function (this: IotcWorld, local: string) {
  const record = await this.run.admin.findDeviceByName(this.unique(local));
  if (record) this.expectCreated('device', record.name);
  assert.equal(record, undefined, `the device ${this.unique(local)} was created`);
});
