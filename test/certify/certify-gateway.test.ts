/**
 * `iotc certify gateway` at the boundary: the real command starts the reference, runs a real gateway client
 * (test/certify/gateway-client.ts, iotc's own gateway driver, another child) over real MQTT, and writes the reports.
 * The clean client certifies with every gateway requirement PASS over MQTT 3.1.1 and 5; that each planted fault of the
 * client turns exactly its requirement FAIL is the kill matrix's to prove (faults/client-catalogue.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { certify as certifyCommand, testClient } from './certify-run';

const CLIENT = testClient('gateway-client.ts');
const ALL_PASS = Object.fromEntries(
  [
    'GW-RPC-03',
    'GW-RULE-01',
    'GW-RULE-03-CLAIM',
    'GW-RULE-04-WAIT',
    'GW-CLI-01',
    'GW-CLI-02',
    'GW-CLI-03',
    'GW-CLI-04',
    'GW-CLI-05',
    'GW-CLI-06',
  ].map((id) => [id, 'PASS']),
);

function certify(env: Record<string, string>, args: string[]) {
  return certifyCommand(['gateway', ...args], CLIENT, env);
}

describe('iotc certify gateway', { concurrency: 2 }, () => {
  for (const version of ['3.1.1', '5'])
    test(`the gateway driver certifies over MQTT ${version} with every gateway requirement PASS`, async () => {
      const result = await certify({}, ['--mqtt-version', version, '--rpc-timeout-ms', '10000']);
      assert.equal(result.code, 0, result.output);
      assert.deepEqual(result.verdicts, ALL_PASS);
      assert.equal(result.report.verdict, 'CONFORMANT');
      const device = /IOTC_CERTIFY_DEVICE=(certify-sensor-\w+)/.exec(result.output)?.[1];
      assert.ok(device, result.output);
      assert.match(
        result.output,
        new RegExp(`step 1: shared attribute iotcCertifyStep of ${device} set to 1`),
      );
      const token = /IOTC_CERTIFY_TOKEN=(\S+)/.exec(result.output)?.[1];
      assert.ok(token && !result.files.includes(token), 'the gateway token appears in a report');
      assert.match(result.files, /v1\/gateway\/rpc/);
    });

  test('a gateway that never connects its device gets no steps: the RPC requirements are NOT TESTED, not PASS', async () => {
    // connects, publishes telemetry for the device without v1/gateway/connect, and ends
    const result = await certifyCommand(
      ['gateway'],
      `"${process.execPath}" -e "${[
        "const mqtt = require('mqtt');",
        'const client = mqtt.connect(process.env.IOTC_CERTIFY_MQTT_URL, { username: process.env.IOTC_CERTIFY_TOKEN });',
        'const telemetry = JSON.stringify({ [process.env.IOTC_CERTIFY_DEVICE]: [{ values: { a: 1 } }] });',
        "client.on('connect', () => client.publish('v1/gateway/telemetry', telemetry, { qos: 1 }, () => client.end()));",
      ].join(' ')}"`,
      {},
    );
    assert.equal(result.code, 0, result.output);
    assert.match(
      result.output,
      /connected certify-sensor-\w+ on v1\/gateway\/connect: the steps are skipped/,
    );
    for (const id of ['GW-RPC-03', 'GW-CLI-05', 'GW-RULE-04-WAIT', 'GW-RULE-03-CLAIM'])
      assert.equal(result.verdicts[id], 'NOT TESTED', id);
    for (const id of ['GW-CLI-01', 'GW-CLI-02', 'GW-CLI-06'])
      assert.equal(result.verdicts[id], 'PASS', id);
  });
});
