#!/usr/bin/env node
// The `iotc` command. TypeScript runs through ts-node in transpile-only mode (type checking is `npm run typecheck`).
'use strict';
require('ts-node').register({
  transpileOnly: true,
  project: require('node:path').join(__dirname, '..', 'tsconfig.json'),
});
require('../src/cli/main.ts');
