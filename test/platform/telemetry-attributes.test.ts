/**
 * Telemetry and client attributes at the socket: the three forms, typed read-back, and rejected
 * requests storing nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLossless, stringifyLossless } from '../../lib/kv/values';
import type { RunningPlatform } from '../../simulators/platform';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start();
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

/**
 * Latest values of a device, typed (useStrictDataTypes=true), as lossless JSON text per key:
 * `{"ts":..,"value":..}`.
 */
async function latest(
  deviceId: string,
  keys?: string,
): Promise<Record<string, Array<{ ts: number; value: unknown }>>> {
  const query = `${keys ? `keys=${keys}&` : ''}useStrictDataTypes=true`;
  const answer = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${deviceId}/values/timeseries?${query}`,
    { jwt },
  );
  assert.equal(answer.status, 200, answer.text);
  return parseLossless(answer.text) as Record<string, Array<{ ts: number; value: unknown }>>;
}

/** The lossless JSON text of a value, so that 21.0 and 21 differ. */
const lexeme = (value: unknown) => stringifyLossless(value);

test('object form: server timestamp, every value type kept (DOUBLE keeps .0, LONG exact, JSON as the document)', async () => {
  const device = await newDevice(base, jwt, 'tel-object');
  const before = Date.now();
  const sent = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: '{"d":21.0,"l":9223372036854775807,"b":true,"s":"42","j":{"a":[1,2.5,null]},"e":1e3}',
  });
  assert.deepEqual([sent.status, sent.text], [200, '']);
  const values = await latest(device.id);
  assert.equal(lexeme(values.d[0].value), '21.0');
  assert.equal(lexeme(values.l[0].value), '9223372036854775807');
  assert.equal(values.b[0].value, true);
  assert.equal(values.s[0].value, '42', 'a numeric string is not cast');
  assert.equal(lexeme(values.j[0].value), '{"a":[1,2.5,null]}');
  assert.equal(lexeme(values.e[0].value), '1000', 'an exponent form without a point is a LONG');
  assert.ok(Number(String(values.d[0].ts)) >= before);
  const strings = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=d,b,nope`,
      { jwt },
    )
  ).json;
  assert.equal(strings.d[0].value, '21.0', 'values are strings without useStrictDataTypes');
  assert.equal(strings.b[0].value, 'true');
  assert.equal(strings.nope[0].value, null, 'an unknown key answers one null value');
});

test('timestamped form and array form (mixed elements) keep their timestamps', async () => {
  const device = await newDevice(base, jwt, 'tel-ts');
  assert.equal(
    (
      await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
        body: { ts: 1700000000123, values: { t: 1.5 } },
      })
    ).status,
    200,
  );
  const array = [
    { ts: 1700000000200, values: { t: 2.5 } },
    { u: 'x' },
    { ts: 1700000000100, values: { t: 0.5 } },
  ];
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { body: array })).status,
    200,
  );
  const values = await latest(device.id, 't,u');
  assert.equal(Number(String(values.t[0].ts)), 1700000000200, 'the latest is the greatest ts');
  assert.equal(values.u[0].value, 'x');
  const history = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=t&startTs=0&endTs=1800000000000&orderBy=ASC&useStrictDataTypes=true`,
      { jwt },
    )
  ).json;
  assert.deepEqual(
    history.t.map((entry: { ts: number }) => entry.ts),
    [1700000000100, 1700000000123, 1700000000200],
  );
  // startTs is inclusive and endTs exclusive, as on ThingsBoard (TsKvRepository.java:40: ts >=
  // startTs AND ts < endTs)
  const bounded = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/timeseries?keys=t&startTs=1700000000100&endTs=1700000000200&orderBy=ASC&useStrictDataTypes=true`,
      { jwt },
    )
  ).json;
  assert.deepEqual(
    bounded.t.map((entry: { ts: number }) => entry.ts),
    [1700000000100, 1700000000123],
    'endTs is exclusive',
  );
  // members beside ts and values are ignored, as on the MQTT topics (one rule for every transport)
  const extra = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: '{"ts":1700000000300,"values":{"t":3.5},"extra":2}',
  });
  assert.equal(extra.status, 200);
  const afterExtra = await latest(device.id, 't,extra');
  assert.equal(Number(String(afterExtra.t[0].ts)), 1700000000300);
  assert.equal(afterExtra.extra[0].value, null, 'the extra member is not stored');
  const tsOnly = await newDevice(base, jwt, 'tel-ts-only');
  await call(base, 'POST', `/api/v1/${tsOnly.token}/telemetry`, { body: { ts: 5 } });
  assert.equal(
    (await latest(tsOnly.id, 'ts')).ts[0].value !== null,
    true,
    'an object with ts but no values is the object form',
  );
});

test('rejected telemetry is 400 with the error JSON and stores nothing', async () => {
  const device = await newDevice(base, jwt, 'tel-rejected');
  const bad = [
    '{"a":1,',
    '{"a":null}',
    '[{"a":1},{"b":null}]',
    '[{"a":1},3]',
    '42',
    '"text"',
    '{"ts":"1","values":{"a":1}}',
    '{"ts":1,"values":[1]}',
    '',
  ];
  for (const raw of bad) {
    const answer = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { raw });
    assert.equal(answer.status, 400, `${raw} → ${answer.status}`);
    assert.equal(answer.json.status, 400);
    assert.equal(answer.json.errorCode, 31);
    assert.equal(typeof answer.json.message, 'string');
    assert.equal(typeof answer.json.timestamp, 'number');
  }
  const keys = (
    await call(base, 'GET', `/api/plugins/telemetry/DEVICE/${device.id}/keys/timeseries`, { jwt })
  ).json;
  assert.deepEqual(keys, [], 'nothing of a rejected payload is stored');
});

test('an unknown token is 401 with an empty body, checked before the body; unknown resources are 404', async () => {
  const unknown = await call(base, 'POST', '/api/v1/no-such-token/telemetry', { raw: '{bad json' });
  assert.deepEqual([unknown.status, unknown.text], [401, '']);
  assert.equal((await call(base, 'GET', '/api/v1/no-such-token/attributes')).status, 401);
  const device = await newDevice(base, jwt, 'tel-404');
  for (const [method, path] of [
    ['GET', `/api/v1/${device.token}/nope`],
    ['POST', `/api/v2/${device.token}/telemetry`],
    ['GET', `/api/v1/${device.token}/telemetry`],
    ['GET', '/nothing-here'],
  ]) {
    assert.equal(
      (await call(base, method, path, method === 'POST' ? { body: { a: 1 } } : {})).status,
      404,
      `${method} ${path}`,
    );
  }
  assert.deepEqual(
    (await call(base, 'GET', `/api/plugins/telemetry/DEVICE/${device.id}/keys/timeseries`, { jwt }))
      .json,
    [],
  );
});

test('client attributes: stored, updated, and read with clientKeys/sharedKeys', async () => {
  const device = await newDevice(base, jwt, 'attr-device');
  assert.equal(
    (
      await call(base, 'POST', `/api/v1/${device.token}/attributes`, {
        raw: '{"fw":"1.0","ratio":2.0,"count":7}',
      })
    ).status,
    200,
  );
  assert.equal(
    (await call(base, 'POST', `/api/v1/${device.token}/attributes`, { body: { count: 8 } })).status,
    200,
  );
  await call(base, 'POST', `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`, {
    jwt,
    raw: '{"target":21.0,"mode":"eco"}',
  });
  const all = await call(base, 'GET', `/api/v1/${device.token}/attributes`);
  assert.equal(
    all.text,
    '{"client":{"fw":"1.0","ratio":2.0,"count":8},"shared":{"target":21.0,"mode":"eco"}}',
  );
  assert.deepEqual(
    (await call(base, 'GET', `/api/v1/${device.token}/attributes?clientKeys=count,missing`)).json,
    { client: { count: 8 } },
  );
  assert.deepEqual(
    (await call(base, 'GET', `/api/v1/${device.token}/attributes?sharedKeys=mode`)).json,
    { shared: { mode: 'eco' } },
  );
  assert.deepEqual(
    (await call(base, 'GET', `/api/v1/${device.token}/attributes?clientKeys=missing`)).json,
    {},
  );
  // an empty key list is no list (ThingsBoard's DeviceApiController): all attributes, or only the
  // other scope
  assert.equal(
    (await call(base, 'GET', `/api/v1/${device.token}/attributes?clientKeys=`)).text,
    all.text,
  );
  assert.deepEqual(
    (await call(base, 'GET', `/api/v1/${device.token}/attributes?clientKeys=&sharedKeys=mode`))
      .json,
    { shared: { mode: 'eco' } },
  );
  for (const raw of ['[1]', '{"a":null}', '{"a":', '"x"']) {
    assert.equal(
      (
        await call(base, 'POST', `/api/v1/${device.token}/attributes`, {
          raw: raw.replace('a', 'zz'),
        })
      ).status,
      400,
      raw,
    );
  }
  const client = (
    await call(
      base,
      'GET',
      `/api/plugins/telemetry/DEVICE/${device.id}/values/attributes/CLIENT_SCOPE`,
      { jwt },
    )
  ).json;
  assert.deepEqual(
    client.map((attribute: { key: string }) => attribute.key).sort(),
    ['count', 'fw', 'ratio'],
    'rejected attributes store nothing',
  );
});
