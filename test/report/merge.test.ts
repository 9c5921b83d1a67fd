import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeReports, ReportMergeError } from '../../src/report/merge';
import type { ConformanceReport } from '../../src/report/conformance';
import type { Verdict } from '../../src/report/verdicts';

function part(
  target: string,
  verdicts: Record<string, Verdict>,
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
    requirements: Object.entries(verdicts).map(([id, verdict]) => ({
      id,
      interface: 'http-device-api',
      statement: id,
      section: 's',
      level: 'MUST',
      testable: true,
      verdict,
      scenarios:
        verdict === 'NOT TESTED'
          ? []
          : [
              {
                name: `${id} in ${startedAt}`,
                location: 'f:1',
                status: verdict === 'FAIL' ? 'FAILED' : 'PASSED',
                durationMs: 1,
              },
            ],
    })),
    untraced: [],
  };
}

test('merging split runs joins scenarios and combines verdicts, FAIL first', () => {
  const merged = mergeReports([
    part(
      'staging',
      { 'A-01': 'PASS', 'A-02': 'NOT TESTED', 'A-03': 'PASS', 'A-04': 'NOT TESTED' },
      '2026-01-01T00:00:00Z',
    ),
    part(
      'staging',
      { 'A-01': 'NOT TESTED', 'A-02': 'PASS', 'A-03': 'FAIL', 'A-04': 'NOT TESTED' },
      '2026-01-01T00:05:00Z',
    ),
  ]);
  const verdicts = Object.fromEntries(
    merged.requirements.map((requirement) => [requirement.id, requirement.verdict]),
  );
  assert.deepEqual(verdicts, {
    'A-01': 'PASS',
    'A-02': 'PASS',
    'A-03': 'FAIL',
    'A-04': 'NOT TESTED',
  });
  assert.equal(
    merged.requirements.find((requirement) => requirement.id === 'A-03')!.scenarios.length,
    2,
  );
  assert.deepEqual(merged.run.scenarios, { PASSED: 4 });
  assert.equal(merged.run.startedAt, '2026-01-01T00:00:00Z');
  assert.equal(merged.summary[0].verdicts.FAIL, 1);
});

test('reports of different targets are not merged', () => {
  assert.throws(() => mergeReports([part('a', {}, 'x'), part('b', {}, 'y')]), ReportMergeError);
});
