/**
 * The compiled CLI (dist/, what an installed package runs, no ts-node) runs a conformance selection
 * and the kill matrix. The kill matrix once loaded the TypeScript step files in compiled mode and
 * stopped at their first `import`. dist/ is built by scripts/test.js before any test starts (every
 * `iotc` child of the suite runs it); a build here would empty dist/ under the tests running beside
 * this one. The runs are real child processes, killed on every path.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, exitOf, spawnIotc } from '../support/children';

test('compiled: iotc run and iotc faults work without ts-node', {
  timeout: 900_000, // a hang guard: two runs on a loaded machine
}, async () => {
  assert.ok(
    existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js')),
    'dist/ is not built: run the tests through scripts/test.js (npm test), which builds it first',
  );
  const reports = mkdtempSync(join(tmpdir(), 'iotc-compiled-'));
  // no ts-node in the children: a require of a .ts file would fail to parse
  const env = { ...process.env, IOTC_COMPILED: '1', NODE_OPTIONS: '' };
  try {
    const run = await exitOf(
      spawnIotc(['run', '--tags', '@HTTP-TEL-01', '--reports', join(reports, 'run')], { env }),
    );
    assert.equal(run.code, 0, run.output);
    const faults = await exitOf(
      spawnIotc(['faults', '--requirements', 'HTTP-TEL-01', '--reports', join(reports, 'faults')], {
        env,
      }),
    );
    assert.equal(faults.code, 0, faults.output);
    const matrix = JSON.parse(readFileSync(join(reports, 'faults', 'faults.json'), 'utf8')) as {
      faults: Array<{ id: string; outcome: string }>;
    };
    assert.ok(matrix.faults.length > 0, 'the matrix ran faults');
    assert.deepEqual(
      matrix.faults.filter((fault) => fault.outcome !== 'killed'),
      [],
      'every fault of HTTP-TEL-01 killed by the compiled steps',
    );
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
});
