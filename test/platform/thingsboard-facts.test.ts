/**
 * ThingsBoard facts the twin reproduces (issue 24 item 2), at the boundary: REST routes of
 * ThingsBoard's REST client (TelemetryController, CustomerController), RPC ids from 0, the device
 * JSON nesting limit of the quirks mode, and PUBACK-then-close for a 3.1.1 gateway attribute
 * request in the specification's shape.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningPlatform } from '../../simulators/platform';
import { RawClient } from './raw-mqtt-client';
import { call, login, newDevice, start } from './support';

let spec: RunningPlatform;
let thingsboard: RunningPlatform;
let jwt: string;
let tbJwt: string;

before(async () => {
  spec = await start({ mqttPort: 0 });
  thingsboard = await start({ mqttPort: 0, quirks: 'thingsboard-4.3' });
  jwt = await login(spec.httpUrl);
  tbJwt = await login(thingsboard.httpUrl);
});
after(async () => {
  await spec.close();
  await thingsboard.close();
});

const T = '/api/plugins/telemetry';

test('legacy attribute save and delete without the entity type, and the merged attribute keys', async () => {
  const base = spec.httpUrl;
  const device = await newDevice(base, jwt, 'facts-legacy');
  const saved = await call(base, 'POST', `${T}/${device.id}/SHARED_SCOPE`, {
    body: { mode: 'eco' },
    jwt,
  });
  assert.equal(saved.status, 200, saved.text);
  await call(base, 'POST', `${T}/DEVICE/${device.id}/SERVER_SCOPE`, { body: { zone: 1 }, jwt });
  await call(base, 'POST', `/api/v1/${device.token}/attributes`, { body: { fw: '1.0' } });
  const keys = await call(base, 'GET', `${T}/DEVICE/${device.id}/keys/attributes`, { jwt });
  assert.equal(keys.status, 200);
  assert.deepEqual([...keys.json].sort(), ['fw', 'mode', 'zone']);
  const deleted = await call(base, 'DELETE', `${T}/${device.id}/SHARED_SCOPE?keys=mode`, { jwt });
  assert.equal(deleted.status, 200, deleted.text);
  const shared = await call(
    base,
    'GET',
    `${T}/DEVICE/${device.id}/values/attributes/SHARED_SCOPE`,
    {
      jwt,
    },
  );
  assert.deepEqual(shared.json, []);
  const unknown = '00000000-0000-4000-8000-000000000000';
  assert.equal(
    (await call(base, 'POST', `${T}/${unknown}/SHARED_SCOPE`, { body: { a: 1 }, jwt })).status,
    404,
  );
});

test('time series history (startTs and endTs required) and deletion by range or all', async () => {
  const base = spec.httpUrl;
  const device = await newDevice(base, jwt, 'facts-history');
  const telemetry = [10, 20, 30].map((ts) => ({ ts, values: { t: ts / 10 } }));
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { body: telemetry })).status,
    200,
  );
  const path = `${T}/DEVICE/${device.id}/values/timeseries/history`;
  const history = await call(base, 'GET', `${path}?keys=t&startTs=0&endTs=100&orderBy=ASC`, {
    jwt,
  });
  assert.equal(history.status, 200, history.text);
  assert.deepEqual(
    history.json.t.map((entry: { ts: number }) => entry.ts),
    [10, 20, 30],
  );
  assert.equal((await call(base, 'GET', `${path}?keys=t&startTs=0`, { jwt })).status, 400);
  const remove = `${T}/DEVICE/${device.id}/timeseries/delete`;
  assert.equal((await call(base, 'DELETE', `${remove}?startTs=0&endTs=100`, { jwt })).status, 400);
  assert.equal((await call(base, 'DELETE', `${remove}?keys=t`, { jwt })).status, 400);
  // [20, 30): 20 goes, 30 (the latest, outside) stays
  assert.equal(
    (await call(base, 'DELETE', `${remove}?keys=t&startTs=20&endTs=30`, { jwt })).status,
    200,
  );
  const after = await call(base, 'GET', `${path}?keys=t&startTs=0&endTs=100&orderBy=ASC`, { jwt });
  assert.deepEqual(
    after.json.t.map((entry: { ts: number }) => entry.ts),
    [10, 30],
  );
  // `True`, as ThingsBoard's Python REST client sends it: Spring reads booleans in any case
  const all = await call(base, 'DELETE', `${remove}?keys=t&deleteAllDataForKeys=True`, { jwt });
  assert.equal(all.status, 200);
  assert.deepEqual(
    (await call(base, 'GET', `${T}/DEVICE/${device.id}/keys/timeseries`, { jwt })).json,
    [],
  );
});

test("GET /api/customers: the tenant's customers as a page, for the tenant administrator only", async () => {
  const base = spec.httpUrl;
  const customers = await call(base, 'GET', '/api/customers?pageSize=10&page=0', { jwt });
  assert.equal(customers.status, 200, customers.text);
  assert.equal(customers.json.totalElements, 1);
  const [customer] = customers.json.data;
  assert.equal(customer.id.entityType, 'CUSTOMER');
  const me = await call(base, 'GET', '/api/auth/user', {
    jwt: await login(base, 'customer@thingsboard.org', 'customer'),
  });
  assert.equal(customer.id.id, me.json.customerId.id, "the demo customer user's customer");
  assert.equal(customer.title, customer.name);
  assert.equal((await call(base, 'GET', '/api/customers?page=0', { jwt })).status, 400);
  const asCustomer = await call(base, 'GET', '/api/customers?pageSize=10&page=0', {
    jwt: await login(base, 'customer@thingsboard.org', 'customer'),
  });
  assert.equal(asCustomer.status, 403);
  // not a route of ThingsBoard CE 4.3 (its answer is 404 too)
  assert.equal(
    (await call(base, 'GET', '/api/deviceInfos/all?pageSize=1&page=0', { jwt })).status,
    404,
  );
});

test("server-side RPC ids start at 0 for each device, as ThingsBoard's device actor numbers them", async () => {
  const base = spec.httpUrl;
  for (const name of ['facts-rpc-a', 'facts-rpc-b']) {
    const device = await newDevice(base, jwt, name);
    const poll = call(base, 'GET', `/api/v1/${device.token}/rpc?timeout=5000`);
    const sent = call(base, 'POST', `/api/plugins/rpc/oneway/${device.id}`, {
      body: { method: 'first', params: {} },
      jwt,
    });
    const request = await poll;
    assert.equal(request.status, 200, request.text);
    assert.equal(request.json.id, 0, `${name}: the first RPC's id`);
    await sent;
  }
});

test('thingsboard-4.3: device JSON deeper than 255 levels is refused as malformed (Gson), 255 is stored', async () => {
  const base = thingsboard.httpUrl;
  const device = await newDevice(base, tbJwt, 'facts-nesting');
  const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  // the key-value object is one level
  const over = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: `{"deep":${nested(255)}}`,
  });
  assert.equal(over.status, 500, over.text);
  const limit = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: `{"deep":${nested(254)}}`,
  });
  assert.equal(limit.status, 200, limit.text);
  // the specification mode keeps Jackson's 1000
  const specDevice = await newDevice(spec.httpUrl, jwt, 'facts-nesting-spec');
  const deep = await call(spec.httpUrl, 'POST', `/api/v1/${specDevice.token}/telemetry`, {
    raw: `{"deep":${nested(255)}}`,
  });
  assert.equal(deep.status, 200, deep.text);
});

test('thingsboard-4.3, MQTT 3.1.1: a gateway attribute request in the specification shape gets its PUBACK, then the close', async () => {
  const client = await RawClient.open(Number(new URL(thingsboard.mqttUrl!).port), 4);
  try {
    await client.connect(thingsboard.demo.gatewayToken);
    await client.publish(
      'v1/gateway/attributes/request',
      JSON.stringify({ id: 1, device: 'facts-attr-dev', client: ['a'] }),
      9,
    );
    const puback = (await client.next('puback')) as { messageId?: number };
    assert.equal(puback.messageId, 9);
    assert.ok(await client.whenClosed(), 'the connection is closed after the PUBACK');
  } finally {
    client.close();
  }
});
