/**
 * `iotc certify gateway` at the boundary: the real command starts the reference, runs a real
 * gateway client (test/certify/gateway-client.ts, iotc's own gateway driver, another child) over
 * real MQTT, and writes the reports. The clean client, also acting as a device, certifies with
 * every requirement of the gateway certification PASS (over MQTT 3.1.1, as the kill matrix's
 * control does); the same client as a gateway that never acts as a device certifies CONFORMANT with
 * the device requirements NOT APPLICABLE (over MQTT 5). That each planted fault of the client turns
 * exactly its requirement FAIL is the kill matrix's to prove (faults/client-catalogue.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { certify as certifyCommand, testClient } from './certify-run';

const CLIENT = testClient('gateway-client.ts');
const GATEWAY_PASS = Object.fromEntries(
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
    'GW-CLI-07',
    'GW-RULE-01-UPD',
    'GW-RULE-03-RPC',
    'MQTT-DEV-02', // every publish on a topic of either API
  ].map((id) => [id, 'PASS']),
);
/**
 * The device requirements of the gateway's own traffic (MQTT-DEV-01 and -09 are GW-CLI-01 and -06
 * for a gateway).
 */
const AS_DEVICE = [
  'MQTT-DEV-03',
  'MQTT-DEV-04',
  'MQTT-DEV-05',
  'MQTT-DEV-06',
  'MQTT-DEV-07',
  'MQTT-DEV-08',
  'MQTT-DEV-10',
  'MQTT-DEV-12',
  'MQTT-DEV-13',
];
const verdictsOf = (verdict: string) => Object.fromEntries(AS_DEVICE.map((id) => [id, verdict]));

function certify(env: Record<string, string>, args: string[]) {
  return certifyCommand(['gateway', ...args], CLIENT, env);
}

describe('iotc certify gateway', { concurrency: 2 }, () => {
  for (const [version, asDevice] of [
    ['3.1.1', true],
    ['5', false],
  ] as const)
    test(`the gateway driver${asDevice ? ', also a device,' : ', never a device,'} certifies over MQTT ${version}: ${asDevice ? 'every requirement PASS' : 'CONFORMANT, its device requirements NOT APPLICABLE'}`, async () => {
      const result = await certify(asDevice ? {} : { IOTC_TEST_GATEWAY_AS_DEVICE: 'off' }, [
        '--mqtt-version',
        version,
        '--rpc-timeout-ms',
        '10000',
      ]);
      assert.equal(result.code, 0, result.output);
      assert.deepEqual(result.verdicts, {
        ...GATEWAY_PASS,
        ...verdictsOf(asDevice ? 'PASS' : 'NOT APPLICABLE'),
      });
      assert.equal(result.report.verdict, 'CONFORMANT');
      // the device requirements' evidence is the gateway certification's, not a device
      // certification's
      assert.match(result.files, /iotc certify gateway MQTT-DEV-02/);
      assert.doesNotMatch(result.files, /iotc certify device MQTT-DEV/);
      if (asDevice)
        assert.match(
          result.output,
          /RPC call iotcCertifyGatewayPing to certify-gateway-\w+ ended with 200/,
        );
      else {
        assert.doesNotMatch(
          result.output,
          /iotcCertifyGatewayPing sent/,
          'no RPC to a gateway that never took one',
        );
        for (const requirement of result.report.requirements.filter((entry) =>
          AS_DEVICE.includes(entry.id),
        ))
          assert.match(requirement.reason ?? '', /^not applicable: the gateway /, requirement.id);
      }
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
    for (const id of ['GW-RPC-03', 'GW-CLI-05', 'GW-RULE-03-RPC'])
      assert.equal(result.verdicts[id], 'NOT TESTED', id);
    // no connect at QoS 1, no claim, no subscription to the updates: nothing they bind was done
    // (issue 28)
    for (const id of ['GW-RULE-04-WAIT', 'GW-RULE-03-CLAIM', 'GW-RULE-01-UPD'])
      assert.equal(result.verdicts[id], 'NOT APPLICABLE', id);
    for (const id of ['GW-CLI-01', 'GW-CLI-02', 'GW-CLI-06', 'GW-CLI-07', 'MQTT-DEV-02'])
      assert.equal(result.verdicts[id], 'PASS', id);
    // nothing of its own on v1/devices/me/...: its device requirements do not apply, whatever the
    // steps did
    for (const id of AS_DEVICE) assert.equal(result.verdicts[id], 'NOT APPLICABLE', id);
  });
});
