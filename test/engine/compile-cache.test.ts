/**
 * lib/compile-cache.js (V8's code cache on Node 20): a module loaded through it behaves as Node
 * loads it (exports, require, __filename, __dirname, a relative require), the code is written for
 * the next process, and that process loads the same module from it with the same results.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const PRELOAD = join(__dirname, '..', '..', 'lib', 'compile-cache.js');

/** Requires `dir`/main.js in a fresh process with the compile cache preloaded; its exports. */
function loadMain(dir: string, cache: string, env: Record<string, string> = {}): unknown {
  return JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--require',
        PRELOAD,
        '-e',
        `console.log(JSON.stringify(require(${JSON.stringify(join(dir, 'main.js'))})))`,
      ],
      { env: { ...process.env, IOTC_COMPILE_CACHE: cache, ...env }, encoding: 'utf8' },
    ),
  );
}

test('modules load the same through the code cache, and the next process reads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-compile-cache-'));
  try {
    const cache = join(dir, 'cache');
    writeFileSync(join(dir, 'helper.js'), 'module.exports = (n) => n * 2;\n');
    writeFileSync(
      join(dir, 'main.js'),
      [
        "const twice = require('./helper');",
        "const { basename } = require('node:path');",
        'module.exports = { doubled: twice(21), file: basename(__filename), dir: basename(__dirname),',
        "  resolved: basename(require.resolve('./helper')), cached: require.cache[__filename] === module };",
      ].join('\n'),
    );
    const load = () => loadMain(dir, cache);
    const expected = {
      doubled: 42,
      file: 'main.js',
      dir: dir.split('/').at(-1),
      resolved: 'helper.js',
      cached: true,
    };
    assert.deepEqual(load(), expected);
    const written = readdirSync(cache);
    assert.ok(written.length >= 2, `the code of both modules written: ${written.join(', ')}`);
    assert.deepEqual(load(), expected);
    assert.deepEqual(readdirSync(cache).sort(), written.sort(), 'read, not written again');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("what npm ci's prepare writes is marked prepared, used by the next process, which writes its own", () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-compile-cache-'));
  try {
    const cache = join(dir, 'cache');
    writeFileSync(join(dir, 'main.js'), 'module.exports = { answer: 6 * 7 };\n');
    const load = (env: Record<string, string>) => loadMain(dir, cache, env);
    assert.deepEqual(load({ IOTC_COMPILE_CACHE_PREPARED: '1' }), { answer: 42 });
    const prepared = readdirSync(cache);
    assert.ok(prepared.length >= 1 && prepared.every((file) => file.endsWith('.prepared')));
    assert.deepEqual(load({}), { answer: 42 });
    const after = readdirSync(cache);
    for (const file of prepared)
      assert.ok(after.includes(file.replace(/\.prepared$/, '')), `${file} written in full`);
    assert.deepEqual(load({}), { answer: 42 });
    assert.deepEqual(
      readdirSync(cache).sort(),
      after.sort(),
      'the full entry read, not written again',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a process whose entry another process of the same flags wrote meanwhile leaves that one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-compile-cache-'));
  try {
    const cache = join(dir, 'cache');
    // main.js writes its own entry's full name while the process runs, as a sibling worker would
    writeFileSync(
      join(dir, 'main.js'),
      [
        "const { existsSync, readdirSync, writeFileSync } = require('node:fs');",
        `const cache = ${JSON.stringify(cache)};`,
        // (the preparing process has no cache folder yet)
        "for (const file of existsSync(cache) ? readdirSync(cache) : []) if (file.endsWith('.prepared'))",
        "  writeFileSync(`${cache}/${file.replace(/\\.prepared$/, '')}`, 'a sibling');",
        'module.exports = { answer: 6 * 7 };',
      ].join('\n'),
    );
    const load = (env: Record<string, string>) => loadMain(dir, cache, env);
    assert.deepEqual(load({ IOTC_COMPILE_CACHE_PREPARED: '1' }), { answer: 42 });
    const prepared = readdirSync(cache).filter((file) => file.endsWith('.prepared'));
    assert.equal(prepared.length, 1);
    assert.deepEqual(load({}), { answer: 42 });
    const full = join(cache, prepared[0]!.replace(/\.prepared$/, ''));
    assert.equal(readFileSync(full, 'utf8'), 'a sibling', 'not written over');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
