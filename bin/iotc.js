#!/usr/bin/env node
// The `iotc` command. An installed package runs its compiled JavaScript (dist/): no ts-node, a fast start.
// A checkout (the TypeScript sources are here) runs them through ts-node in transpile-only mode, so an edit takes
// effect without a build (type checking is `npm run typecheck`); IOTC_COMPILED=1 runs dist/ there too.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const fromSource =
  existsSync(join(root, 'src', 'cli', 'main.ts')) && process.env.IOTC_COMPILED !== '1';
if (fromSource) {
  require('ts-node').register({ transpileOnly: true, project: join(root, 'tsconfig.json') });
  require('../src/cli/main.ts').main();
} else {
  require('../dist/src/cli/main.js').main();
}
