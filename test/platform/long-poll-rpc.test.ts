/**
 * Long-polls (shared attribute updates, RPC) and the RPC relay between the admin caller and the
 * device.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningPlatform } from '../../simulators/platform';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

/** Lets a long-poll request reach the server before the event that should answer it. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

before(async () => {
  platform = await start({ minServerRpcTimeoutMs: 0 });
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

test('attributes/updates answers the first shared change, flattened, with its JSON types; deletions as "deleted"', async () => {
  const device = await newDevice(base, jwt, 'updates');
  const poll = call(base, 'GET', `/api/v1/${device.token}/attributes/updates?timeout=3000`);
  await settle();
  await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`, {
    jwt,
    raw: '{"target":21.0,"n":3}',
  });
  const update = await poll;
  assert.deepEqual([update.status, update.text], [200, '{"target":21.0,"n":3}']);
  const second = call(base, 'GET', `/api/v1/${device.token}/attributes/updates?timeout=3000`);
  await settle();
  await call(base, 'DELETE', `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE?keys=n`, {
    jwt,
  });
  assert.deepEqual((await second).json, { deleted: ['n'] });
});

test('a client or server attribute change does not answer the poll; the timeout is 408 with an empty body', async () => {
  const device = await newDevice(base, jwt, 'updates-timeout');
  const poll = call(base, 'GET', `/api/v1/${device.token}/attributes/updates?timeout=300`);
  await settle();
  await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/SERVER_SCOPE`, {
    jwt,
    body: { s: 1 },
  });
  await call(base, 'POST', `/api/v1/${device.token}/attributes`, { body: { c: 1 } });
  const answer = await poll;
  assert.deepEqual([answer.status, answer.text], [408, '']);
});

test('invalid long-poll parameters are 400, before the token', async () => {
  for (const path of [
    '/api/v1/no-such-token/rpc?timeout=abc',
    '/api/v1/no-such-token/attributes/updates?timeout=-1',
  ]) {
    const answer = await call(base, 'GET', path);
    assert.equal(answer.status, 400, path);
    assert.equal(answer.json.errorCode, 31);
  }
});

test('two-way RPC: the device gets {id, method, params} and its reply reaches the admin caller', async () => {
  const device = await newDevice(base, jwt, 'rpc-two-way');
  const poll = call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=3000`);
  await settle();
  const caller = call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, {
    jwt,
    raw: '{"method":"getTemp","params":{"unit":"C","scale":1.0},"timeout":3000}',
  });
  const request = await poll;
  assert.equal(request.status, 200);
  assert.equal(
    request.text,
    `{"id":${request.json.id},"method":"getTemp","params":{"unit":"C","scale":1.0}}`,
  );
  assert.ok(Number.isInteger(request.json.id));
  const reply = await call(base, 'POST', `/api/v1/${device.token}/rpc/${request.json.id}`, {
    raw: '{"temp":21.0}',
  });
  assert.deepEqual([reply.status, reply.text], [200, '']);
  const answer = await caller;
  assert.deepEqual([answer.status, answer.text], [200, '{"temp":21.0}']);
});

test('a queued RPC is delivered at once to the next poll; ids increase; one-way answers 200 when delivered', async () => {
  const device = await newDevice(base, jwt, 'rpc-queued');
  const first = call(base, 'POST', `/api/rpc/oneway/${device.id}`, {
    jwt,
    body: { method: 'a', params: {}, timeout: 3000 },
  });
  const second = call(base, 'POST', `/api/rpc/twoway/${device.id}`, {
    jwt,
    body: { method: 'b', params: [1], timeout: 3000 },
  });
  await settle();
  const one = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=1000`);
  assert.equal(one.json.method, 'a');
  assert.equal((await first).status, 200);
  const two = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=1000`);
  assert.deepEqual([two.json.method, two.json.params], ['b', [1]]);
  assert.ok(two.json.id > one.json.id);
  await call(base, 'POST', `/api/v1/${device.token}/rpc/${two.json.id}`, { raw: '"done"' });
  assert.deepEqual((await second).json, 'done');
  const none = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=200`);
  assert.deepEqual([none.status, none.text], [408, '']);
});

test('RPC replies: unknown id 200, non-integer id 400 (before the token), malformed JSON 400', async () => {
  const device = await newDevice(base, jwt, 'rpc-replies');
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/rpc/12345`, { body: { ok: true } })).status,
    200,
  );
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/rpc/abc`, { body: { ok: true } })).status,
    400,
  );
  assert.equal(
    (await call(base, 'POST', '/api/v1/no-such-token/rpc/1.5', { body: { ok: true } })).status,
    400,
  );
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/rpc/1`, { raw: '{"ok":' })).status,
    400,
  );
  assert.equal((await call(base, 'POST', '/api/v1/no-such-token/rpc/1', { body: {} })).status, 401);
});

test('client-side RPC: the default handler echoes the request document', async () => {
  const device = await newDevice(base, jwt, 'client-rpc-echo');
  const answer = await call(base, 'POST', `/api/v1/${device.token}/rpc`, {
    raw: '{"method":"getTime","params":{"x":1.0}}',
  });
  assert.deepEqual([answer.status, answer.text], [200, '{"method":"getTime","params":{"x":1.0}}']);
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/rpc`, { raw: 'nope' })).status,
    400,
  );
});

test('an RPC to a device that is deleted while the call waits ends, and the device poll gets 403', async () => {
  const device = await newDevice(base, jwt, 'rpc-deleted');
  const caller = call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, {
    jwt,
    body: { method: 'm', params: {}, timeout: 5000 },
  });
  const updates = call(base, 'GET', `/api/v1/${device.token}/attributes/updates?timeout=5000`);
  await settle();
  await call(base, 'DELETE', `/api/device/${device.id}`, { jwt });
  assert.equal((await caller).status, 409, 'never delivered');
  assert.deepEqual([(await updates).status, (await updates).text], [403, 'Device was deleted!']);
});
