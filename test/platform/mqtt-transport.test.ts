/**
 * The reference MQTT transport at the socket: raw MQTT packets (mqtt-packet over net sockets) where
 * the exact reason codes matter, mqtt.js clients (the drivers) elsewhere.
 * docs/reference/platform-facts.md §4.1–§4.7 and docs/reference/interfaces.md.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Packet } from 'mqtt-packet';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { AdminClient } from '../../src/admin-client';
import { MqttConnection } from '../../simulators/device/mqtt-connection';
import { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import { RawClient, type Version } from './raw-mqtt-client';

/** A raw client connected with a token; closed after the test. */
async function rawSession(
  t: { after(fn: () => void): void },
  version: Version,
  token: string,
): Promise<RawClient> {
  const client = await RawClient.open(mqttPort(platform), version);
  t.after(() => client.close());
  const connack = await client.connect(token);
  assert.equal(version === 5 ? connack.reasonCode : connack.returnCode, 0, `CONNACK of ${token}`);
  return client;
}

type PubAck = Packet & { messageId?: number; reasonCode?: number };

let platform: RunningPlatform;
let admin: AdminClient;

function mqttPort(running: RunningPlatform): number {
  return Number(new URL(running.mqttUrl!).port);
}

async function tenantAdmin(running: RunningPlatform): Promise<AdminClient> {
  return AdminClient.login(
    running.httpUrl,
    running.demo.users.find((user) => user.authority === 'TENANT_ADMIN')!,
  );
}

before(async () => {
  platform = await startPlatform({ httpPort: 0, mqttPort: 0 });
  admin = await tenantAdmin(platform);
});

after(async () => {
  await admin.close();
  await platform.close();
});

// ---- CONNECT
// ---------------------------------------------------------------------------------------------------

test('CONNACK refusals: unknown token → v5 0x86 / v3 5; no user name but a client id → v5 0x85 / v3 2', async (t) => {
  for (const [version, unknownToken, anonymous] of [
    [5, 0x86, 0x85],
    [4, 5, 2],
  ] as const) {
    const unknown = await RawClient.open(mqttPort(platform), version);
    t.after(() => unknown.close());
    const refused = await unknown.connect('no-such-token');
    assert.equal(
      version === 5 ? refused.reasonCode : refused.returnCode,
      unknownToken,
      `v${version} unknown token`,
    );
    assert.ok(await unknown.whenClosed(), `v${version}: the refused connection closes`);

    const nobody = await RawClient.open(mqttPort(platform), version);
    t.after(() => nobody.close());
    const anonymousAnswer = await nobody.connect(undefined, 'some-client');
    assert.equal(
      version === 5 ? anonymousAnswer.reasonCode : anonymousAnswer.returnCode,
      anonymous,
      `v${version} no user name`,
    );
    assert.ok(await nobody.whenClosed());
  }
});

test('a second connection with the same token takes the session over: the older one gets DISCONNECT 0x8E', async (t) => {
  const older = await rawSession(t, 5, platform.demo.deviceToken);
  const newer = await rawSession(t, 5, platform.demo.deviceToken);
  const disconnect = (await older.next('disconnect')) as Packet & { reasonCode?: number };
  assert.equal(disconnect.reasonCode, 0x8e);
  assert.ok(await older.whenClosed(), 'the older session closes');
  newer.send({ cmd: 'pingreq' });
  await newer.next('pingresp');
});

// ---- SUBSCRIBE
// -------------------------------------------------------------------------------------------------

test('SUBACK refuses filters ThingsBoard does not allow (v5 0x8F, v3 0x80) and grants the gateway topics at QoS ≤ 1', async (t) => {
  for (const [version, refusal] of [
    [5, 0x8f],
    [4, 0x80],
  ] as const) {
    const client = await rawSession(t, version, platform.demo.gatewayToken);
    client.send({
      cmd: 'subscribe',
      messageId: 7,
      subscriptions: [
        { topic: 'v1/gateway/#', qos: 1 },
        { topic: 'v1/gateway/rpc', qos: 2 },
        { topic: 'other/topic', qos: 0 },
      ],
    });
    const suback = (await client.next('suback')) as Packet & { granted: number[] };
    assert.deepEqual(suback.granted, [refusal, 1, refusal], `v${version}`);
  }
});

// ---- PUBLISH
// ---------------------------------------------------------------------------------------------------

test('unknown topic: v5 PUBACK 0x90, v3.1.1 plain PUBACK; the session stays open', async (t) => {
  for (const topic of ['v1/gateway/nope', 'v2/elsewhere']) {
    for (const version of [5, 4] as const) {
      // one session at a time: a second one with the same token would take the first over
      const client = await rawSession(t, version, platform.demo.gatewayToken);
      await client.publish(topic, '{}', 3);
      const ack = (await client.next('puback')) as PubAck;
      assert.equal(ack.messageId, 3);
      if (version === 5) assert.equal(ack.reasonCode, 0x90, topic);
      client.send({ cmd: 'pingreq' });
      await client.next('pingresp');
      client.close();
    }
  }
});

test('malformed payload: v5 PUBACK 0x99 and the session stays open; v3.1.1 closes the connection', async (t) => {
  const v5 = await rawSession(t, 5, platform.demo.gatewayToken);
  await v5.publish('v1/gateway/telemetry', '{"x": [', 5);
  assert.equal(((await v5.next('puback')) as PubAck).reasonCode, 0x99);
  v5.send({ cmd: 'pingreq' });
  await v5.next('pingresp');

  const v3 = await rawSession(t, 4, platform.demo.gatewayToken);
  await v3.publish('v1/gateway/telemetry', '{"x": [', 6);
  assert.ok(await v3.whenClosed(), 'the 3.1.1 session is closed');
  assert.ok(!v3.received.some((packet) => packet.cmd === 'puback'), 'no PUBACK before the close');
});

test('a device that is not a gateway may not use v1/gateway/*: v5 failure PUBACK, no device created', async (t) => {
  const name = `not-a-gateway-${Date.now()}`;
  for (const version of [5, 4] as const) {
    const client = await rawSession(t, version, platform.demo.deviceToken);
    await client.publish('v1/gateway/connect', JSON.stringify({ device: name }), 8);
    const ack = (await client.next('puback')) as PubAck;
    if (version === 5)
      assert.ok((ack.reasonCode ?? 0) >= 0x80, `v5 PUBACK 0x${ack.reasonCode?.toString(16)}`);
    await client.publish(
      'v1/gateway/telemetry',
      JSON.stringify({ [name]: [{ values: { a: 1 } }] }),
      9,
    );
    await client.next('puback');
  }
  assert.equal(
    await admin.findDeviceByName(name),
    undefined,
    'the non-gateway device created a device',
  );
});

// ---- attribute requests
// ------------------------------------------------------------------------------------------

test('attribute requests: ThingsBoard shape answers value / values / neither; docs/reference/interfaces.md shape answers client and shared', async (t) => {
  const gateway = await MqttGateway.connect({
    url: platform.mqttUrl!,
    token: platform.demo.gatewayToken,
    protocolVersion: 5,
  });
  t.after(() => gateway.close());
  const name = `attr-${Date.now()}`;
  assert.equal(
    (await gateway.sendAttributes({ [name]: { fw: '1.2', count: 42, ratio: 0.5 } })).reasonCode,
    0,
  );
  const record = await admin.findDeviceByName(name);
  assert.ok(record);
  await admin.saveAttributes(record.id, 'SHARED_SCOPE', '{"period": 30, "mode": "eco"}');

  const ask = async (request: Record<string, unknown>) => {
    const { publish, response } = await gateway.requestAttributes({
      device: name,
      ...request,
    } as never);
    assert.equal(publish.reasonCode, 0);
    const { id, ...rest } = JSON.parse(response.raw) as Record<string, unknown>;
    assert.equal(typeof id, 'number');
    return rest;
  };
  assert.deepEqual(await ask({ client: true, key: 'fw' }), { device: name, value: '1.2' });
  assert.deepEqual(await ask({ client: true, keys: ['count'] }), { device: name, value: 42 });
  assert.deepEqual(await ask({ client: true, keys: ['fw', 'ratio', 'absent'] }), {
    device: name,
    values: { fw: '1.2', ratio: 0.5 },
  });
  assert.deepEqual(await ask({ client: false, keys: ['period', 'mode'] }), {
    device: name,
    values: { period: 30, mode: 'eco' },
  });
  assert.deepEqual(
    await ask({ client: false, key: 'fw' }),
    { device: name },
    'fw is client-side: nothing found in shared',
  );
  assert.deepEqual(await ask({ client: true, keys: ['absent', 'missing'] }), { device: name });
  assert.deepEqual(await ask({ client: ['fw'], shared: ['mode', 'absent'] }), {
    device: name,
    client: { fw: '1.2' },
    shared: { mode: 'eco' },
  });
  assert.deepEqual(await ask({ shared: ['period'] }), { device: name, shared: { period: 30 } });
  assert.deepEqual(await ask({}), {
    device: name,
    client: { fw: '1.2', count: 42, ratio: 0.5 },
    shared: { period: 30, mode: 'eco' },
  });
});

// ---- robustness and limits
// ---------------------------------------------------------------------------------------

test('garbage bytes end only that connection; another client keeps working', async (t) => {
  const victim = await rawSession(t, 5, platform.demo.deviceToken);
  const bystander = await MqttGateway.connect({
    url: platform.mqttUrl!,
    token: platform.demo.gatewayToken,
    protocolVersion: 5,
  });
  t.after(() => bystander.close());
  victim.socket.write(Buffer.from([0xf0, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x13, 0x37]));
  assert.ok(await victim.whenClosed(), 'the connection that sent garbage is closed');
  const name = `bystander-${Date.now()}`;
  const outcome = await bystander.sendTelemetry({
    [name]: [{ ts: 1_700_000_000_000, values: { alive: true } }],
  });
  assert.equal(outcome.result, 'acked');
  assert.equal(outcome.reasonCode, 0);
  const record = await admin.findDeviceByName(name);
  assert.ok(record);
  assert.equal(
    (await admin.latestTelemetry(record.id, ['alive'])).get('alive')?.ts,
    1_700_000_000_000,
  );
  // and the server still accepts new connections
  const later = await MqttConnection.open({
    url: platform.mqttUrl!,
    token: platform.demo.deviceToken,
    protocolVersion: 4,
  });
  await later.close();
});

test('device limit: a connect beyond maxDevices gets PUBACK 0x97 and creates nothing', async (t) => {
  // the reference starts with two devices (the demo device and the demo gateway): room for exactly
  // one more
  const limited = await startPlatform({ httpPort: 0, mqttPort: 0, maxDevices: 3 });
  const limitedAdmin = await tenantAdmin(limited);
  t.after(async () => {
    await limitedAdmin.close();
    await limited.close();
  });
  const gateway = await MqttGateway.connect({
    url: limited.mqttUrl!,
    token: limited.demo.gatewayToken,
    protocolVersion: 5,
  });
  t.after(() => gateway.close());
  assert.equal((await gateway.connectDevice('first')).reasonCode, 0);
  const refused = await gateway.connectDevice('second', 'some-type');
  assert.equal(refused.result, 'acked');
  assert.equal(refused.reasonCode, 0x97);
  assert.equal(
    await limitedAdmin.findDeviceByName('second'),
    undefined,
    'the refused connect created the device',
  );
  assert.ok(await limitedAdmin.findDeviceByName('first'));
  assert.equal(
    (await gateway.sendTelemetry({ third: [{ values: { a: 1 } }] })).reasonCode,
    0x97,
    'an implicit connect beyond the limit is refused too',
  );
  assert.equal(await limitedAdmin.findDeviceByName('third'), undefined);
  assert.equal(
    gateway.connection.closed,
    false,
    'the quota refusal does not close the gateway connection',
  );
});
