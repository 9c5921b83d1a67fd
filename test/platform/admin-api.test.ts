/**
 * The reference platform's admin REST API at the socket: authentication errors, RPC outcomes,
 * device lifecycle.
 */
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
  assert.deepEqual(
    [malformed.status, malformed.json.errorCode, malformed.json.message],
    [401, 10, 'Invalid username or password'],
  );
  const badLogin = await call(base, 'POST', '/api/auth/login', {
    body: { username: 'tenant@thingsboard.org', password: 'nope' },
  });
  assert.equal(badLogin.status, 401);
  const user = await call(base, 'GET', '/api/auth/user', { jwt });
  assert.equal(user.status, 200);
  assert.equal(user.json.authority, 'TENANT_ADMIN');
  assert.equal(user.json.email, 'tenant@thingsboard.org');
});

test('an expired access token is code 11 and the refresh token gives a new pair', async () => {
  // 5 s: the refreshed token must still be valid when the next request arrives, even on a loaded
  // machine
  const shortLived = await start({ jwtExpirationSec: 5 });
  try {
    const url = shortLived.httpUrl;
    const pair = (
      await call(url, 'POST', '/api/auth/login', {
        body: { username: 'tenant@thingsboard.org', password: 'tenant' },
      })
    ).json;
    // the expiry is what is tested: wait for it by asking (bounded), not for a fixed time
    for (let attempt = 0; attempt < 600; attempt++) {
      if ((await call(url, 'GET', '/api/auth/user', { jwt: pair.token })).status !== 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const expired = await call(url, 'GET', '/api/auth/user', { jwt: pair.token });
    assert.deepEqual(
      [expired.status, expired.json.errorCode, expired.json.message],
      [401, 11, 'Token has expired'],
    );
    const refreshed = await call(url, 'POST', '/api/auth/token', {
      body: { refreshToken: pair.refreshToken },
    });
    assert.equal(refreshed.status, 200);
    assert.equal(
      (await call(url, 'GET', '/api/auth/user', { jwt: refreshed.json.token })).status,
      200,
    );
  } finally {
    await shortLived.close();
  }
});

test('API keys: shown once, usable, refused when disabled or deleted', async () => {
  const me = (await call(base, 'GET', '/api/auth/user', { jwt })).json;
  const key = (
    await call(base, 'POST', '/api/apiKey', {
      jwt,
      body: { userId: me.id, description: 'ci', expirationTime: 0, enabled: true },
    })
  ).json;
  assert.match(key.value, /^tb_/);
  const viaKey = await call(base, 'GET', '/api/auth/user', {
    headers: { 'x-authorization': `ApiKey ${key.value}` },
  });
  assert.equal(viaKey.status, 200);
  const listed = (await call(base, 'GET', `/api/apiKeys/${me.id.id}?pageSize=10&page=0`, { jwt }))
    .json;
  assert.equal(listed.data.length, 1);
  assert.equal(listed.data[0].value, undefined, 'a listed key does not show its value');
  await call(base, 'PUT', `/api/apiKey/${key.id.id}/enabled/false`, { jwt });
  const disabled = await call(base, 'GET', '/api/auth/user', {
    headers: { 'x-authorization': `ApiKey ${key.value}` },
  });
  assert.deepEqual([disabled.status, disabled.json.message], [401, 'User account is not active']);
  await call(base, 'DELETE', `/api/apiKey/${key.id.id}`, { jwt });
  assert.equal(
    (
      await call(base, 'GET', '/api/auth/user', {
        headers: { 'x-authorization': `ApiKey ${key.value}` },
      })
    ).status,
    401,
  );
});

test('a customer user may not create devices (403 code 20)', async () => {
  const customerJwt = await login(base, 'customer@thingsboard.org', 'customer');
  const answer = await call(base, 'POST', '/api/device', {
    jwt: customerJwt,
    body: { name: 'not-allowed' },
  });
  assert.deepEqual([answer.status, answer.json.errorCode], [403, 20]);
});

test('devices: duplicate name is 400 code 31, unknown name 404 code 32', async () => {
  await newDevice(base, jwt, 'dup');
  const again = await call(base, 'POST', '/api/device', { jwt, body: { name: 'dup' } });
  assert.deepEqual(
    [again.status, again.json.errorCode, again.json.message],
    [400, 31, 'Device with such name already exists!'],
  );
  const missing = await call(base, 'GET', '/api/tenant/devices?deviceName=nobody', { jwt });
  assert.deepEqual([missing.status, missing.json.errorCode], [404, 32]);
});

test('RPC: never delivered is 409, delivered but unanswered is 408, v2 answers 504', async () => {
  const device = await newDevice(base, jwt, 'rpc-outcomes');
  const never = await call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, {
    jwt,
    body: { method: 'm', params: {}, timeout: 200 },
  });
  assert.equal(never.status, 409);
  const pending = call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, {
    jwt,
    body: { method: 'm', params: {}, timeout: 300 },
  });
  const poll = await call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=2000`);
  assert.equal(poll.status, 200);
  assert.equal((await pending).status, 408);
  const v2 = await call(base, 'POST', `/api/rpc/twoway/${device.id}`, {
    jwt,
    body: { method: 'm', timeout: 200 },
  });
  assert.equal(v2.status, 504);
  const invalid = await call(base, 'POST', `/api/plugins/rpc/twoway/${device.id}`, {
    jwt,
    raw: '{"method":',
  });
  assert.equal(invalid.status, 400);
});

test('deleting a device ends its RPC long-poll with 403 "Device was deleted!"', async () => {
  const device = await newDevice(base, jwt, 'to-delete');
  const poll = call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=5000`);
  await new Promise((resolve) => setTimeout(resolve, 100)); // let the poll reach the server before the delete
  assert.equal((await call(base, 'DELETE', `/api/device/${device.id}`, { jwt })).status, 200);
  const answer = await poll;
  assert.deepEqual([answer.status, answer.text], [403, 'Device was deleted!']);
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { body: { a: 1 } })).status,
    401,
  );
});

test('saving attributes refuses the client scope and blank bodies with plain-text 400', async () => {
  const device = await newDevice(base, jwt, 'attr-errors');
  const clientScope = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${device.id}/CLIENT_SCOPE`,
    { jwt, body: { a: 1 } },
  );
  assert.deepEqual([clientScope.status, clientScope.text], [400, 'Invalid scope: CLIENT_SCOPE']);
  const empty = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`,
    { jwt, body: {} },
  );
  assert.deepEqual([empty.status, empty.text], [400, 'No attributes data found in request body!']);
});

test('JWT: HS512 with ThingsBoard claims; a bad signature is code 11; Authorization: Bearer works too', async () => {
  const [header, payload, signature] = jwt.split('.');
  assert.equal(JSON.parse(Buffer.from(header, 'base64url').toString()).alg, 'HS512');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  assert.equal(claims.sub, 'tenant@thingsboard.org');
  assert.deepEqual(claims.scopes, ['TENANT_ADMIN']);
  for (const name of ['userId', 'sessionId', 'tenantId', 'customerId', 'iss', 'iat', 'exp'])
    assert.ok(claims[name] !== undefined, name);
  assert.equal(claims.exp - claims.iat, 9000);
  const forged = `${header}.${payload}.${signature.slice(0, -4)}AAAA`;
  const bad = await call(base, 'GET', '/api/auth/user', { jwt: forged });
  assert.deepEqual(
    [bad.status, bad.json.errorCode, bad.json.message],
    [401, 11, 'Token has expired'],
  );
  const plain = await call(base, 'GET', '/api/auth/user', {
    headers: { authorization: `Bearer ${jwt}` },
  });
  assert.equal(plain.status, 200);
  const user = plain.json;
  assert.deepEqual(Object.keys(user.id), ['entityType', 'id']);
  assert.equal(user.id.entityType, 'USER');
  assert.equal(user.id.id, claims.userId);
});

test('API keys: an expired key is refused, an unknown key is "Invalid username or password"', async () => {
  const me = (await call(base, 'GET', '/api/auth/user', { jwt })).json;
  const expired = (
    await call(base, 'POST', '/api/apiKey', {
      jwt,
      body: { userId: me.id, description: 'old', expirationTime: Date.now() - 1000, enabled: true },
    })
  ).json;
  assert.equal(
    (
      await call(base, 'GET', '/api/auth/user', {
        headers: { 'x-authorization': `ApiKey ${expired.value}` },
      })
    ).status,
    401,
  );
  const unknown = await call(base, 'GET', '/api/auth/user', {
    headers: { 'x-authorization': 'ApiKey tb_nothing' },
  });
  assert.deepEqual(
    [unknown.status, unknown.json.errorCode, unknown.json.message],
    [401, 10, 'Invalid username or password'],
  );
});

test('devices: paging, find by name on both paths, credentials, profiles (404 code 32 when unknown)', async () => {
  for (const name of ['page-a', 'page-b', 'page-c']) await newDevice(base, jwt, name);
  const first = (
    await call(base, 'GET', '/api/tenant/devices?pageSize=2&page=0&textSearch=page-', { jwt })
  ).json;
  assert.deepEqual(
    [first.data.length, first.totalElements, first.totalPages, first.hasNext],
    [2, 3, 2, true],
  );
  const second = (
    await call(base, 'GET', '/api/tenant/devices?pageSize=2&page=1&textSearch=page-', { jwt })
  ).json;
  assert.deepEqual([second.data.length, second.hasNext], [1, false]);
  const byName = (await call(base, 'GET', '/api/tenant/device?deviceName=page-a', { jwt })).json;
  assert.equal(byName.type, 'default');
  assert.deepEqual(
    byName.id,
    (await call(base, 'GET', '/api/tenant/devices?deviceName=page-a', { jwt })).json.id,
  );
  const credentials = (await call(base, 'GET', `/api/device/${byName.id.id}/credentials`, { jwt }))
    .json;
  assert.deepEqual(
    [credentials.credentialsType, credentials.credentialsValue, credentials.credentialsId.length],
    ['ACCESS_TOKEN', null, 20],
  );
  const chosen = await call(base, 'POST', '/api/device?accessToken=my-own-token', {
    jwt,
    body: { name: 'own-token', type: 'thermostat', label: 'L' },
  });
  assert.equal(chosen.json.type, 'thermostat', 'a new type creates the profile');
  assert.equal(
    (await call(base, 'POST', '/api/v1/my-own-token/telemetry', { body: { a: 1 } })).status,
    200,
  );
  const defaultProfile = (await call(base, 'GET', '/api/deviceProfileInfo/default', { jwt })).json;
  assert.equal(defaultProfile.name, 'default');
  assert.equal(
    (await call(base, 'GET', `/api/deviceProfile/${defaultProfile.id.id}`, { jwt })).json.name,
    'default',
  );
  const missing = await call(
    base,
    'GET',
    '/api/deviceProfile/00000000-0000-0000-0000-000000000000',
    { jwt },
  );
  assert.deepEqual(
    [missing.status, missing.json.errorCode, missing.json.message],
    [404, 32, "Requested item wasn't found!"],
  );
  const profiles = (await call(base, 'GET', '/api/deviceProfiles?pageSize=10&page=0', { jwt }))
    .json;
  assert.ok(profiles.data.some((profile: { name: string }) => profile.name === 'thermostat'));
});

test('admin telemetry save and attribute reads are typed; a null attribute value is 400', async () => {
  const device = await newDevice(base, jwt, 'admin-telemetry');
  assert.equal(
    (
      await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/timeseries/ANY`, {
        jwt,
        raw: '{"ts":1000,"values":{"x":2.0}}',
      })
    ).status,
    200,
  );
  const read = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=x&useStrictDataTypes=true`,
    { jwt },
  );
  assert.equal(read.text, '{"x":[{"ts":1000,"value":2.0}]}');
  assert.equal(
    (
      await call(
        base,
        'POST',
        `/api/plugins/telemetry/DEVICE/${device.id}/attributes/SERVER_SCOPE`,
        { jwt, raw: '{"big":9223372036854775807}' },
      )
    ).status,
    200,
  );
  const attributes = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${device.id}/values/attributes?keys=big`,
    { jwt },
  );
  assert.match(
    attributes.text,
    /^\[\{"key":"big","value":9223372036854775807,"lastUpdateTs":\d+\}\]$/,
  );
  const nullValue = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`,
    { jwt, raw: '{"a":null}' },
  );
  assert.equal(nullValue.status, 400);
  const invalid = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`,
    { jwt, raw: '{"a":' },
  );
  assert.deepEqual([invalid.status, invalid.text], [400, 'Invalid JSON']);
});
