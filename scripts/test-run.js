// The test runner process of scripts/test.js: node's test runner through its run() API, because `node --test` sorts
// the files it is given by name and run() keeps their order (scripts/test.js puts the slowest first). Its arguments:
// the concurrency, then the files. Its reporters: `spec` and scripts/test-times-reporter.js, both to stdout; it exits
// 1 when a test failed, as `node --test` does. The preloads (ts-node, scripts/test-cpu.js) come with its own
// command line, and each file's process inherits them.
'use strict';
const { PassThrough } = require('node:stream');
const { resolve } = require('node:path');
const { run } = require('node:test');
const { spec } = require('node:test/reporters');
const testTimes = require('./test-times-reporter.js');

const [concurrency, ...files] = process.argv.slice(2);
const stream = run({ files: files.map((file) => resolve(file)), concurrency: Number(concurrency) });
const toSpec = new PassThrough({ objectMode: true });
const toTimes = new PassThrough({ objectMode: true });
let failed = false;
stream.on('data', (event) => {
  if (event.type === 'test:fail') failed = true;
  toSpec.write(event);
  toTimes.write(event);
});
stream.on('end', () => {
  toSpec.end();
  toTimes.end();
});
// the results first, then (once they are all out) where the time went
const specOut = toSpec.compose(spec);
specOut.pipe(process.stdout, { end: false });
const timesOut = toTimes.compose(testTimes);
let timesText = '';
timesOut.on('data', (chunk) => (timesText += chunk));
let ended = 0;
const done = () => {
  ended += 1;
  if (ended < 2) return;
  process.stdout.write(timesText);
  process.exitCode = failed ? 1 : 0;
};
specOut.on('end', done);
timesOut.on('end', done);
