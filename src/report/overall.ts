/**
 * The one-line verdict of a whole report. CONFORMANT only when the full suite ran and every
 * testable requirement is PASS, DEVIATION (declared and verified) or NOT APPLICABLE; any FAIL of a
 * MUST (or MAY) makes it NOT CONFORMANT, and where every FAIL is of a SHOULD it is PASS WITH
 * WARNINGS (issue 28); a run that left testable requirements NOT TESTED (a tag selection, a missing
 * scenario) or INCONCLUSIVE (the harness was starved, the network failed) is INCOMPLETE, never
 * CONFORMANT, and `overallReason` says why.
 */
import type { Verdict } from './verdicts';
import type { OVERALL_VERDICTS } from '../../schemas';
import { HARNESS_STARVED, INCONCLUSIVE_PREFIX } from '../../steps/support/timing';
import { NETWORK_FAILED } from '../../steps/support/transport';

/**
 * What the overall verdict reads of a conformance report (conformance.ts builds the report with
 * it).
 */
export interface VerdictSummaryInput {
  run: { couldNotTest?: unknown; interrupted?: string };
  requirements: ReadonlyArray<{
    testable: boolean;
    verdict: Verdict;
    /** MUST, SHOULD, MAY: a FAIL of a SHOULD alone is a warning. */
    level?: string;
    scenarios?: ReadonlyArray<{ status: string; error?: string }>;
  }>;
}

export type OverallVerdict = (typeof OVERALL_VERDICTS)[number];

export function overallVerdict(report: VerdictSummaryInput): OverallVerdict {
  if (report.run.couldNotTest) return 'NOT TESTED';
  const testable = report.requirements.filter((requirement) => requirement.testable);
  const failed = testable.filter((requirement) => requirement.verdict === 'FAIL');
  if (failed.some((requirement) => requirement.level !== 'SHOULD')) return 'NOT CONFORMANT';
  // an interrupted run is partial whatever it reached: a FAIL it found stands, nothing else is a
  // whole verdict
  if (report.run.interrupted) return 'INCOMPLETE';
  if (testable.every((requirement) => requirement.verdict === 'NOT TESTED')) return 'NOT TESTED';
  if (testable.some((requirement) => ['NOT TESTED', 'INCONCLUSIVE'].includes(requirement.verdict)))
    return 'INCOMPLETE';
  return failed.length ? 'PASS WITH WARNINGS' : 'CONFORMANT';
}

/**
 * Why a run is INCOMPLETE because of INCONCLUSIVE requirements: "3 requirements INCONCLUSIVE: the
 * harness was starved / the network failed" (the causes their scenarios' errors name); undefined
 * when none is.
 */
export function overallReason(report: VerdictSummaryInput): string | undefined {
  if (report.run.interrupted && !report.run.couldNotTest)
    return `${report.run.interrupted}: the report holds only what ran until then`;
  const undecided = report.requirements.filter(
    (requirement) => requirement.testable && requirement.verdict === 'INCONCLUSIVE',
  );
  if (undecided.length === 0 || report.run.couldNotTest) return undefined;
  const causes = new Set<string>();
  for (const requirement of undecided)
    for (const scenario of requirement.scenarios ?? [])
      if (scenario.status === 'INCONCLUSIVE') causes.add(causeOf(scenario.error ?? ''));
  const named = [...causes].sort((a, b) => CAUSES.indexOf(a) - CAUSES.indexOf(b));
  return `${undecided.length} requirement${undecided.length === 1 ? '' : 's'} INCONCLUSIVE: ${named.join(' / ') || CAUSES[2]}`;
}

const CAUSES = ['the harness was starved', 'the network failed', 'the harness could not decide'];

function causeOf(error: string): string {
  if (error.includes(`${INCONCLUSIVE_PREFIX} ${NETWORK_FAILED}`)) return CAUSES[1];
  if (error.includes(`${INCONCLUSIVE_PREFIX} ${HARNESS_STARVED}`)) return CAUSES[0];
  return CAUSES[2];
}
