// `npm ci`'s prepare, after lib/ts-register.js has transpiled every source: fills the two other caches that a first
// `npm start` would otherwise fill while it runs, in each of its processes at once (issue 29 item 1):
// - the JSON Schema validators (schemas/validate.ts, node_modules/.cache/iotc-validators): every schema the
//   schemas/ modules export is compiled once here; the CLI and four workers of a first run compiled them each;
// - V8's code cache (lib/compile-cache.js, node_modules/.cache/iotc-v8) for the modules the CLI and a worker load,
//   under the flags each runs with (a worker's are src/engine/worker-environment.ts's): one process loads what the
//   CLI loads, another what a worker loads, side by side (two cores). What they write is marked as prepared: it
//   holds the code of loading only, so the first run uses it and writes its own, fuller, in its place;
// - the embedded target's certificates, which runs keep (src/engine/worker-environment.ts).
// A failure only makes the first run slower: it is said, and the prepare step still succeeds.
//   node lib/warm-caches.js          both (what prepare runs)
'use strict';
const { spawn } = require('node:child_process');
const { readdirSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

/** The step definition files, as cucumber.js's `require` globs them (steps/**\/*.ts). */
function stepFiles() {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  walk(join(ROOT, 'steps'));
  return files.sort();
}

/** Loads the step definitions as cucumber's support code (they register with a builder that is running). */
function loadSteps() {
  const { supportCodeLibraryBuilder } = require(
    require.resolve('@cucumber/cucumber', { paths: [ROOT] }),
  );
  let id = 0;
  supportCodeLibraryBuilder.reset(ROOT, () => String(id++), {
    requireModules: [],
    requirePaths: [],
    importPaths: [],
    loaders: [],
  });
  for (const file of stepFiles()) require(file);
}

/** Every schema the schemas/ modules export, compiled into the validator cache. */
function compileValidators() {
  const { isValid } = require(join(ROOT, 'schemas', 'validate.ts'));
  let count = 0;
  for (const file of readdirSync(join(ROOT, 'schemas'))) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts') || file === 'validate.ts') continue;
    for (const value of Object.values(require(join(ROOT, 'schemas', file)))) {
      if (!looksLikeSchema(value)) continue;
      try {
        isValid(value, null);
        count++;
      } catch {
        // not a schema after all (or one that only compiles composed into another): left to the run
      }
    }
  }
  return count;
}

function looksLikeSchema(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return ['type', 'properties', 'oneOf', 'anyOf', 'allOf', '$ref', '$schema'].some(
    (key) => key in value,
  );
}

/** One of the two loading processes: `--cli` (what `iotc run` loads) or `--worker` (what a worker loads). */
function load(role) {
  // the worker's flags preload lib/compile-cache.js and lib/ts-register.js already; the CLI's are bin/iotc.js's
  require('./compile-cache.js');
  require('./ts-register.js');
  if (role === '--cli') {
    require(join(ROOT, 'src', 'cli', 'main.ts'));
    require(join(ROOT, 'src', 'cli', 'run.ts'));
    loadSteps();
    return `validators of ${compileValidators()} schemas in the cache`;
  }
  require(require.resolve('@cucumber/cucumber/lib/runtime/parallel/worker', { paths: [ROOT] }));
  loadSteps();
  return 'worker modules loaded';
}

function run(env, role) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [__filename, role], {
      cwd: ROOT,
      env: { ...env, IOTC_COMPILE_CACHE_PREPARED: '1' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`the ${role.slice(2)} warm-up exited with ${code}`)),
    );
  });
}

/** Both loading processes at once; resolves when both are done. */
async function warmCaches() {
  require('./ts-register.js');
  const { workerEnvironment, keptEmbeddedCertificates } = require(
    join(ROOT, 'src', 'engine', 'worker-environment.ts'),
  );
  const workerEnv = await workerEnvironment(false, process.env, false);
  // the embedded target's certificates, which a run keeps (worker-environment.ts)
  await keptEmbeddedCertificates();
  await Promise.all([run(process.env, '--cli'), run(workerEnv, '--worker')]);
}

if (require.main === module && (process.argv[2] === '--cli' || process.argv[2] === '--worker')) {
  const started = process.hrtime.bigint();
  const done = load(process.argv[2]);
  if (process.argv[2] === '--cli')
    console.log(
      `iotc: V8's code cache warmed, ${done} (${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s)`,
    );
  process.exit(0);
} else if (require.main === module) {
  prepare();
}

/** What `npm ci`'s prepare runs after the TypeScript cache: never fails the installation. */
function prepare() {
  return warmCaches().catch((error) =>
    console.error(`iotc: the caches were not warmed: ${error.message}`),
  );
}

module.exports = { warmCaches, prepare };
