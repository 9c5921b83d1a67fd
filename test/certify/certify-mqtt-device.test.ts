/**
 * `iotc certify device --transport mqtt` at the boundary: the real command starts the reference,
 * runs a real client (test/certify/mqtt-device-client.ts, iotc's own MQTT device driver, another
 * child) over real MQTT, and writes the reports. The clean client certifies with every MQTT device
 * requirement PASS over MQTT 3.1.1 and 5; that each planted fault of the client turns exactly its
 * requirement FAIL is the kill matrix's to prove (faults/client-catalogue.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { certify as certifyCommand, testClient } from './certify-run';

const CLIENT = testClient('mqtt-device-client.ts');
/** MQTT-DEV-01..13: the clean client also provisions, claims and sends a client-side RPC. */
const ALL_PASS = {
  ...Object.fromEntries(
    Array.from({ length: 13 }, (_, index) => [
      `MQTT-DEV-${String(index + 1).padStart(2, '0')}`,
      'PASS',
    ]),
  ),
  // one connection at a time, judged in every MQTT device session (issue 28)
  'CLI-BEH-05': 'PASS',
};

function certify(env: Record<string, string>, args: string[]) {
  return certifyCommand(['device', '--transport', 'mqtt', ...args], CLIENT, env);
}

describe('iotc certify device --transport mqtt', { concurrency: 2 }, () => {
  for (const version of ['3.1.1', '5'])
    test(`the MQTT device driver certifies over MQTT ${version} with every device requirement PASS`, async () => {
      const result = await certify({}, ['--mqtt-version', version, '--rpc-timeout-ms', '10000']);
      assert.equal(result.code, 0, result.output);
      assert.deepEqual(result.verdicts, ALL_PASS);
      assert.equal(result.report.verdict, 'CONFORMANT');
      assert.match(
        result.output,
        new RegExp(`IOTC_CERTIFY_MQTT_VERSION=${version.replace('.', '\\.')}\\n`),
      );
      assert.match(result.output, /IOTC_CERTIFY_MQTT_URL=mqtt:\/\/127\.0\.0\.1:\d+/);
      // the token is the CONNECT's user name in the evidence, never in a report
      const token = /IOTC_CERTIFY_TOKEN=(\S+)/.exec(result.output)?.[1];
      assert.ok(token);
      assert.ok(!result.files.includes(token), 'the device token appears in a report');
      assert.match(result.files, /client under test \(connection 1\)/);
      assert.match(result.files, /v1\/devices\/me\/rpc\/response\/\d+/);
    });

  test('a client that never subscribes gets no steps: the RPC requirements are NOT TESTED, not PASS', async () => {
    // connects, publishes telemetry and ends without a subscription: nothing is delivered to it
    const result = await certifyCommand(
      ['device', '--transport', 'mqtt'],
      `"${process.execPath}" -e "${[
        "const mqtt = require('mqtt');",
        'const client = mqtt.connect(process.env.IOTC_CERTIFY_MQTT_URL, { username: process.env.IOTC_CERTIFY_TOKEN });',
        "client.on('connect', () => client.publish('v1/devices/me/telemetry', '{}', { qos: 1 }, () => client.end()));",
      ].join(' ')}"`,
      {},
    );
    assert.equal(result.code, 0, result.output);
    assert.match(
      result.output,
      /subscribed to v1\/devices\/me\/attributes and v1\/devices\/me\/rpc\/request\/1: the steps are skipped/,
    );
    for (const id of ['MQTT-DEV-07', 'MQTT-DEV-08', 'MQTT-DEV-12'])
      assert.equal(result.verdicts[id], 'NOT TESTED', id);
    // what it never took up and the certification never asks for does not apply (issue 28)
    for (const id of ['MQTT-DEV-05', 'MQTT-DEV-06', 'MQTT-DEV-10', 'MQTT-DEV-11', 'MQTT-DEV-13'])
      assert.equal(result.verdicts[id], 'NOT APPLICABLE', id);
    for (const id of ['MQTT-DEV-01', 'MQTT-DEV-02', 'MQTT-DEV-03', 'MQTT-DEV-09'])
      assert.equal(result.verdicts[id], 'PASS', id);
  });
});
