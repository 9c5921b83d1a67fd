/**
 * `iotc certify device --transport http` at the boundary: the real command (a child process) starts
 * the reference, runs a real client (test/certify/http-device-client.ts, iotc's own HTTP device
 * driver, another child) over real HTTP, and writes the reports. The clean client certifies with
 * every device requirement PASS; that each planted fault of the client turns exactly its
 * requirement FAIL is the kill matrix's to prove (faults/client-catalogue.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { certify as certifyCommand, testClient } from './certify-run';

const CLIENT = testClient('http-device-client.ts');
/**
 * HTTP-DEV-01..13: the clean client also claims, provisions, asks for firmware and sends a
 * client-side RPC.
 */
const ALL_PASS = {
  ...Object.fromEntries(
    Array.from({ length: 13 }, (_, index) => [
      `HTTP-DEV-${String(index + 1).padStart(2, '0')}`,
      'PASS',
    ]),
  ),
  // no tight polling, judged in every HTTP device session (issue 28)
  'CLI-BEH-06': 'PASS',
};

function certify(exec: string, env: Record<string, string>, args: string[] = []) {
  return certifyCommand(['device', '--transport', 'http', ...args], exec, env);
}

describe('iotc certify device --transport http', { concurrency: 2 }, () => {
  test('the HTTP device driver certifies with every device requirement PASS', async () => {
    const result = await certify(CLIENT, {}, ['--rpc-timeout-ms', '10000']);
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(result.verdicts, ALL_PASS);
    assert.equal(result.report.verdict, 'CONFORMANT');
    // the URL and token are handed to the client and printed; the reports never carry the token
    const token = /IOTC_CERTIFY_TOKEN=(\S+)/.exec(result.output)?.[1];
    assert.ok(token && /IOTC_CERTIFY_URL=http:\/\/127\.0\.0\.1:\d+/.test(result.output));
    assert.ok(!result.files.includes(token), 'the device token appears in a report');
    // evidence is the client's own requests
    assert.match(result.files, /client under test/);
    assert.match(result.files, /"url": "\/api\/v1\/<redacted>\/rpc\/\d+"/);
  });

  test('a client whose first request is a long-poll for the RPC gets the steps while it waits', async () => {
    // were the steps started by the first request's answer, they would wait for this poll (120 s)
    // and the start timeout (60 s) would skip them: HTTP-DEV-05 and 06 NOT TESTED
    const result = await certify(CLIENT, { IOTC_TEST_CLIENT_POLL_FIRST: '1' });
    assert.equal(result.code, 0, result.output);
    assert.deepEqual(result.verdicts, ALL_PASS);
  });

  test('a client that sends nothing leaves every requirement NOT TESTED with a reason (exit 3)', async () => {
    const result = await certify(`"${process.execPath}" -e ""`, {});
    assert.equal(result.code, 3, result.output);
    assert.equal(result.report.verdict, 'NOT TESTED');
    for (const requirement of result.report.requirements) {
      assert.equal(requirement.verdict, 'NOT TESTED');
      // the run's own cause is every requirement's reason (a client that sent nothing decided
      // nothing)
      assert.match(
        requirement.reason ?? '',
        /^could not test: the client under test sent no request/,
      );
      assert.deepEqual(requirement.scenarios, []);
    }
  });
});
