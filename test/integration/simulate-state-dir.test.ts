/**
 * `iotc simulate --state-dir` keeps its certificate (issue 13 finding 9): the CA file a profile
 * names still verifies the server after a restart; a change of host names makes a new one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { keptCertificate } from '../../lib/tls/persistent-certificate';
import { startSimulate, stop } from '../support/children';

test('the CA file of one start verifies the server of the next', {
  timeout: 900_000 /* a hang guard only */,
}, async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'iotc-simulate-state-'));
  const first = await startSimulate(['--https-port', '0', '--state-dir', stateDir]);
  let caFile: string;
  let ca: string;
  try {
    assert.ok(first.info.caFile, 'the first start names its CA file');
    caFile = first.info.caFile;
    ca = readFileSync(caFile, 'utf8');
  } finally {
    await stop(first.child);
  }
  const second = await startSimulate(['--https-port', '0', '--state-dir', stateDir]);
  const agent = new Agent({ connect: { ca } });
  try {
    assert.equal(second.info.caFile, caFile);
    const answer = await request(`${second.info.httpsUrl}/api/v1/A1_TEST_TOKEN/attributes`, {
      dispatcher: agent,
    });
    await answer.body.text();
    assert.equal(
      answer.statusCode,
      200,
      'the server of the second start is verified by the first CA',
    );
  } finally {
    await agent.close();
    await stop(second.child);
  }
});

test('a kept certificate is reused for the same host names and replaced for others', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'iotc-kept-cert-'));
  const made = await keptCertificate(stateDir, ['localhost', '127.0.0.1']);
  const again = await keptCertificate(stateDir, ['localhost', '127.0.0.1']);
  assert.deepEqual([made.created, again.created], [true, false]);
  assert.equal(again.cert, made.cert);
  const other = await keptCertificate(stateDir, ['localhost', '127.0.0.2']);
  assert.equal(other.created, true);
  assert.notEqual(other.cert, made.cert);
});
