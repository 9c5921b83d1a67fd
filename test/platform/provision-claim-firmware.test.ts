/**
 * Provisioning statuses, device claiming (success, FAILURE, expiry) and firmware (fw_* attributes,
 * chunks).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FormData, request } from 'undici';
import type { RunningPlatform } from '../../simulators/platform';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;
let customerJwt: string;

before(async () => {
  platform = await start();
  base = platform.httpUrl;
  jwt = await login(base);
  customerJwt = await login(base, 'customer@thingsboard.org', 'customer');
});
after(() => platform.close());

async function profile(name: string, type: string, key: string, secret: string): Promise<string> {
  const answer = await call(base, 'POST', '/api/deviceProfile', {
    jwt,
    body: {
      name,
      type: 'DEFAULT',
      transportType: 'DEFAULT',
      provisionType: type,
      provisionDeviceKey: key,
      profileData: { provisionConfiguration: { type, provisionDeviceSecret: secret } },
    },
  });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.id.id as string;
}

const provision = (body: unknown) => call(base, 'POST', '/api/v1/provision', { body });

test('provisioning: SUCCESS creates the device with returned credentials; gateway flag; NOT_FOUND; FAILURE', async () => {
  await profile('allow', 'ALLOW_CREATE_NEW_DEVICES', 'allow-key', 'allow-secret');
  const ok = await provision({
    deviceName: 'prov-gw',
    provisionDeviceKey: 'allow-key',
    provisionDeviceSecret: 'allow-secret',
    gateway: true,
  });
  assert.equal(ok.status, 200);
  assert.deepEqual(Object.keys(ok.json).sort(), ['credentialsType', 'credentialsValue', 'status']);
  assert.equal(ok.json.status, 'SUCCESS');
  assert.equal(ok.json.credentialsType, 'ACCESS_TOKEN');
  const device = (await call(base, 'GET', '/api/tenant/device?deviceName=prov-gw', { jwt })).json;
  assert.equal(device.type, 'allow');
  assert.equal(device.additionalInfo.gateway, true);
  const credentials = (await call(base, 'GET', `/api/device/${device.id.id}/credentials`, { jwt }))
    .json;
  assert.equal(credentials.credentialsId, ok.json.credentialsValue);
  assert.equal(
    (await call(base, 'POST', `/api/v1/${ok.json.credentialsValue}/telemetry`, { body: { a: 1 } }))
      .status,
    200,
  );

  const notFound = { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' };
  assert.deepEqual(
    (
      await provision({
        deviceName: 'x',
        provisionDeviceKey: 'allow-key',
        provisionDeviceSecret: 'wrong',
      })
    ).json,
    notFound,
  );
  assert.deepEqual(
    (
      await provision({
        deviceName: 'x',
        provisionDeviceKey: 'no-such-key',
        provisionDeviceSecret: 'allow-secret',
      })
    ).json,
    notFound,
  );
  await profile('disabled', 'DISABLED', 'disabled-key', 'disabled-secret');
  assert.deepEqual(
    (
      await provision({
        deviceName: 'x',
        provisionDeviceKey: 'disabled-key',
        provisionDeviceSecret: 'disabled-secret',
      })
    ).json,
    notFound,
  );
  const failure = { errorMsg: 'Failed to provision device!', status: 'FAILURE' };
  assert.deepEqual(
    (
      await provision({
        deviceName: 'prov-gw',
        provisionDeviceKey: 'allow-key',
        provisionDeviceSecret: 'allow-secret',
      })
    ).json,
    failure,
  );
  assert.deepEqual(
    (
      await provision({
        deviceName: '  ',
        provisionDeviceKey: 'allow-key',
        provisionDeviceSecret: 'allow-secret',
      })
    ).json,
    failure,
  );
});

test('provisioning with CHECK_PRE_PROVISIONED_DEVICES: only an existing, unprovisioned device of the profile', async () => {
  const profileId = await profile('pre', 'CHECK_PRE_PROVISIONED_DEVICES', 'pre-key', 'pre-secret');
  const created = await call(base, 'POST', '/api/device?accessToken=pre-token-1', {
    jwt,
    body: { name: 'pre-1', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profileId } },
  });
  assert.equal(created.status, 200);
  const body = {
    deviceName: 'pre-1',
    provisionDeviceKey: 'pre-key',
    provisionDeviceSecret: 'pre-secret',
  };
  assert.deepEqual((await provision(body)).json, {
    credentialsValue: 'pre-token-1',
    credentialsType: 'ACCESS_TOKEN',
    status: 'SUCCESS',
  });
  assert.equal((await provision(body)).json.status, 'FAILURE', 'already provisioned');
  assert.equal((await provision({ ...body, deviceName: 'pre-missing' })).json.status, 'FAILURE');
  assert.equal(
    (await call(base, 'GET', '/api/tenant/device?deviceName=pre-missing', { jwt })).status,
    404,
  );
});

test('provisioning requests missing a field or with wrong types are 400; a duplicate provision key is refused', async () => {
  for (const body of [
    { provisionDeviceKey: 'allow-key', provisionDeviceSecret: 'allow-secret' },
    { deviceName: 'a', provisionDeviceKey: 'allow-key' },
    { deviceName: 1, provisionDeviceKey: 'k', provisionDeviceSecret: 's' },
  ]) {
    assert.equal((await provision(body)).status, 400, JSON.stringify(body));
  }
  assert.equal((await call(base, 'POST', '/api/v1/provision', { raw: '{' })).status, 400);
  const duplicate = await call(base, 'POST', '/api/deviceProfile', {
    jwt,
    body: {
      name: 'other',
      provisionType: 'ALLOW_CREATE_NEW_DEVICES',
      provisionDeviceKey: 'allow-key',
      profileData: {
        provisionConfiguration: { type: 'ALLOW_CREATE_NEW_DEVICES', provisionDeviceSecret: 'z' },
      },
    },
  });
  assert.deepEqual(
    [duplicate.status, duplicate.json.message],
    [400, 'Device profile with such provision device key already exists!'],
  );
});

test('claiming: FAILURE without a claim or with a wrong key, SUCCESS with the key, then reclaim', async () => {
  const device = await newDevice(base, jwt, 'claim-me');
  const claim = (secretKey: string) =>
    call(base, 'POST', '/api/customer/device/claim-me/claim', {
      jwt: customerJwt,
      body: { secretKey },
    });
  assert.deepEqual([(await claim('k')).status, (await claim('k')).json], [400, 'FAILURE']);
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/claim`, { body: { secretKey: 'k' } }))
      .status,
    200,
  );
  assert.deepEqual((await claim('wrong')).json, 'FAILURE');
  const ok = await claim('k');
  assert.equal(ok.status, 200);
  assert.equal(ok.json.response, 'SUCCESS');
  const customerId = (await call(base, 'GET', '/api/auth/user', { jwt: customerJwt })).json
    .customerId.id;
  assert.equal(ok.json.device.customerId.id, customerId);
  assert.deepEqual((await claim('k')).json, 'CLAIMED');
  assert.equal(
    (await call(base, 'DELETE', '/api/customer/device/claim-me/claim', { jwt: customerJwt }))
      .status,
    200,
  );
  const tenantClaim = await call(base, 'POST', '/api/customer/device/claim-me/claim', {
    jwt,
    body: { secretKey: 'k' },
  });
  assert.deepEqual(
    [tenantClaim.status, tenantClaim.json.errorCode],
    [403, 20],
    'claiming is for customer users',
  );
});

test('claiming: an empty body claims with the empty key; an expired claim is FAILURE; a bad body is 400', async () => {
  const device = await newDevice(base, jwt, 'claim-empty');
  assert.equal((await call(base, 'POST', `/api/v1/${device.token}/claim`)).status, 200);
  const ok = await call(base, 'POST', '/api/customer/device/claim-empty/claim', {
    jwt: customerJwt,
    body: { secretKey: '' },
  });
  assert.equal(ok.json.response, 'SUCCESS');
  const shortLived = await newDevice(base, jwt, 'claim-expiring');
  assert.equal(
    (
      await call(base, 'POST', `/api/v1/${shortLived.token}/claim`, {
        body: { secretKey: 's', durationMs: 150 },
      })
    ).status,
    200,
  );
  await new Promise((resolve) => setTimeout(resolve, 250)); // the claim window of 150 ms is what is tested
  const late = await call(base, 'POST', '/api/customer/device/claim-expiring/claim', {
    jwt: customerJwt,
    body: { secretKey: 's' },
  });
  assert.deepEqual([late.status, late.json], [400, 'FAILURE']);
  for (const raw of ['[]', '{"secretKey":1}', '{"durationMs":"x"}', '{']) {
    assert.equal(
      (await call(base, 'POST', `/api/v1/${shortLived.token}/claim`, { raw })).status,
      400,
      raw,
    );
  }
});

test('firmware: assignment sets fw_* shared attributes (long-poll notified) and fw_state; chunks; clearing removes them', async () => {
  const device = await newDevice(base, jwt, 'fw-device');
  assert.equal(
    (await call(base, 'GET', `/api/v1/${device.token}/firmware?title=t&version=v`)).status,
    404,
    'no package assigned',
  );
  const saved = (await call(base, 'GET', `/api/device/${device.id}`, { jwt })).json;
  const info = (
    await call(base, 'POST', '/api/otaPackage', {
      jwt,
      body: {
        title: 'fw-x',
        version: '2.0',
        type: 'FIRMWARE',
        deviceProfileId: saved.deviceProfileId,
      },
    })
  ).json;
  const data = Buffer.from('0123456789abcdefghij');
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/octet-stream' }), 'fw-x.bin');
  const upload = await request(`${base}/api/otaPackage/${info.id.id}?checksumAlgorithm=SHA256`, {
    method: 'POST',
    headers: { 'x-authorization': `Bearer ${jwt}` },
    body: form,
  });
  const uploaded = (await upload.body.json()) as {
    dataSize: number;
    checksum: string;
    fileName: string;
    checksumAlgorithm: string;
  };
  assert.equal(upload.statusCode, 200);
  const sha256 = createHash('sha256').update(data).digest('hex');
  assert.deepEqual(
    [uploaded.dataSize, uploaded.checksum, uploaded.fileName, uploaded.checksumAlgorithm],
    [20, sha256, 'fw-x.bin', 'SHA256'],
  );

  const poll = call(base, 'GET', `/api/v1/${device.token}/attributes/updates?timeout=3000`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(
    (await call(base, 'POST', '/api/device', { jwt, body: { ...saved, firmwareId: info.id } }))
      .status,
    200,
  );
  const update = (await poll).json;
  assert.deepEqual(update, {
    fw_title: 'fw-x',
    fw_version: '2.0',
    fw_size: 20,
    fw_checksum_algorithm: 'SHA256',
    fw_checksum: sha256,
  });
  const state = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=fw_state,target_fw_title,target_fw_version,target_fw_ts`,
      { jwt },
    )
  ).json;
  assert.equal(state.fw_state[0].value, 'QUEUED');
  assert.equal(state.target_fw_title[0].value, 'fw-x');
  assert.equal(state.target_fw_version[0].value, '2.0');

  const firmware = (query: string) =>
    call(base, 'GET', `/api/v1/${device.token}/firmware?${query}`);
  const whole = await request(`${base}/api/v1/${device.token}/firmware?title=fw-x&version=2.0`);
  assert.equal(whole.headers['content-disposition'], 'attachment;filename=fw-x.bin');
  assert.equal(whole.headers['x-filename'], 'fw-x.bin');
  assert.equal(whole.headers['content-type'], 'application/octet-stream');
  assert.equal(await whole.body.text(), data.toString());
  assert.equal((await firmware('title=fw-x&version=2.0&size=8&chunk=0')).text, '01234567');
  assert.equal((await firmware('title=fw-x&version=2.0&size=8&chunk=2')).text, 'ghij');
  assert.deepEqual(
    [
      (await firmware('title=fw-x&version=2.0&size=8&chunk=3')).status,
      (await firmware('title=fw-x&version=2.0&size=8&chunk=3')).text,
    ],
    [200, ''],
  );
  assert.equal((await firmware('title=fw-x&version=2.0&size=0')).text, data.toString());
  for (const query of [
    'version=2.0',
    'title=fw-x',
    'title=fw-x&version=2.0&size=-1',
    'title=fw-x&version=2.0&chunk=a',
    'title=fw-x&version=1.0',
  ]) {
    assert.equal((await firmware(query)).status, 400, query);
  }

  const current = (await call(base, 'GET', `/api/device/${device.id}`, { jwt })).json;
  await call(base, 'POST', '/api/device', { jwt, body: { ...current, firmwareId: null } });
  const shared = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/attributes/SHARED_SCOPE`,
      { jwt },
    )
  ).json;
  assert.deepEqual(shared, []);
  assert.equal((await firmware('title=fw-x&version=2.0')).status, 404);
  assert.equal((await call(base, 'DELETE', `/api/otaPackage/${info.id.id}`, { jwt })).status, 200);
  assert.equal(
    (await call(base, 'GET', `/api/otaPackage/info/${info.id.id}`, { jwt })).status,
    404,
  );
});
