// Preloaded into every test file's process by scripts/test.js (`--require`): when the file's process ends, it writes
// its start, its wall time and its CPU seconds, its own and those of the children it waited for (the `iotc` runs, simulators and
// cucumber workers it started: /proc/self/stat's utime, stime, cutime and cstime), to IOTC_TEST_CPU_DIR, where
// scripts/test-times-reporter.js reads them. Linux only (elsewhere it writes the wall time alone); it asserts nothing.
'use strict';
const dir = process.env.IOTC_TEST_CPU_DIR;
if (dir && process.argv[1]) {
  const { readFileSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const file = process.argv[1];
  process.on('exit', () => {
    const wallMs = Math.round(process.uptime() * 1000);
    // when the file started (epoch ms), for the schedule: which files ran side by side, what ran last
    const entry = { file, wallMs, startedAtMs: Date.now() - wallMs };
    try {
      // fields 14 to 17 of /proc/<pid>/stat, in clock ticks (100 a second on Linux): after the `(comm)` field, which
      // may hold spaces, they are the 12th to 15th
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = fields.slice(11, 15).map(Number);
      entry.cpuSelfMs = (ticks[0] + ticks[1]) * 10;
      entry.cpuChildrenMs = (ticks[2] + ticks[3]) * 10;
    } catch {
      // not Linux: the wall time alone
    }
    try {
      writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(entry));
    } catch {
      // the run's folder is gone: nothing to say
    }
  });
}
