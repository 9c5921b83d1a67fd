/**
 * Deeply nested JSON (issue 13 finding 7): anything nested deeper than MAX_JSON_DEPTH is 400 before
 * it is parsed, so nothing of it is stored and nothing later fails on it; the limit itself is
 * accepted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../lib/kv/values';
import type { RunningPlatform } from '../../simulators/platform';
import { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start({ mqttPort: 0 });
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

/** A value nested `depth` levels of arrays deep. */
function nested(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

test('device API: one level over the limit is 400 and stores nothing; the limit itself is stored', async () => {
  const device = await newDevice(base, jwt, 'nesting-http');
  // the key-value object is one level, the value the rest
  const over = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: `{"deep":${nested(MAX_JSON_DEPTH)}}`,
  });
  assert.equal(over.status, 400, over.text);
  const overAttributes = await call(base, 'POST', `/api/v1/${device.token}/attributes`, {
    raw: `{"deep":${nested(MAX_JSON_DEPTH)}}`,
  });
  assert.equal(overAttributes.status, 400);
  const keys = `/api/plugins/telemetry/DEVICE/${device.id}/keys/timeseries`;
  assert.deepEqual((await call(base, 'GET', keys, { jwt })).json, []);
  const atLimit = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, {
    raw: `{"deep":${nested(MAX_JSON_DEPTH - 1)}}`,
  });
  assert.equal(atLimit.status, 200, atLimit.text);
  assert.deepEqual((await call(base, 'GET', keys, { jwt })).json, ['deep']);
});

test('far deeper than the stack would take: 400, not 500, on every device body', async () => {
  const device = await newDevice(base, jwt, 'nesting-stack');
  for (const path of ['telemetry', 'attributes', 'rpc', 'claim']) {
    const answer = await call(base, 'POST', `/api/v1/${device.token}/${path}`, {
      raw: `{"deep":${nested(20_000)}}`,
    });
    assert.equal(answer.status, 400, `${path}: ${answer.status} ${answer.text.slice(0, 100)}`);
  }
});

test('admin API: a device whose additionalInfo is nested 100,000 levels is refused and the list still answers', async () => {
  const answer = await call(base, 'POST', '/api/device', {
    raw: `{"name":"nesting-admin","additionalInfo":{"x":${nested(100_000)}}}`,
    jwt,
  });
  assert.equal(answer.status, 400, answer.text.slice(0, 200));
  const found = await call(base, 'GET', '/api/tenant/device?deviceName=nesting-admin', { jwt });
  assert.equal(found.status, 404);
  const list = await call(base, 'GET', '/api/tenant/devices?pageSize=100&page=0', { jwt });
  assert.equal(list.status, 200);
  const attributes = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${(await newDevice(base, jwt, 'nesting-admin-2')).id}/SERVER_SCOPE`,
    { raw: `{"deep":${nested(MAX_JSON_DEPTH)}}`, jwt },
  );
  assert.equal(attributes.status, 400);
});

test('MQTT gateway: a nested payload over the limit is refused (0x99) and the connection serves on', async (t) => {
  const gateway = await MqttGateway.connect({
    url: platform.mqttUrl!,
    token: platform.demo.gatewayToken,
    protocolVersion: 5,
  });
  t.after(() => gateway.close());
  const refused = await gateway.publish('v1/gateway/telemetry', {
    raw: `{"nesting-mqtt":[{"values":{"deep":${nested(20_000)}}}]}`,
  });
  assert.equal(refused.reasonCode, 0x99);
  assert.equal(
    (await gateway.sendTelemetry({ 'nesting-mqtt': [{ values: { ok: 1 } }] })).reasonCode,
    0,
  );
  const device = await call(base, 'GET', '/api/tenant/device?deviceName=nesting-mqtt', { jwt });
  const keys = `/api/plugins/telemetry/DEVICE/${device.json.id.id}/keys/timeseries`;
  assert.deepEqual((await call(base, 'GET', keys, { jwt })).json, ['ok']);
});
