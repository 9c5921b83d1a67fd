/** The reference platform's admin REST API at the socket: authentication errors, RPC outcomes, device lifecycle. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningPlatform } from '../../simulators/platform';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start({ minServerRpcTimeoutMs: 0 });
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

test('authentication errors carry ThingsBoard codes', async () => {
  const none = await call(base, 'GET', '/api/auth/user');
  assert.equal(none.status, 401);
  assert.equal(none.json.errorCode, 10);
  assert.equal(none.json.message, 'Authentication failed');
  const malformed = await call(base, 'GET', '/api/auth/user', { jwt: 'not-a-jwt' });
  assert.deepEqual([malformed.status, malformed.json.errorCode, malformed.json.message], [401, 10, 'Invalid username or password']);
  const badLogin = await call(base, 'POST', '/api/auth/login', { body: { username: 'tenant@thingsboard.org', password: 'nope' } });
  assert.equal(badLogin.status, 401);
  const user = await call(base, 'GET', '/api/auth/user', { jwt });
  assert.equal(user.status, 200);
  assert.equal(user.json.authority, 'TENANT_ADMIN');
  assert.equal(user.json.email, 'tenant@thingsboard.org');
});

test('an expired access token is code 11 and the refresh token gives a new pair', async () => {
  const shortLived = await start({ jwtExpirationSec: 1 });
  try {
    const url = shortLived.httpUrl;
    const pair = (await call(url, 'POST', '/api/auth/login', { body: { username: 'tenant@thingsboard.org', password: 'tenant' } })).json;
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the access token lives 1 s here: its expiry is what is tested
    const expired = await call(url, 'GET', '/api/auth/user', { jwt: pair.token });
    assert.deepEqual([expired.status, expired.json.errorCode, expired.json.message], [401, 11, 'Token has expired']);
    const refreshed = await call(url, 'POST', '/api/auth/token', { body: { refreshToken: pair.refreshToken } });
    assert.equal(refreshed.status, 200);
    assert.equal((await call(url, 'GET', '/api/auth/user', { jwt: refreshed.json.token })).status, 200);
  } finally {
    await shortLived.close();
  }
});

test('API keys: shown once, usable, refused when disabled or deleted', async () => {
  const me = (await call(base, 'GET', '/api/auth/user', { jwt })).json;
  const key = (await call(base, 'POST', '/api/apiKey', { jwt, body: { userId: me.id, description: 'ci', expirationTime: 0, enabled: true } })).json;
  assert.match(key.value, /^tb_/);
  const viaKey = await call(base, 'GET', '/api/auth/user', { headers: { 'x-authorization': `ApiKey ${key.value}` } });
  assert.equal(viaKey.status, 200);
  const listed = (await call(base, 'GET', `/api/apiKeys/${me.id.id}?pageSize=10&page=0`, { jwt })).json;
  assert.equal(listed.data.length, 1);
  assert.equal(listed.data[0].value, undefined, 'a listed key does not show its value');
  await call(base, 'PUT', `/api/apiKey/${key.id.id}/enabled/false`, { jwt });
  const disabled = await call(base, 'GET', '/api/auth/user', { headers: { 'x-authorization': `ApiKey ${key.value}` } });
  assert.deepEqual([disabled.status, disabled.json.message], [401, 'User account is not active']);
  await call(base, 'DELETE', `/api/apiKey/${key.id.id}`, { jwt });
  assert.equal((await call(base, 'GET', '/api/auth/user', { headers: { 'x-authorization': `ApiKey ${key.value}` } })).status, 401);
});

test('a customer user may not create devices (403 code 20)', async () => {
  const customerJwt = await login(base, 'customer@thingsboard.org', 'customer');
  const answer = await call(base, 'POST', '/api/device', { jwt: customerJwt, body: { name: 'not-allowed' } });
  assert.deepEqual([answer.status, answer.json.errorCode], [403, 20]);
});

test('devices: duplicate name is 400 code 31, unknown name 404 code 32', async () => {
  await newDevice(base, jwt, 'dup');
  const again = await call(base, 'POST', '/api/device', { jwt, body: { name: 'dup' } });
  assert.deepEqual([again.status, again.json.errorCode, again.json.message], [400, 31, 'Device with such name already exists!']);
  const missing = await call(base, 'GET', '/api/tenant/devices?deviceName=nobody', { jwt });
  assert.deepEqual([missing.status, missing.json.errorCode], [404, 32]);
});

test('RPC: never delivered is 409, delivered but unanswered is 408, v2 answers 504', async () => {
  const device = await newDevice(base, jwt, 'rpc-outcomes');
  const never = await call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, { jwt, body: { method: 'm', params: {}, timeout: 200 } });
  assert.equal(never.status, 409);
  const pending = call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, { jwt, body: { method: 'm', params: {}, timeout: 300 } });
  const poll = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=2000`);
  assert.equal(poll.status, 200);
  assert.equal((await pending).status, 408);
  const v2 = await call(base, 'POST', `/api/rpc/twoway/${device.id}`, { jwt, body: { method: 'm', timeout: 200 } });
  assert.equal(v2.status, 504);
  const invalid = await call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, { jwt, raw: '{"method":' });
  assert.equal(invalid.status, 400);
});

test('deleting a device ends its RPC long-poll with 403 "Device was deleted!"', async () => {
  const device = await newDevice(base, jwt, 'to-delete');
  const poll = call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=5000`);
  await new Promise((resolve) => setTimeout(resolve, 100)); // let the poll reach the server before the delete
  assert.equal((await call(base, 'DELETE', `/api/device/${device.id}`, { jwt })).status, 200);
  const answer = await poll;
  assert.deepEqual([answer.status, answer.text], [403, 'Device was deleted!']);
  assert.equal((await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { body: { a: 1 } })).status, 401);
});

test('saving attributes refuses the client scope and blank bodies with plain-text 400', async () => {
  const device = await newDevice(base, jwt, 'attr-errors');
  const clientScope = await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/CLIENT_SCOPE`, { jwt, body: { a: 1 } });
  assert.deepEqual([clientScope.status, clientScope.text], [400, 'Invalid scope: CLIENT_SCOPE']);
  const empty = await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`, { jwt, body: {} });
  assert.deepEqual([empty.status, empty.text], [400, 'No attributes data found in request body!']);
});
