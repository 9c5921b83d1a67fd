// Runs the TypeScript sources of a checkout without a build: a require hook for .ts files that transpiles each file
// with TypeScript's transpileModule (what ts-node's transpile-only mode does: no type checking, that is
// `npm run typecheck`) and keeps the JavaScript in a cache on disk, keyed by the file's path and content, the
// TypeScript version, tsconfig.json and this file. A process whose files are all in the cache never loads the
// TypeScript compiler (0.6 s of CPU) nor transpiles (about 20 ms of CPU a file): through ts-node, every process of
// a run (the CLI and each of its cucumber workers) did both for some 200 files, 50 s of CPU on two cores. An edited
// file misses the cache and is transpiled again where it is loaded, so an edit still needs no build.
// `npm ci` fills the cache (`prepare` calls prepare() below; it does nothing where this file is not there yet, as
// in deploy/Dockerfile's `npm ci` of package.json alone), so the first `npm start` is warm too.
// Stack traces point into the .ts sources (an inline source map, node's own source map support), as under ts-node;
// cucumber takes step definition locations from them.
//   require('./lib/ts-register.js')      registers the hook (also as a cucumber requireModule, `node -r`)
//   node lib/ts-register.js --warm       transpiles every source into the cache (two threads)
// IOTC_TS_CACHE=<folder> puts the cache elsewhere; IOTC_TS_CACHE=off keeps none.
'use strict';
const { createHash } = require('node:crypto');
const {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  writeFileSync,
} = require('node:fs');
const { join, sep } = require('node:path');

const ROOT = join(__dirname, '..');
/** The folders whose sources the CLI, the steps and the reference load (tsconfig.build.json's). */
const SOURCE_FOLDERS = ['faults', 'lib', 'src', 'schemas', 'steps', 'simulators', 'load'];
/** Bump when the transpiled form changes for another reason than the inputs of the key. */
const FORMAT = '1';
const NODE_MODULES = `${sep}node_modules${sep}`;

function cacheDirectory() {
  const chosen = process.env.IOTC_TS_CACHE;
  if (chosen === 'off') return undefined;
  return chosen || join(ROOT, 'node_modules', '.cache', 'iotc-ts');
}

let saltValue;
/** What every transpiled file depends on besides its own path and text. */
function salt() {
  if (saltValue === undefined) {
    const typescriptVersion = JSON.parse(
      readFileSync(require.resolve('typescript/package.json', { paths: [ROOT] }), 'utf8'),
    ).version;
    saltValue = [
      FORMAT,
      typescriptVersion,
      readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'),
      readFileSync(__filename, 'utf8'),
    ].join('\0');
  }
  return saltValue;
}

let compiler;
/** TypeScript and the options of tsconfig.json, loaded on the first miss only. */
function typescript() {
  if (compiler === undefined) {
    const ts = require(require.resolve('typescript', { paths: [ROOT] }));
    const configPath = join(ROOT, 'tsconfig.json');
    const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT, undefined, configPath);
    compiler = {
      ts,
      options: {
        ...options,
        // the package is "type": "commonjs": every .ts file is a CommonJS module, as ts-node emits it
        module: ts.ModuleKind.CommonJS,
        noEmit: false,
        declaration: false,
        sourceMap: false,
        inlineSourceMap: true,
        inlineSources: false,
      },
    };
  }
  return compiler;
}

function transpile(source, filename) {
  const { ts, options } = typescript();
  return ts.transpileModule(source, { fileName: filename, compilerOptions: options }).outputText;
}

function cacheFile(directory, filename, source) {
  const key = createHash('sha1')
    .update(salt())
    .update('\0')
    .update(filename)
    .update('\0')
    .update(source)
    .digest('hex');
  return join(directory, `${key}.js`);
}

/** The JavaScript of one .ts file: from the cache, else transpiled and put there. */
function javascriptOf(filename, source = readFileSync(filename, 'utf8')) {
  const directory = cacheDirectory();
  if (directory === undefined) return transpile(source, filename);
  const cached = cacheFile(directory, filename, source);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // a miss
  }
  const output = transpile(source, filename);
  try {
    mkdirSync(directory, { recursive: true });
    // written aside and renamed: a worker reading at the same moment sees the whole file or none
    const aside = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(aside, output);
    renameSync(aside, cached);
  } catch {
    // a read-only checkout: no cache, the same JavaScript
  }
  return output;
}

function register() {
  if (require.extensions['.ts']?.iotc) return;
  process.setSourceMapsEnabled(true);
  const hook = (module, filename) => {
    if (filename.includes(NODE_MODULES))
      throw new Error(`not transpiled from node_modules: ${filename}`);
    module._compile(javascriptOf(filename), filename);
  };
  hook.iotc = true;
  require.extensions['.ts'] = hook;
}

function sourceFiles() {
  const files = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of SOURCE_FOLDERS) if (existsSync(join(ROOT, folder))) walk(join(ROOT, folder));
  return files.sort();
}

/**
 * Transpiles here, before a parallel run forks its workers, the sources missing from the cache (an edited file, or a
 * cache emptied): otherwise every worker would load TypeScript for the same files at once. About 30 ms when none is.
 * `extraFiles`: absolute paths of .ts files besides the package's sources (scripts/test.js: the tests it runs, their
 * helpers and the benchmarks they load).
 */
function cacheMissing(extraFiles = []) {
  const directory = cacheDirectory();
  if (directory === undefined) return 0;
  let missing = 0;
  for (const file of [...sourceFiles(), ...extraFiles]) {
    const source = readFileSync(file, 'utf8');
    if (existsSync(cacheFile(directory, file, source))) continue;
    javascriptOf(file, source);
    missing++;
  }
  return missing;
}

/** Puts every source into the cache: two threads (the machines have two cores), each with half of the files. */
async function warm() {
  const { Worker } = require('node:worker_threads');
  const files = sourceFiles();
  const threads = 2;
  await Promise.all(
    Array.from({ length: threads }, (_, index) => {
      const share = files.filter((_, position) => position % threads === index);
      return new Promise((resolve, reject) => {
        const worker = new Worker(__filename, { workerData: share });
        worker.once('error', reject);
        worker.once('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`warm-up thread exited with ${code}`)),
        );
      });
    }),
  );
  return files.length;
}

const { isMainThread, workerData } = require('node:worker_threads');
if (!isMainThread && Array.isArray(workerData)) {
  for (const file of workerData) javascriptOf(file);
} else if (require.main === module && process.argv.includes('--warm')) {
  prepare();
} else {
  register();
}

/** `npm ci`'s prepare: fills the cache and says so; a failure only makes the first run slower, so it exits 0. */
function prepare() {
  const started = process.hrtime.bigint();
  return warm().then(
    (count) =>
      console.log(
        `iotc: ${count} TypeScript sources transpiled into the cache in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`,
      ),
    (error) => console.error(`iotc: the TypeScript cache was not filled: ${error.message}`),
  );
}

module.exports = { register, warm, prepare, cacheMissing, javascriptOf };
