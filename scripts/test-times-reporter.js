// A reporter for node's test runner (scripts/test.js adds it beside `spec`): the wall time of each test file, the
// slowest ten printed at the end, and all of them written as JSON when IOTC_TEST_TIMES names a file. It says where
// the suite's minutes go; it asserts nothing.
'use strict';
const { writeFileSync } = require('node:fs');

module.exports = async function* testTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      const file = event.data.file ?? event.data.name;
      files.set(file, (files.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  const sorted = [...files].sort((a, b) => b[1] - a[1]);
  if (process.env.IOTC_TEST_TIMES)
    writeFileSync(
      process.env.IOTC_TEST_TIMES,
      `${JSON.stringify(Object.fromEntries(sorted.map(([file, ms]) => [file, Math.round(ms)])), null, 1)}\n`,
    );
  yield '\nslowest test files (wall seconds, files run four at once):\n';
  for (const [file, ms] of sorted.slice(0, 10))
    yield `${(ms / 1000).toFixed(1).padStart(7)}  ${file.replace(`${process.cwd()}/`, '')}\n`;
};
