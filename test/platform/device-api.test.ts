/**
 * The reference platform's device API at the socket: what the conformance features do not reach.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, FormData, request } from 'undici';
import type { RunningPlatform } from '../../simulators/platform';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start({
    clientRpcHandler: (device, request) => ({ device: device.name, got: request }),
  });
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

test('the client-side RPC handler is configurable', async () => {
  const device = await newDevice(base, jwt, 'client-rpc');
  const answer = await call(base, 'POST', `/api/v1/${device.token}/rpc`, {
    body: { method: 'ping' },
  });
  assert.deepEqual(answer.json, { device: 'client-rpc', got: { method: 'ping' } });
});

test('a payload over the size limit is 413 and stores nothing', async () => {
  const device = await newDevice(base, jwt, 'big-reply');
  const answer = await call(base, 'POST', `/api/v1/${device.token}/rpc/1`, {
    raw: JSON.stringify({ blob: 'x'.repeat(70 * 1024) }),
  });
  assert.equal(answer.status, 413);
  // ThingsBoard's PayloadSizeFilter writes the message as a JSON string, not an error object
  assert.equal(answer.json, 'Payload size exceeds the limit of 65536 bytes');
});

test('an access token longer than 500 characters is an unknown token: 401, not 404', async () => {
  const answer = await call(base, 'POST', `/api/v1/${'t'.repeat(600)}/telemetry`, {
    body: { a: 1 },
  });
  assert.equal(answer.status, 401);
});

test('the routes the server keeps per URL: past the most it keeps each URL still reaches its own route, and a URL no route serves stays 404', async () => {
  const device = await newDevice(base, jwt, 'route-kept');
  const post = (token: string, value: number) =>
    call(base, 'POST', `/api/v1/${token}/telemetry`, { body: { routeKept: value } });
  assert.equal((await post(device.token, 1)).status, 200);
  // more distinct URLs than the server keeps (1024, simulators/platform/index.ts): an unknown
  // token is the telemetry route's 401 every time, never another route's answer
  for (let index = 0; index < 1100; index++)
    assert.equal((await post(`unknown-${index}`, index)).status, 401, `URL ${index}`);
  assert.equal((await post(device.token, 2)).status, 200);
  for (let asked = 0; asked < 2; asked++)
    assert.equal((await call(base, 'GET', '/api/v1/route-kept/no-such-route')).status, 404);
  const stored = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=routeKept`,
    { jwt },
  );
  assert.deepEqual(
    (stored.json as { routeKept: Array<{ value: unknown }> }).routeKept.map((entry) => entry.value),
    ['2'], // the latest values as ThingsBoard gives them: strings
  );
});

test('firmware: a title or version other than the assigned package is 400', async () => {
  const device = await newDevice(base, jwt, 'fw-mismatch');
  const profile = (await call(base, 'GET', `/api/device/${device.id}`, { jwt })).json
    .deviceProfileId;
  const info = (
    await call(base, 'POST', '/api/otaPackage', {
      jwt,
      body: { title: 'fw', version: '1', type: 'FIRMWARE', deviceProfileId: profile },
    })
  ).json;
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('firmware-bytes')]), 'fw.bin');
  const upload = await request(`${base}/api/otaPackage/${info.id.id}?checksumAlgorithm=SHA256`, {
    method: 'POST',
    headers: { 'x-authorization': `Bearer ${jwt}` },
    body: form,
  });
  assert.equal(upload.statusCode, 200);
  await upload.body.dump();
  const saved = (await call(base, 'GET', `/api/device/${device.id}`, { jwt })).json;
  await call(base, 'POST', '/api/device', { jwt, body: { ...saved, firmwareId: info.id } });
  assert.equal(
    (await call(base, 'GET', `/api/v1/${device.token}/firmware?title=fw&version=2`)).status,
    400,
  );
  const whole = await call(base, 'GET', `/api/v1/${device.token}/firmware?title=fw&version=1`);
  assert.deepEqual([whole.status, whole.text], [200, 'firmware-bytes']);
  const pastEnd = await call(
    base,
    'GET',
    `/api/v1/${device.token}/firmware?title=fw&version=1&size=4&chunk=99`,
  );
  assert.deepEqual([pastEnd.status, pastEnd.text], [200, '']);
});

test('a claim inside the window does not refresh it (put-if-absent), and an owned device is CLAIMED', async () => {
  const device = await newDevice(base, jwt, 'claimed-twice');
  await call(base, 'POST', `/api/v1/${device.token}/claim`, {
    body: { secretKey: 'first', durationMs: 60000 },
  });
  await call(base, 'POST', `/api/v1/${device.token}/claim`, {
    body: { secretKey: 'second', durationMs: 60000 },
  });
  const customer = await login(base, 'customer@thingsboard.org', 'customer');
  const wrong = await call(base, 'POST', '/api/customer/device/claimed-twice/claim', {
    jwt: customer,
    body: { secretKey: 'second' },
  });
  assert.deepEqual([wrong.status, wrong.json], [400, 'FAILURE']);
  const right = await call(base, 'POST', '/api/customer/device/claimed-twice/claim', {
    jwt: customer,
    body: { secretKey: 'first' },
  });
  assert.equal(right.json.response, 'SUCCESS');
  const again = await call(base, 'POST', '/api/customer/device/claimed-twice/claim', {
    jwt: customer,
    body: { secretKey: 'first' },
  });
  assert.deepEqual([again.status, again.json], [400, 'CLAIMED']);
});

test('provisioning twice with ALLOW_CREATE_NEW_DEVICES is FAILURE the second time; the device is marked provisioned', async () => {
  await call(base, 'POST', '/api/deviceProfile', {
    jwt,
    body: {
      name: 'p',
      provisionType: 'ALLOW_CREATE_NEW_DEVICES',
      provisionDeviceKey: 'k',
      profileData: {
        provisionConfiguration: { type: 'ALLOW_CREATE_NEW_DEVICES', provisionDeviceSecret: 's' },
      },
    },
  });
  const first = await call(base, 'POST', '/api/v1/provision', {
    body: { deviceName: 'prov', provisionDeviceKey: 'k', provisionDeviceSecret: 's' },
  });
  assert.equal(first.json.status, 'SUCCESS');
  const second = await call(base, 'POST', '/api/v1/provision', {
    body: { deviceName: 'prov', provisionDeviceKey: 'k', provisionDeviceSecret: 's' },
  });
  assert.deepEqual(second.json, { errorMsg: 'Failed to provision device!', status: 'FAILURE' });
  const id = (await call(base, 'GET', '/api/tenant/devices?deviceName=prov', { jwt })).json.id.id;
  const server = (
    await call(base, 'GET', `/api/plugins/telemetry/DEVICE/${id}/values/attributes/SERVER_SCOPE`, {
      jwt,
    })
  ).json;
  assert.deepEqual(
    server.map((attribute: { key: string; value: unknown }) => [attribute.key, attribute.value]),
    [['provisionState', 'provisioned']],
  );
});

test('HTTPS serves the same API with the generated certificate', async () => {
  const tls = await generateSelfSignedCertificate();
  const secure = await start({ httpsPort: 0, tls });
  try {
    const dispatcher = new Agent({ connect: { ca: tls.cert } });
    const answer = await request(`${secure.httpsUrl}/api/v1/${secure.demo.deviceToken}/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
      dispatcher,
    });
    await answer.body.dump();
    assert.equal(answer.statusCode, 200);
    await dispatcher.close();
  } finally {
    await secure.close();
  }
});
