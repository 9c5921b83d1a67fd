/**
 * The MQTT device API as ThingsBoard 4.3 serves it to its own SDKs (issue 12): RPC replies of any
 * payload, getSessionLimits answered by the transport, firmware over v2/fw, provisioning sessions,
 * gateway telemetry elements, QoS 2 and wildcard topic names. Raw packets (raw-mqtt-client.ts)
 * where the exact answer matters, the admin API to read every effect back. Each platform is started
 * and closed by the test that needs it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Packet } from 'mqtt-packet';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { AdminClient } from '../../src/admin-client';
import { RawClient, type Version } from './raw-mqtt-client';

type Answer = Packet & {
  reasonCode?: number;
  messageId?: number;
  topic?: string;
  payload?: Buffer;
};

let spec: RunningPlatform;
let thingsboard: RunningPlatform;
let specAdmin: AdminClient;
let thingsboardAdmin: AdminClient;

async function tenantAdmin(running: RunningPlatform): Promise<AdminClient> {
  return AdminClient.login(
    running.httpUrl,
    running.demo.users.find((user) => user.authority === 'TENANT_ADMIN')!,
  );
}

before(async () => {
  spec = await startPlatform({ httpPort: 0, mqttPort: 0 });
  thingsboard = await startPlatform({ httpPort: 0, mqttPort: 0, quirks: 'thingsboard-4.3' });
  specAdmin = await tenantAdmin(spec);
  thingsboardAdmin = await tenantAdmin(thingsboard);
});

after(async () => {
  await specAdmin.close();
  await thingsboardAdmin.close();
  await spec.close();
  await thingsboard.close();
});

function mqttPort(running: RunningPlatform): number {
  return Number(new URL(running.mqttUrl!).port);
}

/** A raw client connected as `user` (a token, or `provision`); closed after the test. */
async function session(
  t: { after(fn: () => void): void },
  running: RunningPlatform,
  version: Version,
  user: string,
): Promise<RawClient> {
  const client = await RawClient.open(mqttPort(running), version);
  t.after(() => client.close());
  const connack = (await client.connect(user)) as Answer & { returnCode?: number };
  assert.equal(version === 5 ? connack.reasonCode : connack.returnCode, 0, `CONNACK of ${user}`);
  return client;
}

/** A new device and its token, created through the admin API. */
async function newDevice(admin: AdminClient, name: string): Promise<{ id: string; token: string }> {
  const record = await admin.createDevice(`${name}-${Date.now()}-${Math.random()}`);
  return { id: record.id, token: await admin.getDeviceCredentials(record.id) };
}

function json(packet: Answer): unknown {
  return JSON.parse(packet.payload!.toString('utf8'));
}

// ---- item 1: RPC replies of any payload
// ------------------------------------------------------------------------

test('an empty or non-JSON RPC reply is accepted on both versions: the REST caller gets 200 with no body, or 406', async (t) => {
  for (const version of [4, 5] as const) {
    const device = await newDevice(specAdmin, `rpc-reply-v${version}`);
    const client = await session(t, spec, version, device.token);
    await client.subscribe([{ topic: 'v1/devices/me/rpc/request/+', qos: 1 }]);
    for (const [reply, status, body] of [
      ['', 200, ''],
      ['ok', 406, undefined],
    ] as const) {
      const call = specAdmin.rpc(device.id, 'twoway', { method: 'reboot', timeout: 10_000 });
      const request = (await client.next('publish')) as Answer;
      const id = request.topic!.split('/').pop()!;
      client.send({ cmd: 'puback', messageId: request.messageId });
      await client.publish(`v1/devices/me/rpc/response/${id}`, reply, 7);
      const ack = (await client.next('puback')) as Answer;
      if (version === 5) assert.equal(ack.reasonCode, 0, `v5 PUBACK of the reply ${reply}`);
      const answer = await call;
      assert.equal(answer.status, status, `v${version} reply ${JSON.stringify(reply)}`);
      if (body !== undefined) assert.equal(answer.text, body);
    }
    assert.equal(client.closed, false, `v${version}: the session stays open`);
  }
});

// ---- item 2: getSessionLimits
// --------------------------------------------------------------------------------

test('getSessionLimits is answered by the transport, with gatewayRateLimits for a gateway; other methods reach the handler', async (t) => {
  const device = await newDevice(specAdmin, 'limits');
  for (const [token, gateway] of [
    [device.token, false],
    [spec.demo.gatewayToken, true],
  ] as const) {
    const client = await session(t, spec, 5, token);
    await client.publish(
      'v1/devices/me/rpc/request/1',
      '{"method":"getSessionLimits","params":{"timeout":5000}}',
      3,
    );
    assert.equal(((await client.next('puback')) as Answer).reasonCode, 0);
    const answer = (await client.next('publish')) as Answer;
    assert.equal(answer.topic, 'v1/devices/me/rpc/response/1');
    const noLimits = { messages: null, telemetryMessages: null, telemetryDataPoints: null };
    assert.deepEqual(json(answer), {
      maxPayloadSize: 65536,
      maxInflightMessages: 100,
      rateLimits: noLimits,
      ...(gateway ? { gatewayRateLimits: noLimits } : {}),
    });
  }
  const client = await session(t, spec, 5, device.token);
  await client.publish('v1/devices/me/rpc/request/2', '{"method":"ping","params":{}}', 4);
  const echoed = (await client.next('publish')) as Answer;
  assert.deepEqual(json(echoed), { method: 'ping', params: {} }, 'another method: the handler');
});

// ---- item 3: firmware over MQTT
// ------------------------------------------------------------------------------

test('firmware over MQTT: chunks of the assigned package on v2/fw/response/{id}/chunk/{n}; without one NOT_FOUND on v2/fw/error and the session ends', async (t) => {
  const device = await newDevice(specAdmin, 'fw-mqtt');
  const record = await specAdmin.getDevice(device.id);
  const profile = record.raw.deviceProfileId as { id: string };
  const data = Buffer.from('firmware-bytes-0123456789-abcdefghij');
  const firmware = await specAdmin.createFirmware({
    title: `fw-${Date.now()}`,
    version: '2.0',
    deviceProfileId: profile.id,
    data,
  });
  await specAdmin.saveDevice({
    ...record.raw,
    firmwareId: { entityType: 'OTA_PACKAGE', id: firmware.id },
  });
  const client = await session(t, spec, 5, device.token);
  const granted = await client.subscribe([
    { topic: 'v2/fw/response/+/chunk/+', qos: 1 },
    { topic: 'v2/fw/error', qos: 1 },
    { topic: 'v2/fw/response/+', qos: 1 },
  ]);
  assert.deepEqual(
    granted,
    [1, 1, 0x8f],
    'the SDK filter v2/fw/response/+ is refused, as ThingsBoard',
  );
  const received: Buffer[] = [];
  for (let chunk = 0; ; chunk++) {
    await client.publish(`v2/fw/request/7/chunk/${chunk}`, chunk === 0 ? '16' : '', 10 + chunk);
    assert.equal(((await client.next('puback')) as Answer).reasonCode, 0);
    const part = (await client.next('publish')) as Answer;
    assert.equal(part.topic, `v2/fw/response/7/chunk/${chunk}`);
    if (part.payload!.length === 0) break;
    received.push(part.payload!);
  }
  assert.equal(received.length, 3, 'three chunks of 16 bytes at most (the size given once)');
  assert.equal(
    createHash('sha256').update(Buffer.concat(received)).digest('hex'),
    createHash('sha256').update(data).digest('hex'),
  );

  const without = await newDevice(specAdmin, 'fw-none');
  const lonely = await session(t, spec, 5, without.token);
  await lonely.publish('v2/fw/request/1/chunk/0', '', 1);
  const error = (await lonely.next('publish')) as Answer;
  assert.equal(error.topic, 'v2/fw/error');
  assert.equal(error.payload!.toString(), 'NOT_FOUND');
  assert.equal(((await lonely.next('disconnect')) as Answer).reasonCode, 0x83);
  assert.ok(await lonely.whenClosed());
});

// ---- item 4: provisioning over MQTT
// --------------------------------------------------------------------------

test('provisioning over MQTT: user name provision, /provision/request answered on /provision/response as over HTTP', async (t) => {
  const key = `key-${Date.now()}`;
  await specAdmin.createDeviceProfile({
    name: `prov-mqtt-${Date.now()}`,
    provisionType: 'ALLOW_CREATE_NEW_DEVICES',
    provisionDeviceKey: key,
    provisionDeviceSecret: 'secret',
  });
  const name = `provisioned-${Date.now()}`;
  for (const [request, status] of [
    [{ deviceName: name, provisionDeviceKey: key, provisionDeviceSecret: 'secret' }, 'SUCCESS'],
    [{ deviceName: name, provisionDeviceKey: key, provisionDeviceSecret: 'secret' }, 'FAILURE'],
    [{ deviceName: name, provisionDeviceKey: key, provisionDeviceSecret: 'wrong' }, 'NOT_FOUND'],
  ] as const) {
    for (const version of [4, 5] as const) {
      if (status === 'SUCCESS' && version === 5) continue; // one device, created once
      const client = await session(t, spec, version, 'provision');
      await client.publish('/provision/request', JSON.stringify(request), 1);
      await client.next('puback');
      const answer = (await client.next('publish')) as Answer;
      assert.equal(answer.topic, '/provision/response');
      const document = json(answer) as { status: string; credentialsValue?: string };
      assert.equal(document.status, status, `v${version} ${status}`);
      if (status === 'SUCCESS') {
        const created = await specAdmin.findDeviceByName(name);
        assert.ok(created, 'the device exists');
        assert.equal(await specAdmin.getDeviceCredentials(created.id), document.credentialsValue);
      }
    }
  }
  const client = await session(t, spec, 5, 'provision');
  const granted = await client.subscribe([
    { topic: '/provision/response', qos: 1 },
    { topic: 'v1/devices/me/attributes', qos: 1 },
  ]);
  assert.deepEqual(granted, [1, 0x8f], 'a provisioning session subscribes only to its answer');
  await client.publish('v1/devices/me/telemetry', '{"a":1}', 3);
  assert.equal(((await client.next('puback')) as Answer).reasonCode, 0x90);
  assert.equal(((await client.next('disconnect')) as Answer).reasonCode, 0x90);
});

// ---- items 5, 6 and 8: payload rules
// -------------------------------------------------------------------------

test('a gateway telemetry element without values: 0x99 under docs/reference/interfaces.md (values required), stored at server time in the thingsboard-4.3 mode', async (t) => {
  for (const [running, admin, expected] of [
    [spec, specAdmin, 0x99],
    [thingsboard, thingsboardAdmin, 0],
  ] as const) {
    const client = await session(t, running, 5, running.demo.gatewayToken);
    const name = `no-values-${Date.now()}`;
    await client.publish('v1/gateway/telemetry', JSON.stringify({ [name]: [{ k: 1 }] }), 5);
    assert.equal(((await client.next('puback')) as Answer).reasonCode, expected);
    const record = await admin.findDeviceByName(name);
    if (expected === 0) {
      assert.ok(record);
      const stored = (await admin.latestTelemetry(record.id, ['k'])).get('k');
      assert.deepEqual(stored?.value, { type: 'LONG', value: 1n });
    } else {
      assert.equal(record, undefined, 'nothing created');
    }
  }
});

test('members beside ts and values are ignored on the MQTT device topic as over HTTP; nulls are dropped only in the thingsboard-4.3 mode', async (t) => {
  const device = await newDevice(specAdmin, 'extra-members');
  const client = await session(t, spec, 5, device.token);
  await client.publish(
    'v1/devices/me/telemetry',
    '{"ts":1700000000000,"values":{"t":1},"metadata":{"connector":"x"}}',
    1,
  );
  assert.equal(((await client.next('puback')) as Answer).reasonCode, 0);
  const stored = await specAdmin.latestTelemetry(device.id, ['t', 'metadata']);
  assert.equal(stored.get('t')?.ts, 1700000000000);
  assert.equal(stored.get('metadata')?.value, undefined, 'the extra member is not a key');

  // what the SDK's firmware progress sends before an update is known
  const progress = '{"current_fw_title":null,"fw_state":"UPDATING"}';
  await client.publish('v1/devices/me/telemetry', progress, 2);
  assert.equal(((await client.next('puback')) as Answer).reasonCode, 0x99, 'spec: null refused');
  const quirky = await newDevice(thingsboardAdmin, 'null-progress');
  const thingsboardClient = await session(t, thingsboard, 5, quirky.token);
  await thingsboardClient.publish('v1/devices/me/telemetry', progress, 2);
  assert.equal(((await thingsboardClient.next('puback')) as Answer).reasonCode, 0);
  const kept = await thingsboardAdmin.latestTelemetry(quirky.id, ['fw_state', 'current_fw_title']);
  assert.deepEqual(kept.get('fw_state')?.value, { type: 'STRING', value: 'UPDATING' });
  assert.equal(kept.get('current_fw_title')?.value, undefined, 'the null is dropped');
});

test('an MQTT attribute request: {} is every client and shared attribute; an empty key text is a key named "" (ThingsBoard splits it), so nothing', async (t) => {
  const device = await newDevice(specAdmin, 'empty-keys');
  await specAdmin.saveAttributes(device.id, 'SHARED_SCOPE', { mode: 'eco' });
  const client = await session(t, spec, 4, device.token);
  await client.publish('v1/devices/me/attributes', '{"fw":"1.0"}', 1);
  await client.next('puback');
  for (const [id, request, expected] of [
    [5, '{}', { client: { fw: '1.0' }, shared: { mode: 'eco' } }],
    [6, '{"clientKeys":"","sharedKeys":""}', {}],
    [7, '{"sharedKeys":"mode"}', { shared: { mode: 'eco' } }],
  ] as const) {
    await client.publish(`v1/devices/me/attributes/request/${id}`, request, id);
    await client.next('puback');
    const answer = (await client.next('publish')) as Answer;
    assert.equal(answer.topic, `v1/devices/me/attributes/response/${id}`);
    assert.deepEqual(json(answer), expected, request);
  }
});

// ---- item 9: QoS 2 and wildcard topic names
// ------------------------------------------------------------------

test('QoS 2: MQTT 3.1.1 gets PUBREC (once processed, a resend is not stored twice) and PUBCOMP; MQTT 5 DISCONNECT 0x9B after the CONNACK maximum QoS 1; thingsboard-4.3 PUBACK', async (t) => {
  const device = await newDevice(specAdmin, 'qos2');
  const v3 = await session(t, spec, 4, device.token);
  const publish = (messageId: number, dup: boolean, value: number) =>
    v3.send({
      cmd: 'publish',
      topic: 'v1/devices/me/telemetry',
      payload: `{"ts":${1700000000000 + value},"values":{"n":${value}}}`,
      qos: 2,
      messageId,
      dup,
      retain: false,
    });
  publish(9, false, 1);
  assert.equal(((await v3.next('pubrec')) as Answer).messageId, 9);
  publish(9, true, 2); // the resend of message 9 (another body, so a second store would show)
  assert.equal(((await v3.next('pubrec')) as Answer).messageId, 9);
  v3.send({ cmd: 'pubrel', messageId: 9 });
  assert.equal(((await v3.next('pubcomp')) as Answer).messageId, 9);
  const history = await specAdmin.telemetryHistory(device.id, ['n'], 0, 1800000000000);
  assert.deepEqual(
    history.get('n')?.map((entry) => entry.ts),
    [1700000000001],
    'stored exactly once',
  );
  assert.equal(v3.received.filter((packet) => packet.cmd === 'puback').length, 0);

  const v5 = await session(t, spec, 5, device.token);
  v5.send({
    cmd: 'publish',
    topic: 'v1/devices/me/telemetry',
    payload: '{"x":1}',
    qos: 2,
    messageId: 3,
    dup: false,
    retain: false,
  });
  assert.equal(((await v5.next('disconnect')) as Answer).reasonCode, 0x9b);

  const quirky = await newDevice(thingsboardAdmin, 'qos2-tb');
  const tb = await session(t, thingsboard, 4, quirky.token);
  tb.send({
    cmd: 'publish',
    topic: 'v1/devices/me/telemetry',
    payload: '{"x":1}',
    qos: 2,
    messageId: 4,
    dup: false,
    retain: false,
  });
  assert.equal(((await tb.next('puback')) as Answer).messageId, 4);
});

test('a PUBLISH whose topic name holds a wildcard is malformed: 3.1.1 closed, 5 DISCONNECT 0x81; nothing acknowledged', async (t) => {
  for (const version of [4, 5] as const) {
    const client = await session(t, spec, version, spec.demo.deviceToken);
    await client.publish('v1/devices/me/+', '{"a":1}', 1);
    if (version === 5) assert.equal(((await client.next('disconnect')) as Answer).reasonCode, 0x81);
    assert.ok(await client.whenClosed(), `v${version}: closed`);
    assert.equal(client.received.filter((packet) => packet.cmd === 'puback').length, 0);
  }
});
