/**
 * The MQTT gateway API: a simulated gateway (simulators/gateway) connects devices, publishes their
 * data and answers their RPCs; the effects are read back through the admin API. Device names in
 * payloads are written `{{local}}` and become the run's prefixed names (journaled before the
 * platform can create them).
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { Given, Then, When } from './support/cucumber';
import { isFailure, type MqttVersion } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS } from '../simulators/gateway/mqtt-gateway';
import type { IotcWorld } from './world';
import { claimBodyOverNetwork } from './support/claim-window';
import { connectGateway, connectPlainDevice, mqttUrl } from './support/gateway';
import {
  lateAcknowledgement,
  publishWithinWindow,
  recordPuback,
  settledPublish,
} from './support/publish-window';
import { quietFloorMs } from './support/readiness';
import { measuredDelays, refuseIfStallExplains } from './support/timing';
/** `{{local}}` → the platform name of that device (journaled: the platform may create it). */
function withDeviceNames(world: IotcWorld, text: string): string {
  return text.replace(/\{\{([^}]+)\}\}/g, (_match, local: string) =>
    world.platformCreatedDevice(local.trim()),
  );
}

/**
 * Creates a gateway device (additionalInfo.gateway = true) under a name of this scenario alone
 * (world.fresh) and connects it at `url`; steps name it by its record
 * (`world.device(local).record.name`).
 */
async function startGateway(
  world: IotcWorld,
  local: string,
  version: MqttVersion,
  url: string,
): Promise<void> {
  // one name per scenario, not per run: on ThingsBoard a gateway left behind by a failed scenario
  // (its sessions, the devices it connected, a delete still in progress) made every later scenario
  // that creates the same name fail too
  const { record, token } = await world.newDevice(world.fresh(local), {
    additionalInfo: { gateway: true },
  });
  const device = await world.adoptDevice(local, record, token);
  world.gateways.set(local, {
    local,
    driver: await connectGateway(world, local, device.token, version, url),
  });
}

Given(
  'a gateway {string} connected over MQTT {mqttVersion}',
  async function (this: IotcWorld, local: string, version: MqttVersion) {
    await startGateway(this, local, version, mqttUrl(this));
  },
);

Given('the target serves MQTT over TLS too', function (this: IotcWorld) {
  if (!this.run.target.mqttsUrl) {
    this.log('skipped: the target profile names no mqtts URL (platform.mqtts)');
    return 'skipped';
  }
  return undefined;
});

Given(
  'a gateway {string} connected over mqtts with MQTT {mqttVersion}',
  async function (this: IotcWorld, local: string, version: MqttVersion) {
    const url = this.run.target.mqttsUrl;
    assert.ok(url, 'the target profile names no mqtts URL (platform.mqtts)');
    await startGateway(this, local, version, url);
  },
);

Given(
  'a device {string} that is not a gateway, connected over MQTT {mqttVersion}',
  async function (this: IotcWorld, local: string, version: MqttVersion) {
    await connectPlainDevice(this, local, version);
  },
);

When(
  'the gateway {string} connects the device {string}',
  async function (this: IotcWorld, gateway: string, local: string) {
    this.lastPublish = await this.gateway(gateway).driver.connectDevice(
      this.platformCreatedDevice(local),
    );
  },
);

When(
  'the gateway {string} connects the device {string} with the type {string}',
  async function (this: IotcWorld, gateway: string, local: string, type: string) {
    const profile = this.platformCreatedProfile(type);
    this.lastPublish = await this.gateway(gateway).driver.connectDevice(
      this.platformCreatedDevice(local),
      profile,
    );
  },
);

When(
  'the gateway {string} disconnects the device {string}',
  async function (this: IotcWorld, gateway: string, local: string) {
    this.lastPublish = await this.gateway(gateway).driver.disconnectDevice(
      this.platformCreatedDevice(local),
    );
  },
);

When(
  'the gateway {string} publishes on {string}:',
  async function (this: IotcWorld, gateway: string, topic: string, payload: string) {
    this.lastPublish = await this.gateway(gateway).driver.publish(topic, {
      raw: withDeviceNames(this, payload),
    });
  },
);

When(
  /^the gateway "([^"]*)" publishes on "([^"]*)" the payload (.+)$/,
  async function (this: IotcWorld, gateway: string, topic: string, payload: string) {
    this.lastPublish = await this.gateway(gateway).driver.publish(topic, {
      raw: withDeviceNames(this, payload),
    });
  },
);

When(
  /^the gateway "([^"]*)" publishes telemetry for "([^"]*)": (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, entries: string) {
    const name = JSON.stringify(this.platformCreatedDevice(local));
    const before = Date.now();
    const { driver } = this.gateway(gateway);
    // the PUBACK awaited for a quiet window, then pending (support/publish-window.ts); the sent
    // window ends with the PUBACK
    await publishWithinWindow(
      this,
      GATEWAY_TOPICS.telemetry,
      driver.connection,
      () => driver.publish(GATEWAY_TOPICS.telemetry, { raw: `{${name}:${entries}}` }),
      () => this.sentWindows.set(local, { start: before, end: Date.now() }),
    );
  },
);

When(
  /^the gateway "([^"]*)" publishes attributes for "([^"]*)": (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, attributes: string) {
    const name = JSON.stringify(this.platformCreatedDevice(local));
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.attributes, {
      raw: `{${name}:${attributes}}`,
    });
  },
);

When(
  /^the gateway "([^"]*)" publishes a claim for "([^"]*)": (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, claim: string) {
    const name = JSON.stringify(this.platformCreatedDevice(local));
    const secretKey = /"secretKey"\s*:\s*"([^"\\]*)"/.exec(claim)?.[1]; // the claim may be malformed on purpose
    if (secretKey) this.redactor.addSecret(secretKey);
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.claim, {
      raw: `{${name}:${claimBodyOverNetwork(this, local, claim)}}`,
    });
    this.claimsAcknowledgedAt.set(local, Date.now());
  },
);

Then('the PUBACK reports success', async function (this: IotcWorld) {
  const outcome = await settledPublish(this);
  assert.ok(outcome, 'nothing was published in this scenario');
  const late = lateAcknowledgement(this);
  assert.ok(!late, late);
  assert.equal(outcome.result, 'acked', `the publish on ${outcome.topic} ended ${outcome.result}`);
  // the positive control of a PUBACK that must not come: its quiet window is three times this
  recordPuback(outcome);
  assert.ok(
    !isFailure(outcome),
    `the PUBACK of ${outcome.topic} carries the failure code 0x${outcome.reasonCode?.toString(16)} ${outcome.reasonString ?? ''}`,
  );
});

/**
 * Deviations MQTT-DEV-TEL-01-EMPTY and GW-TEL-01-EMPTY: the last publish got no PUBACK within its
 * quiet window (support/publish-window.ts: three times the largest PUBACK delay the run measured,
 * at least quietFloorMs; before, the driver's whole requestMs) and the connection stayed open. The
 * scenario proves a PUBACK on the same connection before (positive control, whose delay the window
 * is made of) and after it, and a PUBACK of this publish that comes later in the scenario fails
 * that step. A harness whose loop stood still for half of the window may have let its timer fire
 * before it read a PUBACK that had come: the window is watched again while the publish is still
 * unacknowledged, and only a harness still starved when requestMs has passed is INCONCLUSIVE.
 */
Then('the publish gets no PUBACK and the connection stays open', async function (this: IotcWorld) {
  let outcome = this.lastPublish;
  assert.ok(outcome, 'nothing was published in this scenario');
  const pending = this.pendingPublish;
  if (pending && !pending.judgedUnacknowledged) {
    // a window the harness stood still for half of is watched again while the publish is still
    // unacknowledged, up to the driver's own timeout (requestMs): a busy machine costs time here,
    // not an INCONCLUSIVE
    const publishedAt = Date.now() - outcome.elapsedMs;
    let watchedFrom = publishedAt;
    while (
      !pending.outcome &&
      this.stalls.worstBetween(watchedFrom) >= pending.windowMs / 2 &&
      Date.now() + pending.windowMs - publishedAt <= this.run.target.timeouts.requestMs
    ) {
      watchedFrom = Date.now();
      await Promise.race([pending.settled, delay(pending.windowMs)]);
    }
    if (!pending.outcome) {
      refuseIfStallExplains(
        { harnessMs: this.stalls.worstBetween(watchedFrom) },
        pending.windowMs / 2,
        `waiting ${Math.round(Date.now() - publishedAt)} ms for a PUBACK on ${outcome.topic}`,
      );
      pending.judgedUnacknowledged = true;
      pending.connection.stopWaitingForAcks();
      this.log(
        `no PUBACK on ${outcome.topic} within ${Math.round(Date.now() - publishedAt)} ms (a window of ${pending.windowMs} ms: three times the largest PUBACK delay measured, at least ${quietFloorMs(this)} ms)`,
      );
      return;
    }
    // it settled while watched: judged as any other outcome below
    outcome = pending.outcome;
    this.pendingPublish = undefined;
    this.lastPublish = outcome;
  }
  assert.notEqual(
    outcome.result,
    'closed',
    `the connection closed after the publish on ${outcome.topic}`,
  );
  if (outcome.result === 'timeout')
    refuseIfStallExplains(
      { harnessMs: this.stalls.worstBetween(Date.now() - outcome.elapsedMs) },
      outcome.elapsedMs / 2,
      `waiting ${Math.round(outcome.elapsedMs)} ms for a PUBACK on ${outcome.topic}`,
    );
  assert.equal(
    outcome.result,
    'timeout',
    `the publish on ${outcome.topic} ended ${outcome.result} (reason code 0x${(outcome.reasonCode ?? 0).toString(16)}), expected no PUBACK`,
  );
});

Then('the PUBACK carries a failure reason code', async function (this: IotcWorld) {
  const outcome = await settledPublish(this);
  assert.ok(outcome, 'nothing was published in this scenario');
  assert.equal(
    outcome.result,
    'acked',
    `the publish on ${outcome.topic} ended ${outcome.result}, expected a PUBACK with a failure code`,
  );
  assert.ok(
    (outcome.reasonCode ?? 0) >= 0x80,
    `the PUBACK of ${outcome.topic} reports success (0x${(outcome.reasonCode ?? 0).toString(16)}), expected a failure code (0x80 or above)`,
  );
});

Then(
  'the publish is refused with a failure reason code or a closed connection',
  async function (this: IotcWorld) {
    const outcome = await settledPublish(this);
    assert.ok(outcome, 'nothing was published in this scenario');
    const refused =
      outcome.result === 'closed' ||
      (outcome.result === 'acked' && (outcome.reasonCode ?? 0) >= 0x80);
    assert.ok(
      refused,
      `the publish on ${outcome.topic} was accepted (${outcome.result}, reason code ${outcome.reasonCode ?? 'none'})`,
    );
  },
);

// ---- devices and profiles as the platform holds them
// ----------------------------------------------------------

Then(
  'the platform eventually holds a device {string} of the profile {string}',
  async function (this: IotcWorld, local: string, profile: string) {
    const name = this.platformCreatedDevice(local);
    const expectedProfile = profile === 'default' ? 'default' : this.unique(profile);
    const asked = performance.now();
    const record = await this.eventually(async () => {
      const found = await this.findDevice(name);
      assert.ok(found, `no device ${name} on the platform`);
      return found;
    });
    // at least how long the platform took to create it (from this step, after the request that
    // creates it): the quiet window of "no device ... exists" is derived from it
    measuredDelays.record('device-creation', performance.now() - asked);
    assert.equal(record.type, expectedProfile, `the device ${name} has the profile ${record.type}`);
    if (!this.devices.has(local)) await this.adoptDevice(local, record);
  },
);

Then(
  'the platform holds a device profile {string}',
  async function (this: IotcWorld, local: string) {
    const name = this.unique(local);
    await this.eventually(async () =>
      assert.ok(
        await this.run.admin.findDeviceProfileByName(name),
        `no device profile ${name} on the platform`,
      ),
    );
  },
);

Then(
  'the device {string} still has the profile {string}',
  async function (this: IotcWorld, local: string, profile: string) {
    const record = await this.run.admin.findDeviceByName(this.device(local).record.name);
    assert.ok(record, `the device ${local} is gone`);
    assert.equal(record.type, profile === 'default' ? 'default' : this.unique(profile));
  },
);
