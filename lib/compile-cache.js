// V8's code cache for the CommonJS modules a process loads, kept on disk: what Node 22's
// module.enableCompileCache() does (used where it exists), for Node 20. A parallel `iotc run` starts up to eight
// processes that each load and compile the same ~850 modules (cucumber, the steps, the reference platform); V8's
// compile of their source was about a tenth of each worker's CPU. With the cache a process hands V8 the code it
// produced last time; V8 checks the source and its own version and flag hash, and rejects (then recompiles) data
// that does not match, so the cache can make a start slower at worst, never different.
//
// Plain JavaScript, so that it can be preloaded (`node --require lib/compile-cache.js`) before anything else loads;
// it does nothing where IOTC_COMPILE_CACHE=off. The folder: IOTC_COMPILE_CACHE, else node_modules/.cache/iotc-v8 of
// the package. A module whose source holds `import(` is left to Node (a script compiled here has no loader for a
// dynamic import on Node 20).
// IOTC_COMPILE_CACHE_PREPARED=1 (lib/warm-caches.js, `npm ci`'s prepare, which only loads the modules) writes each
// entry as `<key>.prepared`: a process that finds no `<key>` uses that one and writes `<key>` once it has run a while,
// with the functions it ran (V8 compiles most of them lazily, so a cache of loading alone holds few).
'use strict';
const Module = require('node:module');
const vm = require('node:vm');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** Bump when the cached form changes for another reason than the source, the file name or Node's version. */
const FORMAT = '1';
/** How long after the last module compiled here its code is written (it holds the functions run meanwhile too). */
const WRITE_AFTER_MS = 2000;

function cacheDirectory() {
  const chosen = process.env.IOTC_COMPILE_CACHE;
  if (chosen === 'off') return undefined;
  return chosen || join(__dirname, '..', 'node_modules', '.cache', 'iotc-v8');
}

function makeRequire(mod) {
  const require = function require(id) {
    return mod.require(id);
  };
  require.resolve = function resolve(request, options) {
    return Module._resolveFilename(request, mod, false, options);
  };
  require.resolve.paths = function paths(request) {
    return Module._resolveLookupPaths(request, mod);
  };
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

let installed = false;

function install() {
  const directory = cacheDirectory();
  if (installed || !directory) return false;
  installed = true;
  if (typeof Module.enableCompileCache === 'function') {
    Module.enableCompileCache(directory);
    return true;
  }
  const original = Module.prototype._compile;
  // V8 rejects code cached under other flags (a worker's --max-semi-space-size is one): processes started with
  // different options keep apart entries, rather than each rejecting and rewriting the other's
  const flags = `${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}`;
  /**
   * Scripts compiled without usable cached data: their code is written once they have run a while. `true` beside one
   * that V8 rejected: it is rewritten whatever is there now; the others (no entry, or `npm ci`'s `.prepared` one) are
   * left to a process of the same flags that wrote theirs meanwhile: a first run's workers load the same modules, and
   * each wrote all of them after the other (the first `npm start` of a fresh clone, bench/README.md "The
   * coordinator's messages and a first run's code cache").
   */
  const unwritten = new Map();
  const suffix = process.env.IOTC_COMPILE_CACHE_PREPARED === '1' ? '.prepared' : '';
  let timer;
  const writeAll = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (unwritten.size === 0) return;
    try {
      mkdirSync(directory, { recursive: true });
    } catch {
      unwritten.clear();
      return;
    }
    for (const [file, { script, rejected }] of unwritten) {
      try {
        if (!rejected && suffix === '' && existsSync(file)) continue;
        // written aside and renamed: the workers of a parallel run write the same files at once
        const aside = `${file}.${process.pid}`;
        writeFileSync(aside, script.createCachedData());
        renameSync(aside, `${file}${suffix}`);
      } catch {
        // a read-only installation: no cache, the same modules
      }
    }
    unwritten.clear();
  };
  Module.prototype._compile = function compile(content, filename) {
    if (!filename.endsWith('.js') || content.includes('import(')) {
      return original.call(this, content, filename);
    }
    const key = createHash('sha256')
      .update(`${FORMAT}\0${process.version}\0${flags}\0${filename}\0`)
      .update(content)
      .digest('hex')
      .slice(0, 40);
    const file = join(directory, key);
    let cachedData;
    let prepared = false;
    try {
      cachedData = readFileSync(file);
    } catch {
      try {
        cachedData = readFileSync(`${file}.prepared`);
        prepared = true;
      } catch {
        cachedData = undefined;
      }
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      // a syntax error: Node's own compile reports it as it always does
      return original.call(this, content, filename);
    }
    if (cachedData === undefined || script.cachedDataRejected || prepared) {
      unwritten.set(file, { script, rejected: script.cachedDataRejected === true && !prepared });
      if (timer) clearTimeout(timer);
      timer = setTimeout(writeAll, WRITE_AFTER_MS);
      timer.unref();
    }
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(
      this.exports,
      this.exports,
      makeRequire(this),
      this,
      filename,
      dirname(filename),
    );
  };
  process.once('exit', writeAll);
  return true;
}

module.exports = { install };
install();
