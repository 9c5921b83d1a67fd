import { test } from 'node:test';
import { requirement } from '../support/requirements';
import assert from 'node:assert/strict';
import { mergeReports, ReportMergeError } from '../../src/report/merge';
import type { ConformanceReport } from '../../src/report/conformance';
import type { RequirementResult, Verdict } from '../../src/report/verdicts';

type Ran = Array<{
  location: string;
  status: 'PASSED' | 'FAILED' | 'SKIPPED' | 'INCONCLUSIVE';
  error?: string;
}>;

/**
 * A part's requirement: its verdict in that part, how many scenarios the suite holds for it, and
 * what the part ran.
 */
function part(
  target: string,
  requirements: Record<string, { verdict: Verdict; planned: number; ran: Ran }>,
  startedAt: string,
): ConformanceReport {
  return {
    tool: { name: 'iotc', version: '0' },
    target: { name: target, httpUrl: 'h', adminUrl: 'a', capabilities: ['claiming'] },
    run: {
      startedAt,
      finishedAt: startedAt,
      durationMs: 1000,
      tagExpression: '',
      scenarios: { PASSED: 2 },
      seeds: [],
    },
    summary: [],
    requirements: Object.entries(requirements).map(
      ([id, { verdict, planned, ran }]): RequirementResult => ({
        ...requirement(id),
        verdict,
        planned,
        scenarios: ran.map(({ location, status, error }) => ({
          name: `${id} at ${location}`,
          location,
          status,
          durationMs: 1,
          error,
        })),
      }),
    ),
    untraced: [],
  };
}

const partial = 'NOT TESTED' as const;

test('partial runs merge into a full verdict only when together they ran every scenario', () => {
  const merged = mergeReports([
    part(
      'staging',
      {
        'A-01': { verdict: partial, planned: 2, ran: [{ location: 'a:1', status: 'PASSED' }] },
        'A-02': { verdict: partial, planned: 3, ran: [{ location: 'b:1', status: 'PASSED' }] },
        'A-03': { verdict: partial, planned: 2, ran: [{ location: 'c:1', status: 'PASSED' }] },
        'A-04': { verdict: 'NOT TESTED', planned: 0, ran: [] },
        'A-05': { verdict: 'PASS', planned: 1, ran: [{ location: 'e:1', status: 'PASSED' }] },
      },
      '2026-01-01T00:00:00Z',
    ),
    part(
      'staging',
      {
        'A-01': { verdict: partial, planned: 2, ran: [{ location: 'a:2', status: 'PASSED' }] },
        'A-02': { verdict: partial, planned: 3, ran: [{ location: 'b:2', status: 'PASSED' }] },
        'A-03': { verdict: 'FAIL', planned: 2, ran: [{ location: 'c:2', status: 'FAILED' }] },
        'A-04': { verdict: 'NOT TESTED', planned: 0, ran: [] },
        // the same scenario ran in both parts: the worse outcome counts
        'A-05': { verdict: 'FAIL', planned: 1, ran: [{ location: 'e:1', status: 'FAILED' }] },
      },
      '2026-01-01T00:05:00Z',
    ),
  ]);
  const verdicts = Object.fromEntries(
    merged.requirements.map((requirement) => [requirement.id, requirement.verdict]),
  );
  assert.deepEqual(verdicts, {
    'A-01': 'PASS',
    'A-02': 'NOT TESTED',
    'A-03': 'FAIL',
    'A-04': 'NOT TESTED',
    'A-05': 'FAIL',
  });
  const byId = new Map(merged.requirements.map((requirement) => [requirement.id, requirement]));
  assert.match(byId.get('A-02')!.reason!, /partial: 2 of 3 scenarios ran/);
  assert.equal(byId.get('A-01')!.reason, undefined, 'a full PASS keeps no partial reason');
  assert.equal(byId.get('A-03')!.scenarios.length, 2);
  assert.equal(byId.get('A-05')!.scenarios.length, 1);
  assert.deepEqual(merged.run.scenarios, { PASSED: 4 });
  assert.equal(merged.run.startedAt, '2026-01-01T00:00:00Z');
  assert.equal(merged.summary[0].verdicts.FAIL, 2);
});

test('a part that skipped for a missing capability and one that ran the rest do not make a PASS', () => {
  const merged = mergeReports([
    part(
      'staging',
      { 'B-01': { verdict: partial, planned: 2, ran: [{ location: 'a:1', status: 'SKIPPED' }] } },
      '2026-01-01T00:00:00Z',
    ),
    part(
      'staging',
      { 'B-01': { verdict: partial, planned: 2, ran: [{ location: 'a:2', status: 'PASSED' }] } },
      '2026-01-01T00:05:00Z',
    ),
  ]);
  assert.equal(merged.requirements[0].verdict, 'NOT TESTED');
  assert.match(merged.requirements[0].reason!, /1 of 2 scenarios ran/);
});

test('reports of different targets are not merged', () => {
  assert.throws(() => mergeReports([part('a', {}, 'x'), part('b', {}, 'y')]), ReportMergeError);
});

test('INCONCLUSIVE merges: a pass of the same scenario decides it, a failure elsewhere still fails, and the merged report says why it is INCOMPLETE', () => {
  const error =
    'Inconclusive: INCONCLUSIVE: the network failed (read ECONNRESET) while talking to the target';
  const undecided = { verdict: 'INCONCLUSIVE' as const, planned: 1 };
  const merged = mergeReports([
    part(
      'staging',
      {
        'I-01': { ...undecided, ran: [{ location: 'a:1', status: 'INCONCLUSIVE', error }] },
        'I-02': { ...undecided, ran: [{ location: 'b:1', status: 'INCONCLUSIVE', error }] },
        'I-03': {
          verdict: 'INCONCLUSIVE',
          planned: 2,
          ran: [{ location: 'c:1', status: 'INCONCLUSIVE', error }],
        },
      },
      '2026-01-01T00:00:00Z',
    ),
    part(
      'staging',
      {
        'I-01': { verdict: 'PASS', planned: 1, ran: [{ location: 'a:1', status: 'PASSED' }] },
        'I-02': { verdict: 'NOT TESTED', planned: 1, ran: [] },
        'I-03': { verdict: 'FAIL', planned: 2, ran: [{ location: 'c:2', status: 'FAILED' }] },
      },
      '2026-01-01T01:00:00Z',
    ),
  ]);
  const verdicts = Object.fromEntries(merged.requirements.map((r) => [r.id, r.verdict]));
  assert.deepEqual(verdicts, { 'I-01': 'PASS', 'I-02': 'INCONCLUSIVE', 'I-03': 'FAIL' });
  assert.equal(merged.verdict, 'NOT CONFORMANT');
  const withoutFail = mergeReports([
    part(
      'staging',
      { 'I-02': { ...undecided, ran: [{ location: 'b:1', status: 'INCONCLUSIVE', error }] } },
      '2026-01-01T00:00:00Z',
    ),
  ]);
  assert.equal(withoutFail.verdict, 'INCOMPLETE');
  assert.equal(withoutFail.verdictReason, '1 requirement INCONCLUSIVE: the network failed');
  assert.equal(withoutFail.summary[0].verdicts.INCONCLUSIVE, 1);
});

test('a default one part found unexercised stays NOT TESTED when the parts together pass every scenario', () => {
  const a = part(
    'gw',
    {
      'RC-SRV-02': {
        verdict: 'NOT TESTED',
        planned: 2,
        ran: [{ location: 'f:1', status: 'PASSED' }],
      },
    },
    '2026-01-01T00:00:00Z',
  );
  a.requirements[0]!.reason =
    'default not exercised: the configuration the target loads names server.port';
  const b = part(
    'gw',
    { 'RC-SRV-02': { verdict: partial, planned: 2, ran: [{ location: 'f:2', status: 'PASSED' }] } },
    '2026-01-01T00:01:00Z',
  );
  const merged = mergeReports([a, b]).requirements[0]!;
  assert.equal(merged.verdict, 'NOT TESTED');
  assert.match(merged.reason ?? '', /^default not exercised: .*server\.port/);
});
