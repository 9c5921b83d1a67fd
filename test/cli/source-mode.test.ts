/**
 * A checkout runs `iotc` from its TypeScript sources through lib/ts-register.js (what `npm start`
 * does), while the suite's other `iotc` children run the compiled dist/ (scripts/test.js sets
 * IOTC_COMPILED=1 for speed). This keeps one conformance selection on the source path: a module
 * that only loads compiled, or a step file the TypeScript hook cannot register in the workers of a
 * parallel run, fails here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { exitOf, spawnIotc } from '../support/children';

test('from the sources: iotc run through the TypeScript hook, in parallel workers', {
  timeout: 900_000, // a hang guard: a cold TypeScript cache on a loaded machine
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-source-mode-'));
  try {
    const run = await exitOf(
      spawnIotc(
        ['run', '--tags', '@HTTP-TEL-01 or @GW-CONN-01', '--parallel', '2', '--reports', reports],
        { env: { ...process.env, IOTC_COMPILED: '0' } },
      ),
    );
    assert.equal(run.code, 0, run.output);
    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      requirements: Array<{ id: string; verdict: string }>;
    };
    const verdicts = Object.fromEntries(
      report.requirements
        .filter((requirement) => ['HTTP-TEL-01', 'GW-CONN-01'].includes(requirement.id))
        .map((requirement) => [requirement.id, requirement.verdict]),
    );
    assert.deepEqual(verdicts, { 'HTTP-TEL-01': 'PASS', 'GW-CONN-01': 'PASS' });
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
});
