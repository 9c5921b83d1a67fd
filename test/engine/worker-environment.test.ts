/**
 * What a parallel run adds to its workers' environment: a larger young generation, after what
 * NODE_OPTIONS already says and never over a size the user chose; the embedded target's
 * certificates only when the target is embedded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerEnvironment } from '../../src/engine/worker-environment';
import { EMBEDDED_CERTIFICATES_VARIABLE } from '../../src/target/embedded-certificates';

test('the workers get a 32 MB semi-space after the options already given', async () => {
  const env = await workerEnvironment(false, { NODE_OPTIONS: '--enable-source-maps', KEPT: 'yes' });
  assert.equal(env.NODE_OPTIONS, '--enable-source-maps --max-semi-space-size=32');
  assert.equal(env.KEPT, 'yes');
  assert.equal(env[EMBEDDED_CERTIFICATES_VARIABLE], undefined);
  assert.equal((await workerEnvironment(false, {})).NODE_OPTIONS, '--max-semi-space-size=32');
});

test('a semi-space size the user set is kept', async () => {
  const env = await workerEnvironment(false, { NODE_OPTIONS: '--max-semi-space-size=8' });
  assert.equal(env.NODE_OPTIONS, '--max-semi-space-size=8');
});

test('an embedded run hands its workers three certificates', async () => {
  const env = await workerEnvironment(true, {});
  const handed = JSON.parse(env[EMBEDDED_CERTIFICATES_VARIABLE] ?? '{}') as Record<
    string,
    { cert: string }
  >;
  assert.deepEqual(Object.keys(handed).sort(), ['connectorServer', 'externalApi', 'platform']);
  assert.match(handed.platform!.cert, /BEGIN CERTIFICATE/);
});
