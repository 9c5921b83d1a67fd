/**
 * What a parallel run adds to its workers' environment: a larger young generation, after what
 * NODE_OPTIONS already says and never over a size the user chose; the embedded target's
 * certificates only when the target is embedded.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { keptEmbeddedCertificates, workerEnvironment } from '../../src/engine/worker-environment';
import { EMBEDDED_CERTIFICATES_VARIABLE } from '../../src/target/embedded-certificates';

/**
 * What a worker preloads from the sources, after the options: the code cache, the hook, the indices,
 * its messages' side.
 */
const SOURCE_PRELOADS =
  / --require ".*lib\/compile-cache\.js" --require ".*lib\/ts-register\.js" --require ".*native-match-indices\.ts" --require ".*worker-messages\.ts"$/;

test('the workers get a 32 MB semi-space after the options already given', async () => {
  const env = await workerEnvironment(false, { NODE_OPTIONS: '--enable-source-maps', KEPT: 'yes' });
  assert.match(env.NODE_OPTIONS ?? '', /^--enable-source-maps --max-semi-space-size=32 --require /);
  assert.match(env.NODE_OPTIONS ?? '', SOURCE_PRELOADS);
  assert.equal(env.KEPT, 'yes');
  assert.equal(env[EMBEDDED_CERTIFICATES_VARIABLE], undefined);
  assert.match(
    (await workerEnvironment(false, {}, false)).NODE_OPTIONS ?? '',
    /^--max-semi-space-size=32 --require /,
  );
});

test('a semi-space size the user set is kept', async () => {
  const env = await workerEnvironment(false, { NODE_OPTIONS: '--max-semi-space-size=8' }, false);
  assert.match(env.NODE_OPTIONS ?? '', /^--max-semi-space-size=8 --require /);
  assert.doesNotMatch(env.NODE_OPTIONS ?? '', /semi-space-size=32/);
});

test('from the sources a worker preloads the TypeScript hook before the match indices, and they load', async () => {
  const { NODE_OPTIONS } = await workerEnvironment(false, {}, false);
  const output = execFileSync(
    process.execPath,
    [
      '-e',
      'console.log(Object.keys(require.cache).some((file) => file.endsWith("native-match-indices.ts")))',
    ],
    {
      cwd: join(__dirname, '..', '..'),
      env: { ...process.env, NODE_OPTIONS, IOTC_COMPILE_CACHE: 'off' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(output.trim(), 'true');
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

test('the certificates are kept for the next runs while valid for a day more, else made anew', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-kept-certificates-'));
  try {
    const file = join(dir, 'certificates', 'embedded.json');
    const first = await keptEmbeddedCertificates(file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(await keptEmbeddedCertificates(file), first);
    // made for 30 days: 29.5 days on, they expire within a day
    const later = await keptEmbeddedCertificates(file, Date.now() + 29.5 * 86_400_000);
    assert.notEqual(later.platform.cert, first.platform.cert);
    writeFileSync(file, '{"platform": 1}');
    const remade = await keptEmbeddedCertificates(file);
    assert.match(remade.externalApi.key, /PRIVATE KEY/);
    assert.notEqual(remade.platform.cert, later.platform.cert);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
