/**
 * A gateway message naming several devices is stored whole or not at all (issue 13 finding 5): when
 * one of its devices would go beyond the tenant's device limit the PUBACK is 0x97 and nothing of
 * the message exists, not the data of the devices before it nor the devices it would have created;
 * a retry once there is room stores it once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPlatform } from '../../simulators/platform';
import { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import { call, login } from './support';

const TENANT_PROFILE = '/api/tenantProfileInfo/default';

async function setMaxDevices(base: string, sysadmin: string, maxDevices: number): Promise<void> {
  const id = (await call(base, 'GET', TENANT_PROFILE, { jwt: sysadmin })).json.id;
  const saved = await call(base, 'POST', '/api/tenantProfile', {
    body: { id, profileData: { configuration: { maxDevices } } },
    jwt: sysadmin,
  });
  assert.equal(saved.status, 200, saved.text);
}

async function deviceId(base: string, jwt: string, name: string): Promise<string | undefined> {
  const found = await call(base, 'GET', `/api/tenant/device?deviceName=${name}`, { jwt });
  return found.status === 200 ? found.json.id.id : undefined;
}

test('telemetry, attributes and claims of several devices: all or nothing at the device limit', async (t) => {
  // the reference starts with the demo device and the demo gateway; 'known' makes three: room for
  // one more
  const platform = await startPlatform({ httpPort: 0, mqttPort: 0 });
  const gateway = await MqttGateway.connect({
    url: platform.mqttUrl!,
    token: platform.demo.gatewayToken,
    protocolVersion: 5,
  }).catch(async (error: unknown) => {
    await platform.close();
    throw error;
  });
  t.after(async () => {
    await gateway.close();
    await platform.close();
  });
  const base = platform.httpUrl;
  const tenant = await login(base);
  const sysadmin = await login(base, 'sysadmin@thingsboard.org', 'sysadmin');
  assert.equal((await gateway.connectDevice('known')).reasonCode, 0);
  const knownId = (await deviceId(base, tenant, 'known'))!;
  await setMaxDevices(base, sysadmin, 4);

  const messages = [
    () =>
      gateway.sendTelemetry({
        known: [{ ts: 1_700_000_000_000, values: { t: 1 } }],
        fits: [{ ts: 1_700_000_000_000, values: { t: 2 } }],
        over: [{ ts: 1_700_000_000_000, values: { t: 3 } }],
      }),
    () => gateway.sendAttributes({ known: { a: 1 }, fits: { a: 2 }, over: { a: 3 } }),
    () => gateway.claim({ known: { secretKey: 's', durationMs: 60_000 }, fits: {}, over: {} }),
  ];
  for (const send of messages) {
    assert.equal((await send()).reasonCode, 0x97);
    assert.equal(await deviceId(base, tenant, 'fits'), undefined, 'a device of a refused message');
    assert.equal(await deviceId(base, tenant, 'over'), undefined);
  }
  const history = `/api/plugins/telemetry/DEVICE/${knownId}/values/timeseries?keys=t&startTs=0&endTs=${Date.now() + 60_000}`;
  assert.deepEqual((await call(base, 'GET', history, { jwt: tenant })).json, {});
  const attributes = `/api/plugins/telemetry/DEVICE/${knownId}/values/attributes/CLIENT_SCOPE`;
  assert.deepEqual((await call(base, 'GET', attributes, { jwt: tenant })).json, []);
  // the claim of 'known' was not registered: a customer cannot claim it with that secret
  const customer = await login(base, 'customer@thingsboard.org', 'customer');
  const claim = await call(base, 'POST', '/api/customer/device/known/claim', {
    body: { secretKey: 's' },
    jwt: customer,
  });
  assert.equal(claim.status, 400, claim.text);

  // room for both: the retry is stored, once
  await setMaxDevices(base, sysadmin, 0);
  for (const send of messages) assert.equal((await send()).reasonCode, 0);
  const stored = (await call(base, 'GET', history, { jwt: tenant })).json;
  assert.deepEqual(stored, { t: [{ ts: 1_700_000_000_000, value: '1' }] });
  assert.ok(await deviceId(base, tenant, 'over'));
});
