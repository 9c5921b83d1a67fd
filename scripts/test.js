#!/usr/bin/env node
// Runs the project's own tests (test/**/*.test.ts) with node's test runner. Node 20's `--test` does not expand
// globs nor pick up .ts files, so this lists them and hands them over. Extra arguments narrow the set by path.
'use strict';
const { readdirSync } = require('node:fs');
const { join, relative } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return find(path);
    return entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}
const filters = process.argv.slice(2);
const files = find(join(root, 'test'))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The `iotc` children the tests start (conformance runs against `iotc simulate`, the deviation runs, certify and
// load sessions: the longest tests) run the compiled CLI, built here first, as an installed package does. Through
// ts-node every child and each of its cucumber workers loaded the TypeScript compiler and transpiled every module
// again (a conformance run took 25 s from the sources, 13 s compiled), and the suite was bound by that CPU. The test
// files themselves stay on ts-node; test/cli/source-mode.test.ts keeps one run through ts-node, as `npm start` does.
// `npm run build` empties dist/ first, so no compiled module of a moved source is left to load.
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('npm run build failed: the tests run the compiled CLI');
  process.exit(build.status ?? 1);
}
// Most test files wait on sockets and child processes, not on the CPU: node's default (one file at a time on two
// cores) left the machine idle most of the run. Four at once took the suite from 5 min 25 s to 3 min 19 s here;
// tests take ports from the OS and own their temporary folders, so files never share anything.
const CONCURRENCY = 4;
const result = spawnSync(
  process.execPath,
  [
    '--require',
    'ts-node/register/transpile-only',
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    '--test-reporter',
    'spec',
    '--test-reporter-destination',
    'stdout',
    // where the time goes: the slowest files, after the results (IOTC_TEST_TIMES=<file> keeps them all as JSON)
    '--test-reporter',
    join(__dirname, 'test-times-reporter.js'),
    '--test-reporter-destination',
    'stdout',
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TS_NODE_PROJECT: join(root, 'tsconfig.json'), IOTC_COMPILED: '1' },
  },
);
process.exit(result.status ?? 1);
