/**
 * reports/junit.xml: one test case per requirement, named by its id, so CI systems show requirement
 * verdicts. FAIL is a failure, NOT TESTED and NOT APPLICABLE are skipped, PASS and DEVIATION pass
 * (a deviation was verified). INCONCLUSIVE is an error (type="INCONCLUSIVE", the reason as its
 * message): in JUnit's own terms an error is a test that could not complete, as against a failure,
 * an assertion that did not hold. CI systems (Jenkins, GitLab, GitHub test reporters) show errors
 * beside failures, marked as broken, while skipped tests are folded away or shown neutral: a
 * starved harness or a failed network must be seen, and must not be counted as a failure of the
 * target. A run that decided no requirement at all (every one NOT TESTED or NOT APPLICABLE) carries
 * one more test case in error, so a CI system never shows a run of nothing as green. Written by
 * hand: the format needs four elements and an escaper, less than a dependency would cost.
 */
import type { ConformanceReport } from './conformance';

function xml(text: unknown): string {
  return String(text ?? '').replace(
    /[<>&"']/g,
    (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!,
  );
}

export function junitXml(report: ConformanceReport): string {
  const cases = report.requirements.map((requirement) => {
    const seconds =
      requirement.scenarios.reduce((sum, scenario) => sum + scenario.durationMs, 0) / 1000;
    const name = `${requirement.id} ${requirement.statement}`;
    const open = `    <testcase classname="${xml(requirement.interface)}" name="${xml(name)}" time="${seconds.toFixed(3)}"`;
    const evidence = requirement.scenarios
      .map((scenario) => `${scenario.status} ${scenario.location} ${scenario.name}`)
      .join('\n');
    switch (requirement.verdict) {
      case 'FAIL': {
        const failed = requirement.scenarios.find(
          (scenario) => !['PASSED', 'SKIPPED', 'INCONCLUSIVE'].includes(scenario.status),
        );
        return `${open}>\n      <failure message="${xml(`${failed?.status ?? 'FAILED'}: ${failed?.name ?? ''}`)}">${xml(failed?.error ?? evidence)}</failure>\n    </testcase>`;
      }
      case 'INCONCLUSIVE': {
        const undecided = requirement.scenarios.find(
          (scenario) => scenario.status === 'INCONCLUSIVE',
        );
        return `${open}>\n      <error type="INCONCLUSIVE" message="${xml(`INCONCLUSIVE: ${requirement.reason ?? ''}`)}">${xml(undecided?.error ?? evidence)}</error>\n    </testcase>`;
      }
      case 'NOT TESTED':
      case 'NOT APPLICABLE':
        return `${open}>\n      <skipped message="${xml(`${requirement.verdict}${requirement.reason ? `: ${requirement.reason}` : ''}`)}"/>\n    </testcase>`;
      default:
        return `${open}>\n      <system-out>${xml(`${requirement.verdict}\n${evidence}`)}</system-out>\n    </testcase>`;
    }
  });
  const count = (verdicts: string[]) =>
    report.requirements.filter((requirement) => verdicts.includes(requirement.verdict)).length;
  // an INCONCLUSIVE requirement was tested and is in error already: the run did not test nothing
  const decided = count(['PASS', 'FAIL', 'DEVIATION', 'INCONCLUSIVE']);
  const nothing =
    decided === 0
      ? [
          `    <testcase classname="iotc" name="the run decided a requirement" time="0">\n      <error message="${report.run.couldNotTest ? `nothing was tested: ${xml(report.run.couldNotTest)}` : `no requirement was decided: every one is NOT TESTED or NOT APPLICABLE (selection: ${xml(report.run.tagExpression || 'all')})`}"/>\n    </testcase>`,
        ]
      : [];
  const tests = report.requirements.length + nothing.length;
  const errors = nothing.length + count(['INCONCLUSIVE']);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="iotc conformance" tests="${tests}" failures="${count(['FAIL'])}" errors="${errors}">`,
    `  <testsuite name="iotc conformance (${xml(report.target.name)})" tests="${tests}" failures="${count(['FAIL'])}" skipped="${count(['NOT TESTED', 'NOT APPLICABLE'])}" errors="${errors}" time="${(report.run.durationMs / 1000).toFixed(3)}" timestamp="${xml(report.run.startedAt)}">`,
    ...nothing,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * junit.xml of a run that did not start because its selection is malformed or empty: one test case
 * in error.
 */
export function selectionErrorJunit(message: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="iotc conformance" tests="1" failures="0" errors="1">',
    '  <testsuite name="iotc conformance" tests="1" failures="0" skipped="0" errors="1" time="0">',
    '    <testcase classname="iotc" name="the selection holds scenarios" time="0">',
    `      <error message="${xml(message)}"/>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
