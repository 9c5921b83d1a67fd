/**
 * The one-line verdict of a whole report. CONFORMANT only when the full suite ran and every testable requirement
 * is PASS, DEVIATION (declared and verified) or NOT APPLICABLE; any FAIL makes it NOT CONFORMANT; a run that left
 * testable requirements NOT TESTED (a tag selection, a missing scenario) is INCOMPLETE, never CONFORMANT.
 */
import type { Verdict } from './verdicts';

/** What the overall verdict reads of a conformance report (conformance.ts builds the report with it). */
interface VerdictSummaryInput {
  run: { couldNotTest?: unknown };
  requirements: ReadonlyArray<{ testable: boolean; verdict: Verdict }>;
}

export type OverallVerdict = 'CONFORMANT' | 'NOT CONFORMANT' | 'INCOMPLETE' | 'NOT TESTED';

export function overallVerdict(report: VerdictSummaryInput): OverallVerdict {
  if (report.run.couldNotTest) return 'NOT TESTED';
  const testable = report.requirements.filter((requirement) => requirement.testable);
  if (testable.some((requirement) => requirement.verdict === 'FAIL')) return 'NOT CONFORMANT';
  if (testable.every((requirement) => requirement.verdict === 'NOT TESTED')) return 'NOT TESTED';
  if (testable.some((requirement) => requirement.verdict === 'NOT TESTED')) return 'INCOMPLETE';
  return 'CONFORMANT';
}
