/**
 * `iotc simulate --mode`: spec (default) serves docs/reference/interfaces.md, thingsboard-4.3 adds
 * ThingsBoard 4.3's known deviations. Seen from outside, as a vendor would: the SDK's firmware
 * progress telemetry with a null value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { iotc } from '../support/iotc';
import { startSimulate, stop } from '../support/children';

const PROGRESS = '{"ts":1700000000000,"values":{"current_fw_title":null,"fw_state":"DOWNLOADING"}}';

for (const [args, mode, status] of [
  [[], 'spec', 400],
  [['--mode', 'thingsboard-4.3'], 'thingsboard-4.3', 200],
] as const) {
  test(`iotc simulate ${args.join(' ') || '(no --mode)'}: mode ${mode}, a null value answers ${status}`, {
    timeout: 900_000, // a hang guard only
  }, async () => {
    const { child, info } = await startSimulate<{
      httpUrl: string;
      deviceToken: string;
      mode: string;
    }>(['--http-port', '0', '--mqtt-port', '0', ...args]);
    try {
      assert.equal(info.mode, mode);
      const answer = await request(`${info.httpUrl}/api/v1/${info.deviceToken}/telemetry`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: PROGRESS,
      });
      await answer.body.text();
      assert.equal(answer.statusCode, status);
    } finally {
      await stop(child);
    }
  });
}

test('iotc simulate refuses an unknown --mode', { timeout: 60_000 }, async () => {
  const { code, output } = await iotc(
    ['simulate', '--http-port', '0', '--mqtt-port', '0', '--mode', 'thingsboard-9'],
    mkdtempSync(join(tmpdir(), 'iotc-mode-')),
  );
  assert.notEqual(code, 0);
  assert.match(output, /thingsboard-4\.3/, 'the error names the allowed modes');
});
