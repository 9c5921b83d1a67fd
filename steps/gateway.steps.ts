/**
 * The MQTT gateway API: a simulated gateway (simulators/gateway) connects devices, publishes their data and answers
 * their RPCs; the effects are read back through the admin API. Device names in payloads are written `{{local}}`
 * and become the run's prefixed names (journaled before the platform can create them).
 */
import assert from 'node:assert/strict';
import { Given, Then, When, defineParameterType } from '@cucumber/cucumber';
import {
  MqttConnectRefusedError,
  MqttConnection,
  isFailure,
  type MqttVersion,
} from '../simulators/device/mqtt-connection';
import type { DeviceRpcRequest } from '../simulators/device/mqtt-device';
import {
  GATEWAY_TOPICS,
  type AttributeResponse,
  type GatewayRpcRequest,
} from '../simulators/gateway/mqtt-gateway';
import { jsonEqual, parseLossless, toPlain } from '../src/kv/values';
import { AdminClient, type AdminResponse } from '../src/admin-client';
import type { IotcWorld } from './world';
import { connectGateway, connectPlainDevice, mqttUrl } from './support/gateway';
import { sameJson } from './support/expectations';

defineParameterType({
  name: 'mqttVersion',
  regexp: /3\.1\.1|5/,
  transformer: (text: string): MqttVersion => (text === '5' ? 5 : 4),
});

/** `{{local}}` → the platform name of that device (journaled: the platform may create it). */
function withDeviceNames(world: IotcWorld, text: string): string {
  return text.replace(/\{\{([^}]+)\}\}/g, (_match, local: string) =>
    world.platformCreatedDevice(local.trim()),
  );
}

/** Creates a gateway device (additionalInfo.gateway = true) and connects it at `url`. */
async function startGateway(
  world: IotcWorld,
  local: string,
  version: MqttVersion,
  url: string,
): Promise<void> {
  const name = world.unique(local);
  const record = await world.track(
    'device',
    name,
    () => world.run.admin.createDevice(name, { additionalInfo: { gateway: true } }),
    (device) => world.run.admin.deleteDevice(device.id),
  );
  const device = await world.adoptDevice(local, record);
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
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.telemetry, {
      raw: `{${name}:${entries}}`,
    });
    this.ids.set(`sent-window:${local}`, `${before}:${Date.now()}`);
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
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.claim, {
      raw: `{${name}:${claim}}`,
    });
    this.ids.set(`claim-acknowledged:${local}`, String(Date.now()));
  },
);

Then('the PUBACK reports success', function (this: IotcWorld) {
  const outcome = this.lastPublish;
  assert.ok(outcome, 'nothing was published in this scenario');
  assert.equal(outcome.result, 'acked', `the publish on ${outcome.topic} ended ${outcome.result}`);
  assert.ok(
    !isFailure(outcome),
    `the PUBACK of ${outcome.topic} carries the failure code 0x${outcome.reasonCode?.toString(16)} ${outcome.reasonString ?? ''}`,
  );
});

Then('the PUBACK carries a failure reason code', function (this: IotcWorld) {
  const outcome = this.lastPublish;
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
  function (this: IotcWorld) {
    const outcome = this.lastPublish;
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

// ---- devices and profiles as the platform holds them ----------------------------------------------------------

Then(
  'the platform eventually holds a device {string} of the profile {string}',
  async function (this: IotcWorld, local: string, profile: string) {
    const name = this.platformCreatedDevice(local);
    const expectedProfile = profile === 'default' ? 'default' : this.unique(profile);
    const record = await this.eventually(async () => {
      const found = await this.run.admin.findDeviceByName(name);
      assert.ok(found, `no device ${name} on the platform`);
      return found;
    });
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

// ---- attribute requests ---------------------------------------------------------------------------------------

When(
  /^the gateway "([^"]*)" requests attributes of "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, request: string) {
    const fields = JSON.parse(request) as Record<string, unknown>;
    const answer = await this.gateway(gateway).driver.requestAttributes({
      device: this.platformCreatedDevice(local),
      ...fields,
    } as never);
    this.lastPublish = answer.publish;
    this.pending.set(`attribute-response:${gateway}`, Promise.resolve(answer.response));
  },
);

Then(
  /^the gateway "([^"]*)" receives on v1\/gateway\/attributes\/response an answer with the id of its request for "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, local: string) {
    const response = (await this.pending.get(`attribute-response:${gateway}`)) as
      | AttributeResponse
      | undefined;
    assert.ok(response, 'the gateway sent no attribute request');
    assert.equal(
      typeof response.id,
      'number',
      `the answer ${this.redact(response.raw)} has no integer id`,
    );
    if (response.device !== undefined)
      assert.equal(response.device, this.device(local).record.name);
  },
);

async function attributeAnswer(world: IotcWorld, gateway: string): Promise<AttributeResponse> {
  const response = (await world.pending.get(`attribute-response:${gateway}`)) as
    | AttributeResponse
    | undefined;
  assert.ok(response, 'the gateway sent no attribute request');
  return response;
}

/**
 * The attributes an answer carries, by key. The answer's payload is not fixed by interfaces.md (GW-ATTRREQ-03), so
 * the shapes in use are read, and only where they put attributes: members of `client` and `shared` (the device API's
 * shape, which the reference answers to interfaces.md's request), members of `values`, or `value` (ThingsBoard's
 * answer to a request for one key, `valueKey` being that key). Never a member at any depth.
 */
function answeredAttributes(
  document: Record<string, unknown>,
  valueKey: string | undefined,
): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const member of ['client', 'shared', 'values']) {
    const scope = document[member];
    if (scope && typeof scope === 'object' && !Array.isArray(scope))
      for (const [key, value] of Object.entries(scope)) found.set(key, value);
  }
  if (valueKey !== undefined && Object.hasOwn(document, 'value'))
    found.set(valueKey, document.value);
  return found;
}

Then(
  /^the gateway's attribute answer for "([^"]*)" holds (?!no attribute )(.+)$/,
  async function (this: IotcWorld, gateway: string, expected: string) {
    const response = await attributeAnswer(this, gateway);
    const wanted = Object.entries(JSON.parse(expected) as Record<string, unknown>);
    const found = answeredAttributes(
      toPlain(parseLossless(response.raw)) as Record<string, unknown>,
      wanted.length === 1 ? wanted[0]![0] : undefined,
    );
    for (const [key, value] of wanted) {
      assert.ok(
        found.has(key) && jsonEqual(found.get(key), value),
        `the answer ${this.redact(response.raw)} does not hold ${key} = ${JSON.stringify(value)}`,
      );
    }
  },
);

Then(
  /^the gateway's attribute answer for "([^"]*)" holds no attribute "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, key: string) {
    const response = await attributeAnswer(this, gateway);
    const found = answeredAttributes(
      toPlain(parseLossless(response.raw)) as Record<string, unknown>,
      undefined,
    );
    assert.ok(
      !found.has(key),
      `the answer ${this.redact(response.raw)} holds ${key}, which was not requested`,
    );
  },
);

// ---- downlink: shared attribute updates and RPC ---------------------------------------------------------------

Then(
  /^the gateway "([^"]*)" receives an attribute update for "([^"]*)" with (?!exactly )(.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, expected: string) {
    const name = this.device(local).record.name;
    const wanted = JSON.parse(expected) as Record<string, unknown>;
    const matches = (data: Record<string, unknown>) =>
      Object.entries(wanted).every(([key, value]) => jsonEqual(data[key], value));
    const driver = this.gateway(gateway).driver;
    const seen = driver.attributeUpdates.find(
      (update) => update.device === name && matches(update.data),
    );
    const update =
      seen ??
      (await driver.nextAttributeUpdate(name, this.run.target.timeouts.eventuallyMs, (candidate) =>
        matches(candidate.data),
      ));
    assert.ok(
      update,
      `no update of ${JSON.stringify(wanted)} for ${local} reached the gateway; it received ${JSON.stringify(driver.attributeUpdates.map((u) => u.data))}`,
    );
    this.ids.set(`update-seen:${gateway}`, String(driver.attributeUpdates.indexOf(update)));
  },
);

Then(
  /^the gateway "([^"]*)" receives an attribute update for "([^"]*)" with exactly (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, expected: string) {
    const name = this.device(local).record.name;
    const driver = this.gateway(gateway).driver;
    // the update this step waits for is the first for the device after the one the scenario awaited before
    const seen = Number(this.ids.get(`update-seen:${gateway}`) ?? -1);
    const update =
      driver.attributeUpdates.find(
        (candidate, index) => index > seen && candidate.device === name,
      ) ?? (await driver.nextAttributeUpdate(name, this.run.target.timeouts.eventuallyMs));
    assert.ok(
      update,
      `no further update for ${local} reached the gateway; it received ${JSON.stringify(driver.attributeUpdates.map((u) => u.data))}`,
    );
    assert.ok(
      sameJson((parseLossless(update.raw) as { data?: unknown }).data, expected),
      `the update for ${local} carries ${JSON.stringify(update.data)}, expected exactly ${expected}`,
    );
    this.ids.set(`update-seen:${gateway}`, String(driver.attributeUpdates.indexOf(update)));
  },
);

/**
 * Counts the updates of a device that arrived before the latest one this scenario waited for: one connection
 * delivers in order, so a duplicate of an earlier update can only come before that later one.
 */
Then(
  /^before it, the gateway "([^"]*)" received exactly (\d+) attribute updates? for "([^"]*)"$/,
  function (this: IotcWorld, gateway: string, count: string, local: string) {
    const name = this.device(local).record.name;
    const driver = this.gateway(gateway).driver;
    const seen = Number(this.ids.get(`update-seen:${gateway}`) ?? -1);
    assert.ok(seen >= 0, 'no attribute update was awaited before');
    const before = driver.attributeUpdates
      .slice(0, seen)
      .filter((update) => update.device === name);
    assert.equal(
      before.length,
      Number(count),
      `the gateway received ${before.length} updates for ${local} before the latest: ${JSON.stringify(before.map((u) => u.data))}`,
    );
  },
);

/**
 * A positive control stands in for a fixed "nothing arrives" window: the step follows the arrival of an update or
 * RPC that the platform was asked for after the one that must not arrive, on the same connection.
 */
Then(
  /^before that, the gateway "([^"]*)" received no attribute update for "([^"]*)"$/,
  function (this: IotcWorld, gateway: string, local: string) {
    const name = this.device(local).record.name;
    const update = this.gateway(gateway).driver.attributeUpdates.find((u) => u.device === name);
    assert.equal(
      update,
      undefined,
      `an update for ${local} reached the gateway: ${JSON.stringify(update?.data)}`,
    );
  },
);

Then(
  /^before that, the gateway "([^"]*)" received no RPC for "([^"]*)"$/,
  function (this: IotcWorld, gateway: string, local: string) {
    const name = this.device(local).record.name;
    const request = this.gateway(gateway).driver.rpcRequests.find((r) => r.device === name);
    assert.equal(
      request,
      undefined,
      `an RPC for ${local} reached the gateway: ${JSON.stringify(request)}`,
    );
  },
);

Then(
  /^the gateway "([^"]*)" received the RPC "([^"]*)" for "([^"]*)" exactly once$/,
  function (this: IotcWorld, gateway: string, method: string, local: string) {
    const name = this.device(local).record.name;
    const copies = this.gateway(gateway).driver.rpcRequests.filter(
      (request) => request.device === name && request.method === method,
    );
    assert.equal(
      copies.length,
      1,
      `the RPC ${method} for ${local} reached the gateway ${copies.length} times: ${JSON.stringify(copies)}`,
    );
  },
);

async function receivedRpc(
  world: IotcWorld,
  gateway: string,
  local: string,
  timeoutMs: number,
): Promise<GatewayRpcRequest | undefined> {
  const name = world.device(local).record.name;
  const driver = world.gateway(gateway).driver;
  const taken = new Set((world.ids.get(`rpc-taken:${gateway}`) ?? '').split(',').filter(Boolean));
  const fresh = (request: GatewayRpcRequest) =>
    request.device === name && !taken.has(`${name}#${request.id}`);
  const request = driver.rpcRequests.find(fresh) ?? (await driver.nextRpcRequest(name, timeoutMs));
  if (request) world.ids.set(`rpc-taken:${gateway}`, [...taken, `${name}#${request.id}`].join(','));
  return request;
}

Then(
  /^the gateway "([^"]*)" receives the RPC "([^"]*)" with params (.+) for "([^"]*)"$/,
  async function (this: IotcWorld, gateway: string, method: string, params: string, local: string) {
    const request = await receivedRpc(this, gateway, local, this.run.target.timeouts.eventuallyMs);
    assert.ok(request, `no RPC for ${local} reached the gateway on v1/gateway/rpc`);
    assert.equal(request.method, method);
    assert.ok(Number.isInteger(request.id), `the RPC id ${String(request.id)} is not an integer`);
    assert.ok(
      jsonEqual(request.params, JSON.parse(params)),
      `the RPC params are ${JSON.stringify(request.params)}, expected ${params}`,
    );
    this.ids.set(`gateway-rpc-id:${local}`, String(request.id));
    this.ids.set(`gateway-rpc-id:${local}:${method}`, String(request.id));
  },
);

When(
  /^the gateway "([^"]*)" replies to the RPC "([^"]*)" for "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, method: string, local: string, reply: string) {
    const id = this.ids.get(`gateway-rpc-id:${local}:${method}`);
    assert.ok(id, `the gateway has received no RPC ${method} for ${local}`);
    const name = JSON.stringify(this.device(local).record.name);
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.rpc, {
      raw: `{"device":${name},"id":${id},"data":${reply}}`,
    });
  },
);

Then(
  /^the platform's RPC call "([^"]*)" to "([^"]*)" answers (\d+) with (.+)$/,
  async function (
    this: IotcWorld,
    method: string,
    local: string,
    status: string,
    expected: string,
  ) {
    const answer = (await this.pending.get(`rpc-call:${local}:${method}`)) as
      | AdminResponse
      | undefined;
    assert.ok(answer, `the platform sent no RPC ${method}`);
    assert.equal(answer.status, Number(status), `the RPC call answered ${this.shown(answer)}`);
    assert.ok(
      sameJson(answer.json, expected),
      `the RPC call ${method} answered ${this.shown(answer)}, expected ${expected}`,
    );
  },
);

Then(
  "the platform's RPC call to {string} ends without an answer",
  async function (this: IotcWorld, local: string) {
    const answer = (await this.pending.get(`rpc-call:${local}`)) as AdminResponse | undefined;
    assert.ok(answer, 'the platform sent no RPC');
    assert.ok(answer.status >= 400, `the RPC call answered ${this.shown(answer)}`);
  },
);

When(
  /^the gateway "([^"]*)" replies to that RPC for "([^"]*)" with (.+)$/,
  async function (this: IotcWorld, gateway: string, local: string, reply: string) {
    const id = this.ids.get(`gateway-rpc-id:${local}`);
    assert.ok(id, `the gateway has received no RPC for ${local}`);
    const deviceName = this.device(local).record.name;
    // a reply naming a device the platform no longer has creates it again: journaled before it can happen
    this.run.journal.intend('device', deviceName);
    this.cleanups.push({
      what: `device ${deviceName} (an RPC reply may have created it again)`,
      undo: async () => {
        const record = await this.run.admin.findDeviceByName(deviceName);
        if (record) await this.run.admin.deleteDevice(record.id);
        this.run.journal.deleted('device', deviceName, record?.id);
      },
    });
    const name = JSON.stringify(deviceName);
    this.lastPublish = await this.gateway(gateway).driver.publish(GATEWAY_TOPICS.rpc, {
      raw: `{"device":${name},"id":${id},"data":${reply}}`,
    });
  },
);

When(
  /^the platform sends a two-way RPC "([^"]*)" with a timeout of (\d+) ms and params (.+) to "([^"]*)"$/,
  function (this: IotcWorld, method: string, timeout: string, params: string, local: string) {
    const device = this.device(local);
    const call = this.run.admin.rpc(device.record.id, 'twoway', {
      method,
      params: JSON.parse(params),
      timeout: Number(timeout),
    });
    this.pending.set(`rpc-call:${local}`, call);
    this.pending.set(`rpc-call:${local}:${method}`, call);
  },
);

// ---- the gateway as an ordinary device (and any device on the MQTT device API: steps/mqtt-device.steps.ts) -----

When(
  /^the (?:gateway|MQTT device) "([^"]*)" publishes its own telemetry (.+)$/,
  async function (this: IotcWorld, gateway: string, payload: string) {
    const before = Date.now();
    this.lastPublish = await this.gateway(gateway).driver.device.sendTelemetry(payload);
    // the window a server timestamp must lie in (`server` in a telemetry table, steps/telemetry.steps.ts)
    this.ids.set(`sent-window:${gateway}`, `${before}:${Date.now()}`);
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
    this.pending.set(`own-updates:${gateway}`, Promise.resolve(updates));
  },
);

Then(
  /^the (?:gateway|MQTT device) "([^"]*)" receives its own shared attribute update (.+)$/,
  async function (this: IotcWorld, gateway: string, expected: string) {
    const updates = (await this.pending.get(`own-updates:${gateway}`)) as
      | Array<Record<string, unknown>>
      | undefined;
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

When(
  /^the (?:gateway|MQTT device) "([^"]*)" answers its own RPCs with (.+)$/,
  async function (this: IotcWorld, gateway: string, reply: string) {
    // every request is kept, in order, so that a scenario can count them (steps/mqtt-device.steps.ts)
    const requests: DeviceRpcRequest[] = [];
    await this.gateway(gateway).driver.device.handleRpc((request) => {
      requests.push(request);
      return JSON.parse(reply) as unknown;
    });
    this.pending.set(`own-rpcs:${gateway}`, Promise.resolve(requests));
  },
);

// ---- the tenant's device limit (tenant-limits capability: it changes the tenant profile, so never on staging) ----

Given("the tenant's device limit is reached", async function (this: IotcWorld) {
  await limitDevices(this, 0);
});

Given(
  "the tenant's device limit allows {int} more device(s)",
  async function (this: IotcWorld, room: number) {
    await limitDevices(this, room);
  },
);

/** Sets the tenant's device limit to the current device count plus `room`; restored after the scenario. */
async function limitDevices(world: IotcWorld, room: number): Promise<void> {
  const { target, admin } = world.run;
  assert.ok(
    target.sysAdmin,
    'the tenant-limits capability needs platform.sysAdmin credentials in the target profile',
  );
  const sysadmin = await AdminClient.login(target.adminUrl, target.sysAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
  });
  world.cleanups.push({ what: 'system administrator session', undo: () => sysadmin.close() });
  const profile = await sysadmin.defaultTenantProfile();
  const configuration = (profile.profileData as { configuration: { maxDevices?: number } })
    .configuration;
  const previous = configuration.maxDevices ?? 0;
  const profileId = String((profile.id as { id?: string }).id);
  // journaled before the change: a run killed now still has `iotc cleanup` put the limit back
  world.run.journal.changingSetting({
    setting: 'tenantProfile.maxDevices',
    id: profileId,
    previous,
  });
  configuration.maxDevices = (await admin.listDevices(0, undefined, 1)).totalElements + room;
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

// ---- authentication -------------------------------------------------------------------------------------------

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
      this.cleanups.push({ what: 'MQTT connection', undo: () => connection.close() });
      this.ids.set('mqtt-connect', 'accepted');
    } catch (error) {
      if (!(error instanceof MqttConnectRefusedError)) throw error;
      this.ids.set('mqtt-connect', `refused ${error.refusal.code}`);
    }
  },
);

Then('the MQTT connection is refused', function (this: IotcWorld) {
  const outcome = this.ids.get('mqtt-connect');
  assert.ok(
    outcome?.startsWith('refused'),
    `the MQTT connection was ${outcome ?? 'not attempted'}`,
  );
});

Then('the gateway {string} is still connected', function (this: IotcWorld, gateway: string) {
  assert.equal(
    this.gateway(gateway).driver.connection.closed,
    false,
    'the platform closed the gateway connection',
  );
});
