#!/usr/bin/env node
// Runs the project's own tests (test/**/*.test.ts) with node's test runner. Node 20's `--test` does not expand
// globs nor pick up .ts files, so this lists them and hands them over. Extra arguments narrow the set by path.
// `node scripts/test.js --help` says how to use it.
'use strict';
const {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { availableParallelism, loadavg, tmpdir } = require('node:os');
const { join, relative } = require('node:path');
const { spawnSync } = require('node:child_process');

const HELP = `usage: node scripts/test.js [--no-build] [--rebuild] [path-filter ...]

Runs test/**/*.test.ts whose path contains one of the filters (all without a filter), six files at once (four when
the load average at the start already reaches the cores), the
slowest first (by their times in the last run here; those that burn the most CPU kept apart), and
prints the slowest files with their wall and CPU seconds, then the whole run's.

The tests' \`iotc\` children run the compiled CLI (dist/). dist/ is rebuilt first (npm run build) when a source
under its tsconfig.build.json is newer than the last build, or one was added or removed since; otherwise the build
is skipped.
  --no-build   never build: run against dist/ as it is (a second run beside one that is running)
  --rebuild    build even when dist/ looks current

Two runs in one tree share dist/: a run that has to rebuild it refuses to start while another run of this script
is alive in the same tree (a rebuild empties dist/ under the other's tests); wait for it, or pass --no-build.

Environment: IOTC_TEST_TIMES=<file> writes every file's times as JSON; IOTC_TEST_TIMES_ALL=1 prints them all.`;

const root = join(__dirname, '..');
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}
const noBuild = args.includes('--no-build');
const rebuild = args.includes('--rebuild');
const unknown = args.filter(
  (arg) => arg.startsWith('--') && !['--no-build', '--rebuild'].includes(arg),
);
if (unknown.length > 0 || (noBuild && rebuild)) {
  console.error(
    `${unknown.length > 0 ? `unknown option ${unknown.join(' ')}` : '--no-build and --rebuild exclude each other'}\n\n${HELP}`,
  );
  process.exit(2);
}
const filters = args.filter((arg) => !arg.startsWith('--'));

function find(dir, suffix) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : find(path, suffix);
    return entry.name.endsWith(suffix) ? [relative(root, path)] : [];
  });
}
// Slowest first: the runner starts files in the order given, CONCURRENCY at once, and the suite ends when its last
// file does. In name order the longest files (test/integration/, minutes each) started last and ran on while the other
// slots stood idle; started first, the short files fill the slots beside them. The order is each file's wall time in
// the last run here (node_modules/.cache/iotc-test-times.json, written by scripts/test-times-reporter.js) or, in a
// fresh clone, SLOW_FILES below (the slowest measured, longest first: the night of 2026-11-27); a file known to neither
// counts as 30 s.
// Then spread(): the files that burn the most CPU (iotc-test-cpu.json beside it, or HEAVY_FILES) are kept apart.
// Longest first alone started the deviation runs on the twin, killed-run-settings and remote-target together at the
// start (about 80 CPU s at once, four embedded references each, a BeforeAll over 60 s) while the CPU stood idle later.
const SLOW_FILES = [
  'test/integration/deviations-platform-undeclared.test.ts',
  'test/integration/deviations-platform.test.ts',
  'test/integration/killed-run-settings.test.ts',
  'test/integration/harness-fault.test.ts',
  'test/integration/deviations-connector-undeclared.test.ts',
  'test/integration/remote-target.test.ts',
  'test/integration/network-faults-short.test.ts',
  'test/integration/interrupted-report.test.ts',
  'test/integration/deviations-connector.test.ts',
  'test/integration/robustness-simulate.test.ts',
  'test/platform/large-bodies.test.ts',
  'test/cli/compiled.test.ts',
  'test/report/html-chromium.test.ts',
  'test/integration/network-faults-short-resets.test.ts',
];
/** The files measured over HEAVY_CPU_MS of CPU (their own and their children's), for a fresh clone. */
const HEAVY_FILES = [
  'test/integration/deviations-platform-undeclared.test.ts',
  'test/integration/deviations-platform.test.ts',
  'test/integration/killed-run-settings.test.ts',
  'test/integration/remote-target.test.ts',
];
const HEAVY_CPU_MS = 15_000;
/** At most this many heavy files among any CONCURRENCY files started one after the other. */
const HEAVY_TOGETHER = 2;
const TIMES_CACHE = join(root, 'node_modules', '.cache', 'iotc-test-times.json');
const CPU_CACHE = join(root, 'node_modules', '.cache', 'iotc-test-cpu.json');
function cached(path) {
  try {
    return Object.entries(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return []; // no run here yet
  }
}
function expectedMs() {
  const known = new Map(SLOW_FILES.map((file, index) => [file, 600_000 - index * 1000]));
  for (const [file, ms] of cached(TIMES_CACHE)) if (typeof ms === 'number') known.set(file, ms);
  return (file) => known.get(file) ?? 30_000;
}
function heavyFiles() {
  const cpu = new Map(HEAVY_FILES.map((file) => [file, HEAVY_CPU_MS]));
  for (const [file, ms] of cached(CPU_CACHE)) if (typeof ms === 'number') cpu.set(file, ms);
  return new Set([...cpu].filter(([, ms]) => ms >= HEAVY_CPU_MS).map(([file]) => file));
}
// Most test files wait on sockets and child processes, not on the CPU: node's default (one file at a time on two
// cores) left the machine idle most of the run. Four at once took the suite from 5 min 25 s to 3 min 19 s here;
// tests take ports from the OS and own their temporary folders, so files never share anything. The run stayed bound
// by waits (the files' walls added up to eight times their CPU), so six: the heavy files kept apart by spread(), the
// slots they leave hold files that mostly wait. On a machine whose load average already reaches its cores (a busy CI
// runner, the six burners of scripts/test-under-load.sh) four: more only starve each other's timed checks.
const BUSY_AT_START = (loadavg()[0] ?? 0) >= availableParallelism();
const CONCURRENCY = BUSY_AT_START ? 4 : 6;
/** The files in order, a heavy one moved behind light ones while HEAVY_TOGETHER are among the last started. */
function spread(ordered, heavy) {
  const pending = [...ordered];
  const out = [];
  while (pending.length > 0) {
    const recent = out.slice(-(CONCURRENCY - 1)).filter((file) => heavy.has(file)).length;
    const light = recent >= HEAVY_TOGETHER ? pending.findIndex((file) => !heavy.has(file)) : 0;
    out.push(...pending.splice(Math.max(0, light), 1));
  }
  return out;
}
const expected = expectedMs();
const files = spread(
  find(join(root, 'test'), '.test.ts')
    .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
    .sort()
    .sort((a, b) => expected(b) - expected(a)),
  heavyFiles(),
);
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Runs of this script alive in this tree, one file each (named by pid) in a folder git ignores.
const runs = join(root, 'node_modules', '.cache', 'iotc-test-runs');
mkdirSync(runs, { recursive: true });
const mine = join(runs, String(process.pid));
writeFileSync(mine, `${new Date().toISOString()} ${args.join(' ')}\n`);
process.on('exit', () => rmSync(mine, { force: true }));
function othersAlive() {
  return readdirSync(runs)
    .map(Number)
    .filter((pid) => {
      if (!pid || pid === process.pid) return false;
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        rmSync(join(runs, String(pid)), { force: true }); // a run that died without cleaning up
        return false;
      }
    });
}

// The `iotc` children the tests start (conformance runs against `iotc simulate`, the deviation runs, certify and
// load sessions: the longest tests) run the compiled CLI, built here first, as an installed package does. Through
// ts-node every child and each of its cucumber workers loaded the TypeScript compiler and transpiled every module
// again (a conformance run took 25 s from the sources, 13 s compiled), and the suite was bound by that CPU. The test
// files themselves stay on ts-node; test/cli/source-mode.test.ts keeps one run through ts-node, as `npm start` does.
// `npm run build` empties dist/ first, so no compiled module of a moved source is left to load. A build costs about
// a minute of CPU here, so it is skipped when dist/ is current: the stamp below lists the sources of the last build
// (tsconfig.build.json's folders, the tsconfigs, package.json) and when it was made.
const STAMP = join(root, 'dist', '.iotc-test-build.json');
const SOURCE_DIRS = ['faults', 'lib', 'src', 'schemas', 'steps', 'simulators', 'load'];
function sources() {
  return [
    ...SOURCE_DIRS.flatMap((dir) => find(join(root, dir), '.ts')),
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
  ].sort();
}
function staleness() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return 'dist/ was not built by this script';
  }
  const now = sources();
  if (now.join('\n') !== (stamp.sources ?? []).join('\n')) return 'a source was added or removed';
  const newer = now.find((file) => statSync(join(root, file)).mtimeMs > stamp.builtAtMs);
  return newer ? `${newer} changed` : undefined;
}
if (!noBuild) {
  const why = rebuild ? '--rebuild' : staleness();
  if (why) {
    const others = othersAlive();
    if (others.length > 0) {
      console.error(
        `dist/ needs a build (${why}), but another scripts/test.js runs in this tree (pid ${others.join(', ')}) ` +
          'on dist/: a build would empty it under those tests. Wait for it to end, or pass --no-build.',
      );
      process.exit(2);
    }
    console.log(`building dist/ (${why})`);
    // the sources as they are before the build: an edit during the build makes the next run build again
    const builtAtMs = Date.now();
    const listed = sources();
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) {
      console.error('npm run build failed: the tests run the compiled CLI');
      process.exit(build.status ?? 1);
    }
    writeFileSync(STAMP, `${JSON.stringify({ builtAtMs, sources: listed })}\n`);
  } else console.log('dist/ is current: no build');
}

/** CPU seconds of the children this process waited for (Linux: /proc/self/stat's cutime and cstime). */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const ticks = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(13, 15)
      .map(Number);
    return (ticks[0] + ticks[1]) / 100;
  } catch {
    return undefined; // not Linux
  }
}
// the sources missing from the hook's cache transpiled here, once, not by four file processes at once; the test files
// to run and the other .ts files of test/, bench/ and scripts/ (their helpers, what they load) too: each file's
// process loads its own file and its helpers through the hook, and one that misses the cache loads the TypeScript
// compiler for them, about 0.5 CPU-s a file (in a fresh clone, or after an edit of a helper most files import, all 150
// did: some 75 CPU-s); here one process transpiles them in a few seconds (bench/README.md "The test files' own
// processes")
const helpers = ['test', 'bench', 'scripts'].flatMap((dir) =>
  find(join(root, dir), '.ts').filter(
    (file) => !file.endsWith('.test.ts') && !file.endsWith('.d.ts'),
  ),
);
require(join(root, 'lib', 'ts-register.js')).cacheMissing(
  [...files, ...helpers].map((file) => join(root, file)),
);
const cpuBefore = childrenCpuSeconds() ?? 0; // the build's, if any, left out
const cpuDir = mkdtempSync(join(tmpdir(), 'iotc-test-cpu-'));
const startedAt = Date.now();
const loadBefore = loadavg()[0];
const result = spawnSync(
  process.execPath,
  [
    // the test files run from their TypeScript through the checkout's hook (lib/ts-register.js: ts-node's
    // transpile-only output, kept in a cache on disk). Through ts-node each of the 120-odd file processes loaded the
    // TypeScript compiler and transpiled every module it imports again (the reference platform's, the steps'): half
    // of the suite's CPU, about 2.8 s a file. With the cache a file's process transpiles only what changed.
    '--require',
    join(root, 'lib', 'ts-register.js'),
    // V8's code cache (lib/compile-cache.js, as the CLI and its workers have it) for the .js modules the files load
    // (node_modules': mqtt, fast-check, cucumber's parts; the .ts sources go through the hook above): over 4
    // alternating rounds of 26 files (test/platform/ and four more) at load average 8-16, their own CPU 27.1, 24.2,
    // 33.2, 34.4 s without it, 23.9, 22.9, 30.8, 34.6 s with it
    '--require',
    join(root, 'lib', 'compile-cache.js'),
    // each file's wall and CPU seconds, its children's included, for the reporter
    '--require',
    join(__dirname, 'test-cpu.js'),
    // node's runner, keeping the order above; reporters: spec, then where the time went (test-times-reporter.js)
    join(__dirname, 'test-run.js'),
    String(CONCURRENCY),
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      TS_NODE_PROJECT: join(root, 'tsconfig.json'),
      IOTC_COMPILED: '1',
      IOTC_TEST_CPU_DIR: cpuDir,
      IOTC_TEST_TIMES_CACHE: TIMES_CACHE,
      IOTC_TEST_CPU_CACHE: CPU_CACHE,
    },
  },
);
rmSync(cpuDir, { recursive: true, force: true });
const cpuAfter = childrenCpuSeconds();
const cpu = cpuAfter === undefined ? '' : `, ${(cpuAfter - cpuBefore).toFixed(0)} CPU seconds`;
console.log(
  `${files.length} test files: ${((Date.now() - startedAt) / 1000).toFixed(0)} s wall${cpu}, ${CONCURRENCY} files at once, load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`,
);
process.exit(result.status ?? 1);
