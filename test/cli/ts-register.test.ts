/**
 * lib/ts-register.js, the hook that runs a checkout's TypeScript (bin/iotc.js, cucumber's workers):
 * an edit takes effect on the next run without a build, a file whose JavaScript is cached loads
 * without the TypeScript compiler, and stack traces point at the lines of the .ts source.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const HOOK = join(__dirname, '..', '..', 'lib', 'ts-register.js');

function run(file: string, cache: string): { output: string; typescriptLoaded: boolean } {
  const output = execFileSync(
    process.execPath,
    [
      '-r',
      HOOK,
      '-e',
      `require(${JSON.stringify(file)});
       console.log('typescript loaded: ' + Object.keys(require.cache).some((path) => /[\\\\/]node_modules[\\\\/]typescript[\\\\/]/.test(path)));`,
    ],
    { env: { ...process.env, IOTC_TS_CACHE: cache, NODE_OPTIONS: '' }, encoding: 'utf8' },
  );
  return { output, typescriptLoaded: output.includes('typescript loaded: true') };
}

test('ts-register: cached by content, an edit needs no build, stack traces in .ts lines', () => {
  const folder = mkdtempSync(join(tmpdir(), 'iotc-ts-register-'));
  const cache = join(folder, 'cache');
  const file = join(folder, 'module.ts');
  try {
    const version = (n: number) =>
      `interface Shape {\n  side: number;\n}\nconst shape: Shape = { side: ${n} };\nconsole.log('side ' + shape.side);\nconsole.log(new Error('where').stack?.split('\\n')[1]);\n`;
    writeFileSync(file, version(1));
    const first = run(file, cache);
    assert.match(first.output, /side 1/);
    assert.ok(first.typescriptLoaded, 'a miss transpiles');
    // line 6 of the source (the interface is gone from the JavaScript, which moves its lines up)
    assert.match(first.output, /module\.ts:6:/);
    assert.equal(readdirSync(cache).length, 1);

    const again = run(file, cache);
    assert.match(again.output, /side 1/);
    assert.equal(again.typescriptLoaded, false, 'a hit loads no compiler');

    writeFileSync(file, version(2));
    const edited = run(file, cache);
    assert.match(edited.output, /side 2/, 'the edit takes effect without a build');
    assert.equal(readdirSync(cache).length, 2);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('ts-register: cacheMissing puts the extra files it is given (scripts/test.js: the test files) into the cache', () => {
  const folder = mkdtempSync(join(tmpdir(), 'iotc-ts-register-'));
  const file = join(folder, 'extra.test.ts');
  const marker = `extra ${folder}`;
  // the cache every process of this run uses (the package's sources are in it: scripts/test.js put them there)
  const cache =
    process.env.IOTC_TS_CACHE || join(__dirname, '..', '..', 'node_modules', '.cache', 'iotc-ts');
  if (cache === 'off') return;
  const before = new Set(readdirSync(cache));
  try {
    writeFileSync(file, `const said: string = ${JSON.stringify(marker)};\nconsole.log(said);\n`);
    const missing = () =>
      Number(
        execFileSync(
          process.execPath,
          [
            '-e',
            `console.log(require(${JSON.stringify(HOOK)}).cacheMissing([process.argv[1]]))`,
            file,
          ],
          { env: { ...process.env, IOTC_TS_CACHE: cache, NODE_OPTIONS: '' }, encoding: 'utf8' },
        ),
      );
    assert.ok(missing() >= 1, 'the extra file was missing');
    assert.equal(missing(), 0, 'and is in the cache now');
    const loaded = run(file, cache);
    assert.match(loaded.output, new RegExp(marker.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
    assert.equal(loaded.typescriptLoaded, false, 'its first load needs no compiler');
  } finally {
    // this test's entry out of the shared cache again (others' entries written meanwhile stay)
    for (const entry of readdirSync(cache).filter((name) => !before.has(name))) {
      const path = join(cache, entry);
      try {
        if (readFileSync(path, 'utf8').includes(marker)) rmSync(path, { force: true });
      } catch {
        // written aside and renamed by another process meanwhile
      }
    }
    rmSync(folder, { recursive: true, force: true });
  }
});
