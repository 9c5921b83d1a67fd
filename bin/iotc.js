#!/usr/bin/env node
// The `iotc` command. An installed package runs its compiled JavaScript (dist/): no ts-node, a fast start.
// A checkout (the TypeScript sources are here) runs them through lib/ts-register.js (transpiled on load, without
// type checking, and cached by content), so an edit takes effect without a build (type checking is
// `npm run typecheck`); IOTC_COMPILED=1 runs dist/ there too.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const fromSource =
  existsSync(join(root, 'src', 'cli', 'main.ts')) && process.env.IOTC_COMPILED !== '1';
// V8's code cache for the JavaScript modules this process loads (lib/compile-cache.js); the workers of a parallel
// run preload it. From the sources it serves node_modules (cucumber, undici, ajv ...), the .ts files keep Node's
// own compile (their source maps).
require('../lib/compile-cache.js');
if (fromSource) {
  require('../lib/ts-register.js');
  require('../src/cli/main.ts').main();
} else {
  require('../dist/src/cli/main.js').main();
}
