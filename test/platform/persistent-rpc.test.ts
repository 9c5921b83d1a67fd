/**
 * Persistent server-side RPC at the socket (ThingsBoard's RpcV2Controller,
 * docs/reference/platform-facts.md §8): the call answers {"rpcId"} once the RPC is stored and
 * queued, and GET /api/rpc/persistent/{rpcId} and /api/rpc/persistent/device/{deviceId} read its
 * status and the device's response back. Driven over real HTTP and MQTT, read back both raw (exact
 * shapes) and through the admin client the conformance steps use.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { RunningPlatform } from '../../simulators/platform';
import { AdminClient, AdminApiError } from '../../src/admin-client';
import { stringifyLossless } from '../../lib/kv/values';
import { call, login, newDevice, start, type Answer } from './support';
import { RawClient } from './raw-mqtt-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let platform: RunningPlatform;
let base: string;
let jwt: string;
let admin: AdminClient;

before(async () => {
  platform = await start({ minServerRpcTimeoutMs: 0, mqttPort: 0 });
  base = platform.httpUrl;
  jwt = await login(base);
  admin = await AdminClient.login(base, {
    username: 'tenant@thingsboard.org',
    password: 'tenant',
  });
});
after(async () => {
  await admin.close();
  await platform.close();
});

function persistentRpc(id: string): Promise<Answer> {
  return call(base, 'GET', `/api/rpc/persistent/${id}`, { jwt });
}

/**
 * Reads the RPC until its status is `status` (an expiry is a timer of the platform); a hang guard,
 * not a speed bound.
 */
async function untilStatus(id: string, status: string): Promise<Answer> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const answer = await persistentRpc(id);
    if (answer.json?.status === status) return answer;
    await delay(20);
  }
  assert.fail(`the persistent RPC ${id} never became ${status}`);
}

test('a persistent two-way RPC: {"rpcId"} at once, QUEUED until a poll takes it, DELIVERED, then SUCCESSFUL with the reply', async () => {
  const device = await newDevice(base, jwt, 'persistent-two-way');
  const sent = await call(base, 'POST', `/api/rpc/twoway/${device.id}`, {
    jwt,
    raw: '{"method":"getTemp","params":{"unit":"C","scale":1.0},"timeout":3000,"persistent":true,"retries":2,"additionalInfo":{"n":1.0}}',
  });
  assert.equal(sent.status, 200, sent.text);
  assert.deepEqual(Object.keys(sent.json), ['rpcId']);
  const id: string = sent.json.rpcId;
  assert.match(id, UUID);

  const queued = await persistentRpc(id);
  assert.equal(queued.status, 200, queued.text);
  const record = queued.json;
  assert.deepEqual(record.id, { entityType: 'RPC', id });
  assert.deepEqual(record.deviceId, { entityType: 'DEVICE', id: device.id });
  assert.equal(record.tenantId.entityType, 'TENANT');
  assert.equal(record.status, 'QUEUED');
  assert.equal(record.response, null);
  assert.equal(record.expirationTime - record.createdTime, 3000, 'expiry = creation + timeout');
  assert.deepEqual(record.request, {
    id,
    tenantId: record.tenantId,
    deviceId: record.deviceId,
    oneway: false,
    expirationTime: record.expirationTime,
    body: { method: 'getTemp', params: '{"unit":"C","scale":1.0}' },
    persisted: true,
    retries: 2,
  });
  assert.match(
    queued.text,
    /"additionalInfo":\{"n":1\.0\}/,
    'additionalInfo as the caller wrote it',
  );

  const poll = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=3000`);
  assert.equal(poll.status, 200);
  assert.equal(
    poll.text,
    `{"id":${poll.json.id},"method":"getTemp","params":{"unit":"C","scale":1.0}}`,
  );
  assert.equal((await persistentRpc(id)).json.status, 'DELIVERED');

  await call(base, 'POST', `/api/v1/${device.token}/rpc/${poll.json.id}`, {
    raw: '{"temp":21.0,"big":9223372036854775807}',
  });
  const answered = await persistentRpc(id);
  assert.equal(answered.json.status, 'SUCCESSFUL');
  assert.match(
    answered.text,
    /"response":\{"temp":21\.0,"big":9223372036854775807\}/,
    'the reply, lexemes kept',
  );

  // the admin client reads the same record
  const read = await admin.getPersistentRpc(id);
  assert.equal(read.id, id);
  assert.equal(read.status, 'SUCCESSFUL');
  assert.equal(stringifyLossless(read.response), '{"temp":21.0,"big":9223372036854775807}');
});

test('the admin client sends a persistent RPC and pages the device’s RPCs, oldest first, filtered by status', async () => {
  const device = await newDevice(base, jwt, 'persistent-client');
  const ids: string[] = [];
  for (const method of ['a', 'b', 'c'])
    ids.push(
      await admin.sendPersistentRpc(device.id, 'oneway', { method, params: {}, timeout: 3000 }),
    );
  assert.equal(new Set(ids).size, 3);
  // a one-way persistent RPC stays DELIVERED once taken: it has no reply to wait for
  const poll = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=3000`);
  assert.equal(poll.json.method, 'a');
  assert.equal((await admin.getPersistentRpc(ids[0])).status, 'DELIVERED');

  const first = await admin.persistentRpcsOfDevice(device.id, { pageSize: 2, page: 0 });
  assert.deepEqual(
    first.data.map((rpc) => rpc.id),
    ids.slice(0, 2),
  );
  assert.deepEqual([first.totalElements, first.hasNext], [3, true]);
  const second = await admin.persistentRpcsOfDevice(device.id, { pageSize: 2, page: 1 });
  assert.deepEqual(
    second.data.map((rpc) => rpc.id),
    ids.slice(2),
  );
  assert.equal(second.hasNext, false);
  const queued = await admin.persistentRpcsOfDevice(device.id, { status: 'QUEUED' });
  assert.deepEqual(
    queued.data.map((rpc) => rpc.id),
    ids.slice(1),
  );
  const delivered = await admin.persistentRpcsOfDevice(device.id, { status: 'DELIVERED' });
  assert.deepEqual(
    delivered.data.map((rpc) => rpc.record.request.body.method),
    ['a'],
  );
});

test('a persistent RPC never taken, or taken and never answered, ends EXPIRED', async () => {
  const device = await newDevice(base, jwt, 'persistent-expiry');
  const never = await admin.sendPersistentRpc(device.id, 'twoway', {
    method: 'never',
    timeout: 300,
  });
  assert.equal((await untilStatus(never, 'EXPIRED')).json.response, null);

  // Taken, it is DELIVERED until its expiry. On a busy machine the read can come after the expiry,
  // where EXPIRED is right: such a round proves nothing, and the next one gives the RPC a longer
  // life (bounded: 1, 4, 16 s).
  let unanswered = '';
  let poll: Answer | undefined;
  for (const timeout of [1000, 4000, 16_000]) {
    unanswered = await admin.sendPersistentRpc(device.id, 'twoway', { method: 'mute', timeout });
    poll = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=3000`);
    assert.equal(poll.json.method, 'mute');
    const taken = (await persistentRpc(unanswered)).json;
    if (Date.now() < taken.expirationTime) {
      assert.equal(taken.status, 'DELIVERED');
      break;
    }
    poll = undefined;
  }
  assert.ok(poll, 'no round read the taken RPC before its expiry');
  await untilStatus(unanswered, 'EXPIRED');
  // a reply after the expiry changes nothing
  await call(base, 'POST', `/api/v1/${device.token}/rpc/${poll.json.id}`, { raw: '{"late":true}' });
  const after = (await persistentRpc(unanswered)).json;
  assert.deepEqual([after.status, after.response], ['EXPIRED', null]);
});

test('a persistent RPC already expired is stored EXPIRED and never sent; the caller gets the timeout status', async () => {
  const device = await newDevice(base, jwt, 'persistent-expired');
  for (const [path, status] of [
    [`/api/rpc/twoway/${device.id}`, 504],
    [`/api/plugins/rpc/twoway/${device.id}`, 408],
  ] as const) {
    const sent = await call(base, 'POST', path, {
      jwt,
      body: { method: 'late', params: {}, persistent: true, expirationTime: 1 },
    });
    assert.equal(sent.status, status, path);
  }
  const stored = await admin.persistentRpcsOfDevice(device.id);
  assert.deepEqual(
    stored.data.map((rpc) => rpc.status),
    ['EXPIRED', 'EXPIRED'],
  );
  const none = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=200`);
  assert.deepEqual([none.status, none.text], [408, ''], 'nothing was queued');
});

test('MQTT replies are stored as JSON, {"error": text} when not JSON, null when empty', async (t) => {
  const device = await newDevice(base, jwt, 'persistent-mqtt');
  const client = await RawClient.open(Number(new URL(platform.mqttUrl!).port), 4);
  t.after(() => client.close());
  await client.connect(device.token);
  await client.subscribe([{ topic: 'v1/devices/me/rpc/request/+', qos: 1 }]);
  let messageId = 10;
  for (const [reply, expected] of [
    ['{"on":1.0}', '{"on":1.0}'],
    ['ok', '{"error":"ok"}'],
    ['', 'null'],
  ] as const) {
    const id = await admin.sendPersistentRpc(device.id, 'twoway', { method: 'm', timeout: 5000 });
    const request = (await client.next('publish')) as { topic?: string; messageId?: number };
    client.send({ cmd: 'puback', messageId: request.messageId });
    await client.publish(
      `v1/devices/me/rpc/response/${request.topic!.split('/').pop()}`,
      reply,
      messageId++,
    );
    await client.next('puback');
    const answered = await untilStatus(id, 'SUCCESSFUL');
    assert.match(
      answered.text,
      new RegExp(`"response":${expected.replace(/[{}.]/g, '\\$&')}`),
      reply,
    );
  }
});

test('refusals: unknown id 404, pageSize and page required, rpcStatus DELETED or unknown 400, a deleted device’s RPCs are gone', async () => {
  const device = await newDevice(base, jwt, 'persistent-refusals');
  const id = await admin.sendPersistentRpc(device.id, 'twoway', { method: 'm', timeout: 3000 });
  const unknown = await persistentRpc('00000000-0000-0000-0000-000000000001');
  assert.deepEqual([unknown.status, unknown.json.errorCode], [404, 32]);
  assert.equal(
    unknown.json.message,
    'Rpc with id [00000000-0000-0000-0000-000000000001] is not found',
  );
  const list = `/api/rpc/persistent/device/${device.id}`;
  for (const query of [
    '',
    '?pageSize=10',
    '?page=0',
    '?pageSize=10&page=0&rpcStatus=DELETED',
    '?pageSize=10&page=0&rpcStatus=LOST',
  ]) {
    const answer = await call(base, 'GET', list + query, { jwt });
    assert.deepEqual([answer.status, answer.json?.errorCode], [400, 31], query);
  }
  await call(base, 'DELETE', `/api/device/${device.id}`, { jwt });
  assert.equal((await persistentRpc(id)).status, 404);
  await assert.rejects(
    admin.getPersistentRpc(id),
    (error: unknown) => error instanceof AdminApiError && error.status === 404,
  );
});
