/**
 * One exit-code rule for `iotc run`, `iotc certify` and `iotc report merge`
 * (src/report/exit-code.ts, docs/reference/verdicts.md "Exit codes"): the code follows the overall
 * verdict. A FAIL of a SHOULD alone is PASS WITH WARNINGS and exits 0 (run used to exit 1 where
 * certify exited 0); a run that left requirements it selected NOT TESTED for another reason than
 * its selection exits 6 (it used to exit 0: CI went green on what it never proved); a run that
 * decided nothing exits 3.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iotc, ROOT } from '../support/iotc';
import { requirement } from '../support/requirements';
import { EXIT, reportExitCode } from '../../src/report/exit-code';
import { withOverall, type ConformanceReport } from '../../src/report/conformance';
import type { RequirementResult, Verdict } from '../../src/report/verdicts';

type Row = { verdict: Verdict; level?: 'MUST' | 'SHOULD' | 'MAY'; reason?: string };

function report(rows: Record<string, Row>, run: ConformanceReport['run'] | object = {}) {
  return withOverall({
    tool: { name: 'iotc', version: '0' },
    target: { name: 't', httpUrl: 'h', adminUrl: 'a', capabilities: [] },
    run: {
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:00:01Z',
      durationMs: 1000,
      tagExpression: '',
      scenarios: { PASSED: 1 },
      seeds: [],
      ...run,
    },
    summary: [],
    requirements: Object.entries(rows).map(
      ([id, { verdict, level, reason }]): RequirementResult => ({
        ...requirement(id),
        ...(level ? { level } : {}),
        verdict,
        ...(reason ? { reason } : {}),
        planned: 1,
        scenarios:
          verdict === 'NOT TESTED'
            ? []
            : [
                {
                  name: id,
                  location: `${id}.feature:1`,
                  status: verdict === 'FAIL' ? 'FAILED' : 'PASSED',
                  durationMs: 1,
                },
              ],
      }),
    ),
    untraced: [],
  });
}

test('the exit code follows the overall verdict, one rule for run, certify and merge', () => {
  const pass: Row = { verdict: 'PASS' };
  const shouldFails: Row = { verdict: 'FAIL', level: 'SHOULD' };
  const cases: Array<[string, ConformanceReport, 'selection' | 'exercised', number, string]> = [
    ['all pass', report({ A: pass }), 'selection', 0, 'CONFORMANT'],
    ['a SHOULD fails', report({ A: pass, B: shouldFails }), 'selection', 0, 'PASS WITH WARNINGS'],
    [
      'a MUST fails',
      report({ A: { verdict: 'FAIL' }, B: shouldFails }),
      'selection',
      1,
      'NOT CONFORMANT',
    ],
    [
      'a MAY fails',
      report({ A: { verdict: 'FAIL', level: 'MAY' } }),
      'selection',
      1,
      'NOT CONFORMANT',
    ],
    [
      'only the selection left some out',
      report({
        A: pass,
        B: {
          verdict: 'NOT TESTED',
          reason: 'not selected: none of its 2 scenarios was in the selection',
        },
        C: {
          verdict: 'NOT TESTED',
          reason: 'partial: 1 of 2 scenarios ran (the selection left 1 out)',
        },
      }),
      'selection',
      0,
      'INCOMPLETE',
    ],
    [
      'skipped scenarios left one undecided',
      report({
        A: pass,
        B: { verdict: 'NOT TESTED', reason: '1 of 2 scenarios ran; the others were skipped: x' },
      }),
      'selection',
      6,
      'INCOMPLETE',
    ],
    [
      'a certified client did not exercise one',
      report({
        A: pass,
        B: { verdict: 'NOT TESTED', reason: 'the client never sent an RPC reply' },
      }),
      'exercised',
      0,
      'INCOMPLETE',
    ],
    [
      'INCONCLUSIVE wins over undecided',
      report({
        A: { verdict: 'INCONCLUSIVE' },
        B: { verdict: 'NOT TESTED', reason: 'no scenario carries @B' },
      }),
      'selection',
      4,
      'INCOMPLETE',
    ],
    [
      'nothing decided',
      report({
        A: { verdict: 'NOT TESTED', reason: '0 of 1 scenarios ran; the others were skipped: x' },
      }),
      'selection',
      3,
      'NOT TESTED',
    ],
    [
      'could not test',
      report({ A: pass }, { couldNotTest: 'unreachable' }),
      'exercised',
      3,
      'NOT TESTED',
    ],
  ];
  for (const [name, input, scope, code, verdict] of cases) {
    assert.equal(input.verdict, verdict, name);
    assert.equal(reportExitCode(input, scope), code, name);
  }
  assert.equal(EXIT.incomplete, 6);
});

test('iotc report merge: a SHOULD FAIL alone exits 0 with PASS WITH WARNINGS, a MUST FAIL exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-exit-merge-'));
  const merge = async (name: string, rows: Record<string, Row>) => {
    const part = join(dir, name, 'part');
    mkdirSync(part, { recursive: true });
    writeFileSync(join(part, 'conformance.json'), JSON.stringify(report(rows)));
    return iotc(['report', 'merge', part, '--out', join(dir, name, 'out')], join(dir, 'state'));
  };
  const warned = await merge('should', {
    A: { verdict: 'PASS' },
    B: { verdict: 'FAIL', level: 'SHOULD' },
  });
  assert.equal(warned.code, 0, warned.output);
  assert.match(warned.output, /PASS WITH WARNINGS/);
  const failed = await merge('must', { A: { verdict: 'FAIL' } });
  assert.equal(failed.code, 1, failed.output);
  assert.match(failed.output, /NOT CONFORMANT/);
});

test('iotc run: requirements the run selected but skipped exit 6 (INCOMPLETE), a selection decided whole exits 0, nothing decided exits 3', {
  timeout: 300_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-exit-run-'));
  // the embedded reference without mqtt5: ROB-NEST-01's MQTT 5 scenarios are skipped, its HTTP ones
  // run
  const profile = JSON.parse(
    readFileSync(join(ROOT, 'src', 'target', 'profiles', 'embedded.json'), 'utf8'),
  ) as { name: string; capabilities: string[] };
  profile.name = 'exit-codes';
  profile.capabilities = profile.capabilities.filter((capability) => capability !== 'mqtt5');
  const profilePath = join(dir, 'exit-codes.json');
  writeFileSync(profilePath, JSON.stringify(profile));
  // each run with a state folder of its own (journal, run lock), so the three go side by side
  const run = (name: string, tags: string) =>
    iotc(
      ['run', '--target', profilePath, '--reports', join(dir, name), '--tags', tags],
      join(dir, `state-${name}`),
    );
  const verdictOf = (name: string) =>
    (JSON.parse(readFileSync(join(dir, name, 'conformance.json'), 'utf8')) as { verdict: string })
      .verdict;

  const [skipped, whole, nothing] = await Promise.all([
    run('skipped', '@ROB-NEST-01 or @HTTP-TEL-01'),
    run('whole', '@HTTP-TEL-01'),
    run('nothing', '@ROB-NEST-01'),
  ]);
  assert.equal(skipped.code, 6, skipped.output.slice(-3000));
  assert.equal(verdictOf('skipped'), 'INCOMPLETE');
  assert.match(
    skipped.output,
    /INCOMPLETE: 1 requirement the run selected stayed NOT TESTED \(ROB-NEST-01\): exit 6/,
  );

  assert.equal(whole.code, 0, whole.output.slice(-3000));
  assert.equal(verdictOf('whole'), 'INCOMPLETE');

  assert.equal(nothing.code, 3, nothing.output.slice(-3000));
  assert.equal(verdictOf('nothing'), 'NOT TESTED');
});
