// A reporter for node's test runner (scripts/test.js adds it beside `spec`): where the suite's minutes go. For each
// test file, its process's wall time and CPU seconds (its own and its children's, written by scripts/test-cpu.js into
// IOTC_TEST_CPU_DIR) or, without those, the sum of its top-level tests' durations; the slowest files printed at the
// end (all of them with IOTC_TEST_TIMES_ALL=1), and all of them written as JSON when IOTC_TEST_TIMES names a file.
// It asserts nothing.
'use strict';
const { readdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

function measured() {
  const dir = process.env.IOTC_TEST_CPU_DIR;
  const byFile = new Map();
  if (!dir) return byFile;
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return byFile;
  }
  for (const name of names) {
    try {
      const entry = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      byFile.set(entry.file, entry);
    } catch {
      // half written by a killed process: left out
    }
  }
  return byFile;
}

const seconds = (ms) => (ms === undefined ? '      -' : (ms / 1000).toFixed(1).padStart(7));

module.exports = async function* testTimes(source) {
  const files = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      const file = event.data.file ?? event.data.name;
      files.set(file, (files.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  const cpu = measured();
  const rows = [...files].map(([file, testsMs]) => {
    const entry = cpu.get(file);
    return {
      file: file.replace(`${process.cwd()}/`, ''),
      wallMs: entry?.wallMs ?? Math.round(testsMs),
      startedAtMs: entry?.startedAtMs,
      cpuSelfMs: entry?.cpuSelfMs,
      cpuChildrenMs: entry?.cpuChildrenMs,
    };
  });
  rows.sort((a, b) => b.wallMs - a.wallMs);
  // each file's wall and CPU for scripts/test.js's order next time (slowest first, the heaviest kept apart), merged
  // into the earlier runs' times
  mergeInto(process.env.IOTC_TEST_TIMES_CACHE, rows, (row) => row.wallMs);
  mergeInto(process.env.IOTC_TEST_CPU_CACHE, rows, (row) =>
    row.cpuSelfMs === undefined ? undefined : row.cpuSelfMs + (row.cpuChildrenMs ?? 0),
  );
  if (process.env.IOTC_TEST_TIMES)
    writeFileSync(process.env.IOTC_TEST_TIMES, `${JSON.stringify(rows, null, 1)}\n`);
  const shown = process.env.IOTC_TEST_TIMES_ALL ? rows : rows.slice(0, 12);
  yield "\nslowest test files (seconds: the file process's wall, its own CPU, its children's CPU):\n";
  yield '   wall  cpu-own cpu-children\n';
  for (const row of shown)
    yield `${seconds(row.wallMs)}  ${seconds(row.cpuSelfMs)}  ${seconds(row.cpuChildrenMs)}  ${row.file}\n`;
  const total = (key) => rows.reduce((sum, row) => sum + (row[key] ?? 0), 0);
  yield `${seconds(total('wallMs'))}  ${seconds(total('cpuSelfMs'))}  ${seconds(total('cpuChildrenMs'))}  all ${rows.length} files (sums)\n`;
};

/**
 * Sets each row's value in the JSON file `path` (file name -> number), keeping the other files'. Written aside and
 * renamed over it: node_modules of this project's worktrees are often hard links of one another, and a write in place
 * would change every tree's times at once.
 */
function mergeInto(path, rows, measure) {
  if (!path) return;
  let values = {};
  try {
    values = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // the first run here
  }
  for (const row of rows) {
    const value = measure(row);
    if (value !== undefined) values[row.file] = value;
  }
  try {
    const aside = `${path}.${process.pid}`;
    writeFileSync(aside, `${JSON.stringify(values, null, 1)}\n`);
    renameSync(aside, path);
  } catch {
    // a read-only tree: the order falls back to scripts/test.js's lists
  }
}
