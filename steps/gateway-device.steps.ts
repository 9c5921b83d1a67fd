/**
 * MQTT gateway steps: the gateway as an ordinary device, the tenant's device limit, and
 * authentication.
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from './support/cucumber';
import {
  MqttConnectRefusedError,
  MqttConnection,
  type MqttVersion,
} from '../simulators/device/mqtt-connection';
import { DEVICE_TOPICS, type DeviceRpcRequest } from '../simulators/device/mqtt-device';
import { jsonEqual } from '../lib/kv/values';
import { AdminClient } from '../src/admin-client';
import { tenantProfileSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { recordOf } from './support/answer-of';
import { mqttUrl } from './support/gateway';
import { publishWithinWindow } from './support/publish-window';
import {
  DELAY_KINDS,
  carriesProbe,
  proveDelivery,
  readinessProofSkipped,
} from './support/readiness';

// ---- the gateway as an ordinary device (and any device on the MQTT device API:
// steps/mqtt-device.steps.ts) -----

When(
  /^the (?:gateway|MQTT device) "([^"]*)" publishes its own telemetry (.+)$/,
  async function (this: IotcWorld, gateway: string, payload: string) {
    const before = Date.now();
    const { driver } = this.gateway(gateway);
    // the PUBACK awaited for a quiet window, then pending (support/publish-window.ts); the window a
    // server timestamp must lie in (`server` in a telemetry table, steps/telemetry.steps.ts) ends
    // with the PUBACK
    await publishWithinWindow(
      this,
      DEVICE_TOPICS.telemetry,
      driver.connection,
      () => driver.device.sendTelemetry(payload),
      () => this.sentWindows.set(gateway, { start: before, end: Date.now() }),
    );
  },
);

When(
  /^the (?:gateway|MQTT device) "([^"]*)" publishes its own client attributes (.+)$/,
  async function (this: IotcWorld, gateway: string, payload: string) {
    this.lastPublish = await this.gateway(gateway).driver.device.sendAttributes(payload);
  },
);

When(
  /^the (?:gateway|MQTT device) "([^"]*)" subscribes to its own shared attribute updates$/,
  async function (this: IotcWorld, gateway: string) {
    const updates: Array<Record<string, unknown>> = [];
    await this.gateway(gateway).driver.device.onSharedAttributes((update) => updates.push(update));
    this.ownSharedUpdates.set(gateway, updates);
  },
);

Then(
  /^the (?:gateway|MQTT device) "([^"]*)" receives its own shared attribute update (.+)$/,
  async function (this: IotcWorld, gateway: string, expected: string) {
    const updates = this.ownSharedUpdates.get(gateway);
    assert.ok(updates, 'the gateway has not subscribed to its own shared attribute updates');
    const wanted = JSON.parse(expected) as Record<string, unknown>;
    await this.eventually(() => {
      assert.ok(
        updates.some((update) =>
          Object.entries(wanted).every(([key, value]) => jsonEqual(update[key], value)),
        ),
        `the gateway received ${JSON.stringify(updates)} on v1/devices/me/attributes, expected ${expected}`,
      );
    });
  },
);

/**
 * The positive control before an update under test (steps/support/readiness.ts): the SUBACK of
 * v1/devices/me/attributes comes before ThingsBoard's device actor has the subscription, and an
 * update in between is dropped. Probe updates are set until one arrives on the subscription; the
 * delay is recorded.
 */
Then(
  /^the platform's attribute updates are proven to reach the (?:gateway|MQTT device) "([^"]*)" on its own subscription$/,
  async function (this: IotcWorld, local: string) {
    const updates = this.ownSharedUpdates.get(local);
    assert.ok(updates, `"${local}" has not subscribed to its own shared attribute updates`);
    if (readinessProofSkipped()) return;
    await proveDelivery(
      this,
      local,
      `the platform's attribute updates reach ${local} on v1/devices/me/attributes`,
      DELAY_KINDS.deviceUpdate,
      (value) => updates.some((update) => carriesProbe(update, value)),
      () => updates,
    );
  },
);

When(
  /^the (?:gateway|MQTT device) "([^"]*)" answers its own RPCs with (.+)$/,
  async function (this: IotcWorld, gateway: string, reply: string) {
    // every request is kept, in order, so that a scenario can count them
    // (steps/mqtt-device.steps.ts)
    const requests: DeviceRpcRequest[] = [];
    await this.gateway(gateway).driver.device.handleRpc((request) => {
      requests.push(request);
      return JSON.parse(reply) as unknown;
    });
    this.ownRpcRequests.set(gateway, requests);
  },
);

// ---- the tenant's device limit (tenant-limits capability: it changes the tenant profile, so never
// on staging) ----

Given(
  "the tenant's device limit allows {int} more device(s)",
  async function (this: IotcWorld, room: number) {
    await limitDevices(this, room);
  },
);

/**
 * Sets the tenant's device limit to the current device count plus `room`; restored after the
 * scenario.
 */
async function limitDevices(world: IotcWorld, room: number): Promise<void> {
  const { target, admin } = world.run;
  assert.ok(
    target.sysAdmin,
    'the tenant-limits capability needs platform.sysAdmin credentials in the target profile',
  );
  // the system administrator's login and the profile's read beside the tenant's device count: a
  // remote target's round trips in a phase no other device scenario may overlap
  const counted = admin.listDevices(0, undefined, 1);
  counted.catch(() => undefined); // awaited below, after the session is in the cleanups
  const sysadmin = await AdminClient.login(target.adminUrl, target.sysAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
  });
  world.cleanups.push({ what: 'system administrator session', undo: () => sysadmin.close() });
  const [profile, devices] = await Promise.all([sysadmin.defaultTenantProfile(), counted]);
  // the same object as `profile`: the new limit is set in it, and it is saved whole
  const read = recordOf(tenantProfileSchema, profile, 'default tenant profile');
  const { configuration } = read.profileData;
  const previous = configuration.maxDevices ?? 0;
  const profileId = read.id.id;
  // journaled before the change: a run killed now still has `iotc cleanup` put the limit back
  world.run.journal.changingSetting({
    setting: 'tenantProfile.maxDevices',
    id: profileId,
    previous,
  });
  configuration.maxDevices = devices.totalElements + room;
  await sysadmin.saveTenantProfile(profile);
  world.cleanups.push({
    what: "the tenant's device limit",
    undo: async () => {
      configuration.maxDevices = previous;
      await sysadmin.saveTenantProfile(profile);
      world.run.journal.restoredSetting('tenantProfile.maxDevices', profileId);
    },
  });
}

// ---- authentication
// -------------------------------------------------------------------------------------------

When(
  'a gateway connects over MQTT {mqttVersion} with the access token {string}',
  async function (this: IotcWorld, version: MqttVersion, token: string) {
    try {
      const connection = await MqttConnection.open({
        url: mqttUrl(this),
        token,
        protocolVersion: version,
        connectTimeoutMs: this.run.target.timeouts.requestMs,
        recorder: this.exchanges.record,
      });
      this.cleanups.push({
        what: 'MQTT connection',
        connection: true,
        undo: () => connection.close(),
      });
      this.mqttConnectOutcome = { accepted: true };
    } catch (error) {
      if (!(error instanceof MqttConnectRefusedError)) throw error;
      this.mqttConnectOutcome = { accepted: false, reasonCode: error.refusal.code };
    }
  },
);

Then('the MQTT connection is refused', function (this: IotcWorld) {
  const outcome = this.mqttConnectOutcome;
  assert.ok(outcome, 'the MQTT connection was not attempted');
  assert.equal(outcome.accepted, false, 'the MQTT connection was accepted');
});

Then('the gateway {string} is still connected', function (this: IotcWorld, gateway: string) {
  assert.equal(
    this.gateway(gateway).driver.connection.closed,
    false,
    'the platform closed the gateway connection',
  );
});
