/**
 * The reference connector over real sockets: the reference platform (HTTP admin API and MQTT
 * transport), a gateway device, the connector from a rest.json, requests from the connector client.
 * What the features do not show: SSL with a generated certificate, the refusals of unreadable
 * bodies, and that a request waiting for a remote answer holds up nobody else (the real gateway
 * blocks its event loop).
 */
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { completeConfig, startConnector, type RunningConnector } from '../../simulators/connector';
import { ConnectorClient } from '../../simulators/connector-client';
import { call, login } from '../platform/support';
import { MqttConnection } from '../../simulators/device/mqtt-connection';
import { setTimeout as delay } from 'node:timers/promises';

describe('reference REST connector', () => {
  let platform: RunningPlatform;
  let connector: RunningConnector;
  let client: ConnectorClient;
  let jwt: string;
  let gatewayToken: string;
  const logLines: string[] = [];

  before(async () => {
    platform = await startPlatform({ httpPort: 0, mqttPort: 0 });
    jwt = await login(platform.httpUrl);
    const gateway = await call(platform.httpUrl, 'POST', '/api/device', {
      body: { name: 'test-gateway', additionalInfo: { gateway: true } },
      jwt,
    });
    const credentials = await call(
      platform.httpUrl,
      'GET',
      `/api/device/${gateway.json.id.id}/credentials`,
      { jwt },
    );
    const converter = {
      deviceInfo: { deviceNameExpression: '${name}' },
      timeseries: [{ key: 'v', type: 'double', value: '${v}' }],
    };
    const config = completeConfig({
      server: { host: '127.0.0.1', port: 0, SSL: true },
      mapping: [
        { endpoint: '/data', HTTPMethods: ['POST'], security: { type: 'anonymous' }, converter },
        {
          endpoint: '/wait',
          HTTPMethods: ['POST'],
          security: { type: 'anonymous' },
          converter,
          response: { timeout: 2 },
        },
      ],
    });
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
    gatewayToken = credentials.json.credentialsId;
    connector = await startConnector({ config, mqttUrl: platform.mqttUrl!, gatewayToken, logger });
    client = new ConnectorClient(connector.url, { ca: connector.certificate });
  });

  after(async () => {
    await client.close();
    await connector.close();
    await platform.close();
  });

  it('serves HTTPS with a generated self-signed certificate for its host when SSL is on without security', () => {
    assert.match(connector.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const certificate = new X509Certificate(connector.certificate!);
    assert.ok(certificate.checkIP('127.0.0.1'));
  });

  it('answers 400 to malformed JSON and 415 to a media type no converter reads', async () => {
    assert.equal(
      (
        await client.send({
          path: '/data',
          body: { raw: '{"name":', contentType: 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (
        await client.send({
          path: '/data',
          body: { raw: '[1,2]', contentType: 'application/json' },
        })
      ).status,
      400,
    );
    assert.equal(
      (await client.send({ path: '/data', body: { raw: 'name=a', contentType: 'text/plain' } }))
        .status,
      415,
    );
    assert.equal(
      (await client.send({ path: '/data', body: { json: { v: 1 } } })).status,
      400,
      'no device name',
    );
  });

  it('ignores file parts of multipart requests with an info log', async () => {
    const answer = await client.send({
      path: '/data',
      body: {
        multipart: {
          fields: { name: 'former', v: '1.5' },
          files: [{ field: 'v', filename: 'v.txt', content: '9' }],
        },
      },
    });
    assert.equal(answer.status, 200);
    const line = logLines
      .map((text) => JSON.parse(text) as { level: number; msg: string; filename?: string })
      .find((entry) => entry.msg.includes('file parts'));
    assert.ok(line, 'no log line about the file part');
    assert.equal(line.level, 30, 'logged at info');
    assert.equal(line.filename, 'v.txt');
  });

  it('keeps serving other requests while one waits for its remote answer, which only it receives', async () => {
    let waiterAnswered = false;
    const waiting = client
      .send({ path: '/wait', body: { json: { name: 'waiter', v: 1 } } })
      .finally(() => {
        waiterAnswered = true;
      });
    const other = await client.send({ path: '/data', body: { json: { name: 'other', v: 2 } } });
    assert.equal(other.status, 200);
    // the waiter's answer comes only from the attribute posted below: the other was not held up
    assert.equal(
      waiterAnswered,
      false,
      'the waiting request was answered before its remote answer',
    );
    const device = await call(platform.httpUrl, 'GET', '/api/tenant/devices?deviceName=waiter', {
      jwt,
    });
    await call(
      platform.httpUrl,
      'POST',
      `/api/plugins/telemetry/DEVICE/${device.json.id.id}/attributes/SHARED_SCOPE`,
      { body: { result: { ok: true } }, jwt },
    );
    const answered = await waiting;
    assert.equal(answered.status, 200);
    assert.deepEqual(JSON.parse(answered.text), { ok: true });
  });

  it('opens a new MQTT session when its session is taken over, and forwards again', async () => {
    const intruder = await MqttConnection.open({ url: platform.mqttUrl!, token: gatewayToken });
    await intruder.close();
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (
        await client.send({ path: '/data', body: { json: { name: 'after-takeover', v: 3.5 } } })
      ).status;
      if (status !== 200) await delay(100);
    }
    assert.equal(status, 200, 'the connector did not forward again within 4 s');
    assert.ok(logLines.some((line) => line.includes('MQTT gateway session open again')));
  });
});
