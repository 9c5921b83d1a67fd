import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  requirementVerdicts,
  scenarioInventory,
  scenarioResults,
  type ScenarioResult,
} from '../../src/report/verdicts';
import type { Requirement } from '../../schemas';

import { requirement } from '../support/requirements';
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

const planned = (tags: string[], line: number) => ({ location: `f.feature:${line}`, tags });

test('PASS only when every scenario of the inventory ran: a partial selection is NOT TESTED with counts', () => {
  const catalogue = [requirement('P-01'), requirement('P-02'), requirement('P-03')];
  const inventory = [
    planned(['@P-01'], 1),
    planned(['@P-01', '@P-02'], 2),
    planned(['@P-01'], 3),
    planned(['@P-02'], 4),
    planned(['@P-03'], 5),
  ];
  // the selection ran scenarios 1 and 2 only
  const scenarios = [scenario(['@P-01'], 'PASSED'), scenario(['@P-01', '@P-02'], 'PASSED')];
  const results = new Map(
    requirementVerdicts(catalogue, scenarios, { capabilities: new Set(), inventory }).map(
      (result) => [result.id, result],
    ),
  );
  assert.equal(results.get('P-01')!.verdict, 'NOT TESTED');
  assert.match(results.get('P-01')!.reason!, /^partial: 2 of 3 scenarios ran/);
  assert.equal(results.get('P-01')!.planned, 3);
  assert.equal(results.get('P-02')!.verdict, 'NOT TESTED');
  assert.match(results.get('P-02')!.reason!, /1 of 2/);
  assert.equal(results.get('P-03')!.verdict, 'NOT TESTED');
  assert.match(results.get('P-03')!.reason!, /^not selected: none of its 1 scenarios/);
});

test('a failure fails even when the selection was partial', () => {
  const inventory = [planned(['@F-01'], 1), planned(['@F-01'], 2)];
  const [result] = requirementVerdicts([requirement('F-01')], [scenario(['@F-01'], 'FAILED')], {
    capabilities: new Set(),
    inventory,
  });
  assert.equal(result.verdict, 'FAIL');
});

test('skipped for a missing capability: NOT APPLICABLE only when all were, otherwise NOT TESTED with counts', () => {
  const catalogue = [requirement('C-01', 'claiming'), requirement('C-02', 'claiming')];
  const inventory = [planned(['@C-01'], 1), planned(['@C-02'], 2), planned(['@C-02'], 3)];
  const scenarios = [
    scenario(['@C-01'], 'SKIPPED'),
    scenario(['@C-02'], 'SKIPPED'),
    scenario(['@C-02'], 'PASSED'),
  ];
  const results = new Map(
    requirementVerdicts(catalogue, scenarios, { capabilities: new Set(), inventory }).map(
      (result) => [result.id, result],
    ),
  );
  assert.equal(results.get('C-01')!.verdict, 'NOT APPLICABLE');
  assert.match(results.get('C-01')!.reason!, /lacks the capability claiming/);
  assert.equal(results.get('C-02')!.verdict, 'NOT TESTED');
  assert.match(results.get('C-02')!.reason!, /^1 of 2 scenarios ran; the others were skipped/);
});

test('every NOT TESTED carries a reason: no scenario yet, or not testable with the catalogue note', () => {
  const untestable: Requirement = { ...requirement('U-02'), testable: false, note: 'a UI fact' };
  const results = requirementVerdicts([requirement('U-01'), untestable], [], {
    capabilities: new Set(),
    inventory: [],
  });
  assert.deepEqual(
    results.map((result) => [result.verdict, result.reason]),
    [
      ['NOT TESTED', 'no scenario carries @U-01'],
      ['NOT TESTED', 'not testable: a UI fact'],
    ],
  );
});

test('the failing step is named from the message stream', () => {
  const envelopes = [
    {
      pickle: {
        id: 'p1',
        uri: 'f.feature',
        location: { line: 3, column: 1 },
        name: 'S',
        language: 'en',
        astNodeIds: [],
        tags: [{ name: '@X-01', astNodeId: 't' }],
        steps: [
          { id: 's1', text: 'a thing', astNodeIds: [] },
          { id: 's2', text: 'it breaks', astNodeIds: [] },
        ],
      },
    },
    {
      testCase: {
        id: 'c1',
        pickleId: 'p1',
        testRunStartedId: 'r',
        testSteps: [
          { id: 't1', pickleStepId: 's1' },
          { id: 't2', pickleStepId: 's2' },
        ],
      },
    },
    {
      testCaseStarted: {
        id: 'cs1',
        testCaseId: 'c1',
        attempt: 0,
        timestamp: { seconds: 1, nanos: 0 },
      },
    },
    ...['t1', 't2'].map((testStepId, index) => ({
      testStepFinished: {
        testCaseStartedId: 'cs1',
        testStepId,
        timestamp: { seconds: 1, nanos: 0 },
        testStepResult: {
          status: index === 0 ? 'PASSED' : 'FAILED',
          duration: { seconds: 0, nanos: 0 },
          message: index === 0 ? undefined : 'expected 200, got 500',
        },
      },
    })),
  ] as unknown as Parameters<typeof scenarioResults>[0]; // hand-made messages, only the members read
  const [result] = scenarioResults(envelopes);
  assert.equal(result.status, 'FAILED');
  assert.equal(result.failedStep, 'it breaks');
  assert.equal(result.error, 'expected 200, got 500');
  assert.deepEqual(scenarioInventory(envelopes), [{ location: 'f.feature:3', tags: ['@X-01'] }]);
});

test('a scenario verifying an undeclared deviation is no scenario of the other requirements it carries', () => {
  const inventory = [planned(['@G-02'], 1), planned(['@deviation-G-01', '@G-02'], 2)];
  const scenarios = [
    scenario(['@G-02'], 'PASSED'),
    scenario(['@deviation-G-01', '@G-02'], 'SKIPPED'),
  ];
  const [withoutDeclaration] = requirementVerdicts([requirement('G-02')], scenarios, {
    capabilities: new Set(),
    inventory,
  });
  assert.equal(withoutDeclaration.verdict, 'PASS');
  assert.equal(withoutDeclaration.planned, 1);
  // where G-01's deviation is declared the alternative runs, and G-02 needs it too
  const [declared] = requirementVerdicts([requirement('G-02')], [scenarios[0]], {
    capabilities: new Set(),
    deviations: new Set(['G-01']),
    inventory,
  });
  assert.equal(declared.verdict, 'NOT TESTED');
  assert.match(declared.reason!, /1 of 2/);
});

/**
 * Messages of one scenario (pickle p1, tagged @X-01) run in attempts; each attempt's step results
 * as given.
 */
function attempts(
  ...runs: Array<
    Array<{ status: string; message?: string; exception?: { type: string; message: string } }>
  >
): Parameters<typeof scenarioResults>[0] {
  return [
    {
      pickle: {
        id: 'p1',
        uri: 'f.feature',
        location: { line: 3, column: 1 },
        name: 'S',
        language: 'en',
        astNodeIds: [],
        tags: [{ name: '@X-01', astNodeId: 't' }],
        steps: [{ id: 's1', text: 'it connects', astNodeIds: [] }],
      },
    },
    {
      testCase: {
        id: 'c1',
        pickleId: 'p1',
        testRunStartedId: 'r',
        testSteps: [
          { id: 'h1', hookId: 'before' },
          { id: 't1', pickleStepId: 's1' },
        ],
      },
    },
    ...runs.flatMap((steps, attempt) => [
      {
        testCaseStarted: {
          id: `cs${attempt}`,
          testCaseId: 'c1',
          attempt,
          timestamp: { seconds: 1, nanos: 0 },
        },
      },
      ...steps.map((result, index) => ({
        testStepFinished: {
          testCaseStartedId: `cs${attempt}`,
          testStepId: ['h1', 't1'][index],
          timestamp: { seconds: 1, nanos: 0 },
          testStepResult: { duration: { seconds: 0, nanos: 0 }, ...result },
        },
      })),
      {
        testCaseFinished: {
          testCaseStartedId: `cs${attempt}`,
          timestamp: { seconds: 2, nanos: 0 },
          willBeRetried: attempt + 1 < runs.length,
        },
      },
    ]),
  ] as unknown as Parameters<typeof scenarioResults>[0]; // hand-made messages, only the members read
}

const NETWORK =
  'INCONCLUSIVE: the network failed (connect ECONNREFUSED 127.0.0.1:1) while talking to the target';

test('an INCONCLUSIVE error makes the scenario INCONCLUSIVE, read from the exception or the named message', () => {
  const fromException = scenarioResults(
    attempts([
      { status: 'PASSED' },
      {
        status: 'FAILED',
        message: `Inconclusive: ${NETWORK}\n    at x`,
        exception: { type: 'Inconclusive', message: NETWORK },
      },
    ]),
  );
  assert.equal(fromException[0].status, 'INCONCLUSIVE');
  const fromMessage = scenarioResults(
    attempts([
      { status: 'PASSED' },
      { status: 'FAILED', message: `Inconclusive: ${NETWORK}\n    at x` },
    ]),
  );
  assert.equal(fromMessage[0].status, 'INCONCLUSIVE');
  // an assertion that merely quotes the words is a failure
  const quoted = scenarioResults(
    attempts([
      { status: 'PASSED' },
      { status: 'FAILED', message: `AssertionError: expected "${NETWORK}"` },
    ]),
  );
  assert.equal(quoted[0].status, 'FAILED');
});

test('retries: a network failure then a pass is PASS; twice the network is INCONCLUSIVE; a declined retry keeps the first failure', () => {
  const inconclusive = { status: 'FAILED', message: `Inconclusive: ${NETWORK}` };
  const [recovered] = scenarioResults(
    attempts([{ status: 'PASSED' }, inconclusive], [{ status: 'PASSED' }, { status: 'PASSED' }]),
  );
  assert.equal(recovered.status, 'PASSED');
  const [twice] = scenarioResults(
    attempts([{ status: 'PASSED' }, inconclusive], [{ status: 'PASSED' }, inconclusive]),
  );
  assert.equal(twice.status, 'INCONCLUSIVE');
  const [declined] = scenarioResults(
    attempts(
      [
        { status: 'PASSED' },
        { status: 'FAILED', message: 'AssertionError: expected 200, got 500' },
      ],
      [
        {
          status: 'FAILED',
          message: 'Error: iotc: not retried: the first attempt failed with an answer',
        },
        { status: 'SKIPPED' },
      ],
    ),
  );
  assert.equal(declined.status, 'FAILED');
  assert.equal(declined.error, 'AssertionError: expected 200, got 500');
  assert.equal(declined.failedStep, 'it connects');
});

test('INCONCLUSIVE requirements: never PASS or FAIL, a real failure elsewhere still FAILs, deviations too', () => {
  const catalogue = ['I-01', 'I-02', 'I-03', 'I-04'].map((id) => requirement(id));
  const undecided = (tags: string[]): ScenarioResult => ({
    ...scenario(tags, 'INCONCLUSIVE'),
    error: `Inconclusive: ${NETWORK}\n    at x`,
  });
  const results = requirementVerdicts(
    catalogue,
    [
      scenario(['@I-01'], 'PASSED'),
      undecided(['@I-01']),
      undecided(['@I-02']),
      scenario(['@I-02'], 'FAILED'),
      scenario(['@I-03'], 'SKIPPED'),
      undecided(['@deviation-I-03']),
    ],
    { capabilities: new Set(), deviations: new Set(['I-03']) },
  );
  const byId = Object.fromEntries(results.map((result) => [result.id, result]));
  assert.equal(byId['I-01'].verdict, 'INCONCLUSIVE');
  assert.equal(
    byId['I-01'].reason,
    '1 of 2 scenarios could not decide: the network failed (connect ECONNREFUSED 127.0.0.1:1) while talking to the target',
  );
  assert.equal(byId['I-02'].verdict, 'FAIL');
  assert.equal(byId['I-03'].verdict, 'INCONCLUSIVE');
  assert.equal(byId['I-04'].verdict, 'NOT TESTED');
});

test('a declared deviation that takes scenarios of another requirement: its PASS says on what it rests, or it is not proven', () => {
  // Z-01 has 4 scenarios: 1 plain, 2 that also check Y-01 (declared), 1 that also checks Y-02
  // (declared); Y-02's alternative carries Z-01 too (it checks Z-01 under the declared behaviour),
  // Y-01's does not. Z-03's only scenarios all check Y-01 as well.
  const inventory = [
    planned(['@Z-01'], 1),
    planned(['@Z-01', '@Y-01'], 2),
    planned(['@Z-01', '@Y-01'], 3),
    planned(['@Z-01', '@Y-02'], 4),
    planned(['@deviation-Y-01'], 5),
    planned(['@deviation-Y-02', '@Z-01'], 6),
    planned(['@Z-02', '@Y-02'], 7),
    planned(['@Z-02'], 8),
    planned(['@Z-03', '@Y-01'], 9),
    planned(['@Z-03', '@Y-01', '@Y-02'], 10),
  ];
  // every scenario that runs on the target passes unless listed in failing; the hooks skip the
  // others (steps/hooks.ts)
  const runs = (tags: readonly string[], declared: string[]) => {
    const alternativeOf = tags.filter((tag) => tag.startsWith('@deviation-'));
    if (alternativeOf.length) return alternativeOf.some((tag) => declared.includes(tag.slice(11)));
    return !tags.some((tag) => declared.includes(tag.slice(1)));
  };
  const judge = (deviations: string[], failing: string[] = []) =>
    Object.fromEntries(
      requirementVerdicts(
        [requirement('Z-01'), requirement('Z-02'), requirement('Z-03')],
        inventory.map((item) => ({
          ...scenario(
            [...item.tags],
            !runs(item.tags, deviations)
              ? 'SKIPPED'
              : failing.includes(item.location)
                ? 'FAILED'
                : 'PASSED',
          ),
          location: item.location,
        })),
        { capabilities: new Set<string>(), inventory, deviations: new Set(deviations) },
      ).map((result) => [result.id, result]),
    );
  const both = judge(['Y-01', 'Y-02']);
  // the scenarios that carry no declared deviation (and Y-02's alternative, which carries Z-01)
  // prove it: PASS, and the reason says on how many of its scenarios and which deviations took the
  // others
  assert.equal(both['Z-01'].verdict, 'PASS');
  assert.equal(
    both['Z-01'].reason,
    'PASS on 2 of 5 scenarios; 3 also check Y-01, Y-02 (declared deviations) and do not run here',
  );
  assert.deepEqual(both['Z-01'].setAside, {
    scenarios: 3,
    deviations: ['Y-01', 'Y-02'],
    checkedByAlternatives: false,
  });
  // no scenario of Z-03 runs here: not proven
  assert.equal(both['Z-03'].verdict, 'NOT TESTED');
  assert.equal(
    both['Z-03'].reason,
    'not proven here: all 2 of its scenarios also check Y-01, Y-02 (declared deviations) and do not run here',
  );
  const onlyY02 = judge(['Y-02']);
  assert.equal(onlyY02['Z-01'].verdict, 'PASS');
  assert.equal(
    onlyY02['Z-01'].reason,
    'PASS on 4 of 5 scenarios; 1 also checks Y-02 (declared deviation) and does not run here, and the alternative scenarios of Y-02 check @Z-01 too',
  );
  // Z-02: its one scenario without Y-02 proves it; the PASS says the other was set aside
  assert.equal(onlyY02['Z-02'].verdict, 'PASS');
  assert.equal(
    onlyY02['Z-02'].reason,
    'PASS on 1 of 2 scenarios; 1 also checks Y-02 (declared deviation) and does not run here',
  );
  // Z-03 keeps one scenario without Y-02 (it checks Y-01, not declared here)
  assert.equal(onlyY02['Z-03'].verdict, 'PASS');
  // a failure of a scenario that runs here is FAIL, whatever was set aside
  const failed = judge(['Y-01', 'Y-02'], ['f.feature:1']);
  assert.equal(failed['Z-01'].verdict, 'FAIL');
  assert.equal(failed['Z-01'].reason, undefined);
  // a scenario that runs here but was skipped (not for the deviation): not PASS, and the set-aside
  // ones are counted
  const [skipped] = requirementVerdicts(
    [requirement('Z-02')],
    [
      { ...scenario(['@Z-02', '@Y-02'], 'SKIPPED'), location: 'f.feature:7' },
      { ...scenario(['@Z-02'], 'SKIPPED'), location: 'f.feature:8' },
    ],
    { capabilities: new Set<string>(), inventory, deviations: new Set(['Y-02']) },
  );
  assert.equal(skipped.verdict, 'NOT TESTED');
  assert.equal(
    skipped.reason,
    '0 of 1 scenarios ran; the others were skipped: no reason recorded; 1 also checks Y-02 (declared deviation) and does not run here',
  );
  // undecided for another reason: the reason counts the set-aside scenarios too
  const [partial] = requirementVerdicts(
    [requirement('Z-01')],
    [{ ...scenario(['@Z-01'], 'PASSED'), location: 'f.feature:1' }],
    { capabilities: new Set<string>(), inventory, deviations: new Set(['Y-01', 'Y-02']) },
  );
  assert.equal(
    partial.reason,
    'partial: 1 of 2 scenarios ran (the selection left 1 out); 3 also check Y-01, Y-02 (declared deviations) and do not run here',
  );
  // no declaration: nothing set aside, a plain PASS
  const none = judge([]);
  assert.equal(none['Z-01'].verdict, 'PASS');
  assert.equal(none['Z-01'].reason, undefined);
  assert.equal(none['Z-01'].setAside, undefined);
});

test('a requirement left NOT TESTED by skipped scenarios names why they were skipped (the profile field), read from their log', () => {
  const messages = [...attempts([{ status: 'PASSED' }, { status: 'SKIPPED' }])];
  // the step's log line, as this.log() attaches it
  messages.splice(messages.length - 1, 0, {
    attachment: {
      testCaseStartedId: 'cs0',
      mediaType: 'text/x.cucumber.log+plain',
      body: 'skipped: the target profile names no mqtts URL (platform.mqtts)',
      contentEncoding: 'IDENTITY',
    },
  } as unknown as (typeof messages)[number]);
  const [skipped] = scenarioResults(messages);
  assert.equal(skipped.status, 'SKIPPED');
  assert.equal(skipped.skipped, 'the target profile names no mqtts URL (platform.mqtts)');
  const [result] = requirementVerdicts(
    [requirement('X-01')],
    [skipped, { ...scenario(['@X-01'], 'PASSED'), location: 'f.feature:9' }],
    {
      capabilities: new Set(),
      inventory: [planned(['@X-01'], 3), planned(['@X-01'], 9)],
    },
  );
  assert.equal(result.verdict, 'NOT TESTED');
  assert.match(
    result.reason!,
    /^1 of 2 scenarios ran; the others were skipped: the target profile names no mqtts URL \(platform\.mqtts\)$/,
  );
  assert.equal(result.scenarios[0].skipped, skipped.skipped, 'kept for report merge');
});

test('NOT APPLICABLE says which capability to add to the profile', () => {
  const [result] = requirementVerdicts(
    [requirement('C-01', 'claiming')],
    [scenario(['@C-01'], 'SKIPPED')],
    { capabilities: new Set(), inventory: [planned(['@C-01'], 1)] },
  );
  assert.equal(result.verdict, 'NOT APPLICABLE');
  assert.match(result.reason!, /add "claiming" to the profile's capabilities/);
});
