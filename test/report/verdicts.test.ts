import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requirementVerdicts, type ScenarioResult } from '../../src/report/verdicts';
import type { Requirement } from '../../schemas';

const requirement = (id: string, capability?: string): Requirement => ({
  id,
  interface: 'http-device-api',
  statement: id,
  section: 's',
  level: 'MUST',
  testable: true,
  ...(capability ? { capability } : {}),
});
const scenario = (tags: string[], status: ScenarioResult['status']): ScenarioResult => ({
  name: tags.join(' '),
  location: 'f.feature:1',
  tags,
  status,
  durationMs: 1,
  evidence: [],
});

test('verdicts: pass, fail, undefined is not passed, capability absent, untested', () => {
  const catalogue = [
    requirement('A-01'),
    requirement('A-02'),
    requirement('A-03'),
    requirement('A-04', 'claiming'),
    requirement('A-05'),
  ];
  const scenarios = [
    scenario(['@A-01'], 'PASSED'),
    scenario(['@A-01', '@A-02'], 'PASSED'),
    scenario(['@A-02'], 'FAILED'),
    scenario(['@A-03'], 'UNDEFINED'),
    scenario(['@A-04'], 'SKIPPED'),
  ];
  const verdicts = Object.fromEntries(
    requirementVerdicts(catalogue, scenarios, { capabilities: new Set() }).map((result) => [
      result.id,
      result.verdict,
    ]),
  );
  assert.deepEqual(verdicts, {
    'A-01': 'PASS',
    'A-02': 'FAIL',
    'A-03': 'FAIL',
    'A-04': 'NOT APPLICABLE',
    'A-05': 'NOT TESTED',
  });
});

test('verdicts of declared deviations: verified, unverified, failed, and left out by a tag filter', () => {
  const catalogue = ['D-01', 'D-02', 'D-03', 'D-04'].map((id) => requirement(id));
  const scenarios = [
    scenario(['@D-01'], 'SKIPPED'),
    scenario(['@deviation-D-01'], 'PASSED'),
    scenario(['@D-02'], 'SKIPPED'), // the specification's scenario ran (skipped for the declaration), no alternative
    scenario(['@D-03'], 'SKIPPED'),
    scenario(['@deviation-D-03'], 'FAILED'),
    // D-04: no scenario of it in this run at all
  ];
  const verdicts = Object.fromEntries(
    requirementVerdicts(catalogue, scenarios, {
      capabilities: new Set(),
      deviations: new Set(['D-01', 'D-02', 'D-03', 'D-04']),
    }).map((result) => [result.id, result.verdict]),
  );
  assert.deepEqual(verdicts, {
    'D-01': 'DEVIATION',
    'D-02': 'FAIL',
    'D-03': 'FAIL',
    'D-04': 'NOT TESTED',
  });
});
