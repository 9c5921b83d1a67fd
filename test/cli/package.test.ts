/**
 * The published package holds what the compiled CLI reads at run time (built-in profiles, the
 * conformance rest.json and views, the gateway 3.8.3 custom converter, the features and their
 * catalogue, the cucumber profile) and none of the TypeScript sources, so an installed `iotc` runs
 * its compiled code without ts-node. (`npm pack` builds dist/ first, at prepack.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packedFiles } from '../support/packed-files';

test('npm pack lists the run-time data files and no TypeScript source', {
  timeout: 600_000,
}, () => {
  const files = packedFiles();
  for (const needed of [
    'bin/iotc.js',
    'cucumber.js',
    'features/requirements.json',
    'features/http-device-api/telemetry.feature',
    'src/target/profiles/embedded.json',
    'src/target/profiles/tb-gateway-3.8.json',
    'src/target/embedded-rest.json',
    'src/target/embedded-rest-sparse.json',
    'src/target/embedded-analytics-views.json',
    'src/target/gateway-extensions/rest/key_value_text_converter.py',
  ])
    assert.ok(files.includes(needed), `the package lacks ${needed}`);
  assert.deepEqual(
    files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    [],
    'no TypeScript source in the package',
  );
});
