/** Which scenarios run alone against a shared remote target (steps/support/exclusive.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pickle } from '@cucumber/messages';
import { canRunBeside, runsAlone } from '../../steps/support/exclusive';

function pickle(uri: string, tags: string[], steps: string[] = []): Pickle {
  return {
    id: uri + tags.join(),
    uri,
    name: 'a scenario',
    language: 'en',
    astNodeIds: [],
    tags: tags.map((name) => ({ name, astNodeId: '' })),
    steps: steps.map((text) => ({ id: text, text, astNodeIds: [] })),
  } as Pickle;
}

test('a scenario that changes what the whole tenant sees runs alone; the others overlap', () => {
  const telemetry = pickle('features/http-device-api/telemetry.feature', ['@HTTP-TEL-01']);
  const limit = pickle('features/mqtt-gateway-api/device-limit.feature', [
    '@mqtt-gateway-api',
    '@capability-tenant-limits',
  ]);
  const lifetime = pickle(
    'features/admin-auth/login.feature',
    ['@AUTH-JWT-02'],
    ["the target's access token lifetime is short enough to wait for"],
  );
  const robustness = pickle('features/robustness/connections.feature', ['@robustness']);
  const connector = pickle('features/rest-connector/endpoints.feature', ['@rest-connector']);
  assert.equal(runsAlone(telemetry), false);
  for (const alone of [limit, lifetime, robustness, connector])
    assert.equal(runsAlone(alone), true);
  assert.equal(canRunBeside(telemetry, [telemetry]), true);
  assert.equal(canRunBeside(telemetry, [limit]), false);
  assert.equal(canRunBeside(limit, [telemetry]), false);
  assert.equal(canRunBeside(limit, []), true);
});
