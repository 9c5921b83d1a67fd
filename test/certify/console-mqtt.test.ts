/**
 * `iotc certify device --transport mqtt --console` and `iotc certify gateway --console` (issue 28:
 * a console for every transport): the real command, its console over real HTTP, a person's client
 * played by mqtt.js. The page gives the MQTT URL, host, port, token (and a gateway's device, and no
 * CA: no TLS), asks for each step, lists the packets and keeps a live checklist by the report's
 * checks; an ordinary client certifies CONFORMANT, what it never took up NOT APPLICABLE.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import mqtt from 'mqtt';
import { exitOf, spawnIotc, stop } from '../support/children';

async function consoleUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const url = /^certify: operator console: (\S+)$/.exec(line)?.[1];
    if (url) {
      lines.close();
      child.stdout!.resume();
      return url;
    }
  }
  throw new Error('iotc certify ended without printing the console address');
}

/** The page, once `ready` holds for it (a hang guard bounds the polling, not a measurement). */
async function pageWhen(url: string, ready: (page: string) => boolean): Promise<string> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const page = await (await fetch(url)).text();
    if (ready(page)) return page;
    await sleep(100);
  }
  throw new Error(`the console never showed what was awaited: ${url}`);
}

const field = (page: string, id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(page)?.[1];
const checklist = (page: string) =>
  Object.fromEntries(
    [...page.matchAll(/data-requirement="([^"]+)" data-verdict="([^"]+)"/g)].map((m) => [
      m[1],
      m[2],
    ]),
  );

describe('the operator console for MQTT clients', { concurrency: 2 }, () => {
  for (const role of ['device', 'gateway'] as const)
    test(`an MQTT ${role} driven from the console certifies CONFORMANT`, async () => {
      const reports = mkdtempSync(join(tmpdir(), 'iotc-console-mqtt-'));
      const iotc = spawnIotc([
        'certify',
        ...(role === 'gateway' ? ['gateway'] : ['device', '--transport', 'mqtt']),
        '--console',
        '--step-timeout-ms',
        '30000',
        '--rpc-timeout-ms',
        '10000',
        '--reports',
        reports,
      ]);
      let client: mqtt.MqttClient | undefined;
      try {
        const url = await consoleUrl(iotc);
        const exited = exitOf(iotc);
        const page = await pageWhen(url, (shown) => Boolean(field(shown, 'device-token')));
        const mqttUrl = field(page, 'device-url')!;
        const token = field(page, 'device-token')!;
        assert.match(mqttUrl, /^mqtt:\/\/127\.0\.0\.1:\d+$/);
        assert.equal(field(page, 'device-port'), new URL(mqttUrl).port);
        assert.equal(field(page, 'device-mqtt-version'), '3.1.1');
        assert.match(field(page, 'device-ca') ?? '', /no TLS/);
        const device = field(page, 'device-name');
        assert.equal(Boolean(device), role === 'gateway', 'a gateway is given its device');
        assert.match(page, /data-step="first-request" data-state="waiting-for-operator"/);

        client = mqtt.connect(mqttUrl, { username: token, protocolVersion: 4 });
        await new Promise((resolve) => client!.once('connect', resolve));
        const publish = (topic: string, document: unknown) =>
          client!.publishAsync(topic, JSON.stringify(document), { qos: 1 });
        if (role === 'gateway') {
          client.on('message', (topic, payload) => {
            const request = JSON.parse(payload.toString()) as {
              device?: string;
              data?: { id?: number };
            };
            if (topic === 'v1/gateway/rpc' && request.data?.id !== undefined)
              void publish('v1/gateway/rpc', {
                device: request.device,
                id: request.data.id,
                data: {},
              });
          });
          await client.subscribeAsync(['v1/gateway/attributes', 'v1/gateway/rpc'], { qos: 1 });
          await publish('v1/gateway/connect', { device });
          await pageWhen(url, (shown) => /data-step="telemetry" data-state="waiting/.test(shown));
          await publish('v1/gateway/telemetry', {
            [device!]: [{ ts: Date.now(), values: { t: 1 } }],
          });
        } else {
          client.on('message', (topic) => {
            const id = /^v1\/devices\/me\/rpc\/request\/(\d+)$/.exec(topic)?.[1];
            if (id) void publish(`v1/devices/me/rpc/response/${id}`, { pong: true });
          });
          await client.subscribeAsync(['v1/devices/me/attributes', 'v1/devices/me/rpc/request/+'], {
            qos: 1,
          });
          await pageWhen(url, (shown) => /data-step="telemetry" data-state="waiting/.test(shown));
          await publish('v1/devices/me/telemetry', { ts: Date.now(), values: { t: 1 } });
          await publish('v1/devices/me/attributes', { firmwareVersion: '1.0.0' });
        }
        const done = await pageWhen(url, (shown) =>
          /data-step="finish" data-state="waiting-for-operator"/.test(shown),
        );
        const live = checklist(done);
        assert.ok(!Object.values(live).includes('FAIL'), JSON.stringify(live));
        assert.equal(live[role === 'gateway' ? 'GW-RULE-03-RPC' : 'MQTT-DEV-08'], 'PASS');
        assert.equal(
          live[role === 'gateway' ? 'GW-RULE-03-CLAIM' : 'MQTT-DEV-10'],
          'not applicable so far',
        );
        assert.match(done, /class="message" data-direction="in"/);
        assert.ok(!done.includes(`user name ${token}`), 'the packets show the token masked');
        await fetch(url.replace(/\/certify$/, '/certify/finish'), {
          method: 'POST',
          redirect: 'manual',
        });
        const { code, output } = await exited;
        assert.equal(code, 0, output);
        const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
          verdict: string;
          requirements: Array<{ id: string; verdict: string }>;
        };
        assert.equal(report.verdict, 'CONFORMANT');
        const verdicts = Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
        assert.equal(
          verdicts[role === 'gateway' ? 'GW-RULE-03-CLAIM' : 'MQTT-DEV-10'],
          'NOT APPLICABLE',
        );
      } finally {
        client?.end(true);
        await stop(iotc);
        rmSync(reports, { recursive: true, force: true });
      }
    });
});
