/**
 * `iotc simulate` shows what it receives: a traffic event per HTTP exchange (method, path with the
 * token masked, status, body) and per MQTT packet both ways, and a landing page at / with the URLs,
 * tokens and examples.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import mqtt from 'mqtt';
import { request } from 'undici';
import { startPlatform } from '../../simulators/platform';
import { formatTraffic, type TrafficEvent } from '../../simulators/platform/traffic';

test('HTTP exchanges and MQTT packets are observed, tokens masked; the page at / says where things are', async () => {
  const events: TrafficEvent[] = [];
  const platform = await startPlatform({
    httpPort: 0,
    mqttPort: 0,
    traffic: (event) => events.push(event),
  });
  try {
    const posted = await request(
      `${platform.httpUrl}/api/v1/${platform.demo.deviceToken}/telemetry`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"temperature":21.5}',
      },
    );
    await posted.body.dump();
    const http = events.find((event) => event.protocol === 'http');
    assert.ok(http?.protocol === 'http');
    const { exchange, ...shown } = http;
    assert.deepEqual(
      { ...shown, ms: 0 },
      {
        protocol: 'http',
        method: 'POST',
        path: '/api/v1/A1_T…/telemetry',
        status: 200,
        ms: 0,
        body: '{"temperature":21.5}',
      },
    );
    // for programs (iotc certify): the exchange as it was, token, header and both bodies included
    assert.deepEqual(
      { ...exchange, receivedAt: 0 },
      {
        receivedAt: 0,
        method: 'POST',
        url: '/api/v1/A1_TEST_TOKEN/telemetry',
        contentType: 'application/json',
        requestBody: '{"temperature":21.5}',
        status: 200,
        responseBody: '',
      },
    );
    assert.doesNotMatch(formatTraffic(http!), /A1_TEST_TOKEN/);

    const client = await mqtt.connectAsync(platform.mqttUrl!, {
      username: platform.demo.deviceToken,
      protocolVersion: 5,
      reconnectPeriod: 0,
    });
    await client.publishAsync('v1/devices/me/telemetry', '{"humidity":40}', { qos: 1 });
    await client.endAsync();
    const lines = events
      .filter((event) => event.protocol === 'mqtt')
      .map((event) => formatTraffic(event).slice(13));
    assert.ok(
      lines.some((line) => /→ CONNECT v5 client id ".*" user A1_T…$/.test(line)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => /"Demo Device" ← CONNACK 0x00$/.test(line)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some(
        (line) =>
          line === 'MQTT "Demo Device" → PUBLISH v1/devices/me/telemetry qos 1 {"humidity":40}',
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => /"Demo Device" ← PUBACK \d+ 0x00$/.test(line)),
      lines.join('\n'),
    );
    assert.ok(!lines.join('\n').includes('A1_TEST_TOKEN'));

    const page = await request(`${platform.httpUrl}/`);
    assert.equal(page.statusCode, 200);
    const html = await page.body.text();
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.ok(html.includes(`mqtt://127.0.0.1:${new URL(platform.mqttUrl!).port}`));
    assert.ok(html.includes(platform.demo.gatewayToken));
    assert.ok(html.includes('tenant@thingsboard.org'));
    assert.ok(html.includes('/swagger-ui.html'));
  } finally {
    await platform.close();
  }
});
