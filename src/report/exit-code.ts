/**
 * The exit code of a conformance report: one rule for `iotc run`, `iotc certify` and `iotc report
 * merge`, read off the overall verdict (src/report/overall.ts) so that the code and the verdict the
 * report prints never disagree (docs/reference/verdicts.md, "Exit codes"). Before, `iotc run`
 * exited 1 when the only FAIL was of a SHOULD while `iotc certify` printed PASS WITH WARNINGS and
 * exited 0, and a run INCOMPLETE for requirements it should have decided exited 0: a CI job went
 * green on a run that proved nothing about them.
 */
import { overallVerdict, type VerdictSummaryInput } from './overall';
import { NOT_SELECTED } from './verdicts';

/**
 * Exit codes of `iotc run`, `iotc certify` and `iotc report merge` (docs/reference/verdicts.md,
 * "Exit codes").
 */
export const EXIT = {
  /**
   * CONFORMANT, PASS WITH WARNINGS (every FAIL is of a SHOULD), or INCOMPLETE only by the run's own
   * selection.
   */
  conformant: 0,
  /**
   * NOT CONFORMANT: a MUST or MAY requirement FAILs (or cucumber failed where no verdict shows it).
   */
  notConformant: 1,
  badInvocation: 2,
  /**
   * Nothing was decided: the target could not be reached, the client sent nothing, every
   * requirement NOT TESTED.
   */
  couldNotTest: 3,
  /**
   * No FAIL, but some requirement is INCONCLUSIVE (the harness was starved, the network failed):
   * run it again.
   */
  inconclusive: 4,
  /** The selection matches no scenario, or its tag expression is malformed. */
  noScenario: 5,
  /**
   * INCOMPLETE: no FAIL and nothing INCONCLUSIVE, but requirements the run set out to decide are
   * NOT TESTED for another reason than its selection (skipped scenarios, a default the target's
   * configuration never exercised, a declared deviation of another requirement that left nothing to
   * check it, no scenario yet).
   */
  incomplete: 6,
} as const;

/**
 * Whose choice a NOT TESTED requirement is. `selection` (`iotc run`, `iotc report merge`): only the
 * reasons of the run's own selection (--tags, paths: "not selected", "partial: ...") are the user's
 * choice; every other NOT TESTED is undecided. `exercised` (`iotc certify`): the client under test
 * chooses what it exercises, as --tags does for a run, so a requirement whose subject it never
 * exercised is its choice too.
 */
export type NotTestedScope = 'selection' | 'exercised';

type ExitInput = VerdictSummaryInput & {
  requirements: ReadonlyArray<VerdictSummaryInput['requirements'][number] & { reason?: string }>;
};

function chosen(reason: string | undefined, scope: NotTestedScope): boolean {
  if (scope === 'exercised') return true;
  return reason !== undefined && (reason.startsWith(NOT_SELECTED) || reason.startsWith('partial:'));
}

/**
 * The requirements that leave an INCOMPLETE run undecided by no choice of the user (see
 * NotTestedScope).
 */
export function undecidedRequirements<R extends ExitInput['requirements'][number]>(
  requirements: readonly R[],
  scope: NotTestedScope,
): R[] {
  return requirements.filter(
    (requirement) =>
      requirement.testable &&
      requirement.verdict === 'NOT TESTED' &&
      !chosen(requirement.reason, scope),
  );
}

/**
 * CONFORMANT and PASS WITH WARNINGS: 0; NOT CONFORMANT: 1; nothing decided (couldNotTest, or
 * overall NOT TESTED): 3; INCOMPLETE: 4 when a requirement is INCONCLUSIVE, else 6 when a
 * requirement is undecided by no choice of the user, else 0 (the run decided everything it
 * selected).
 */
export function reportExitCode(report: ExitInput, scope: NotTestedScope): number {
  if (report.run.couldNotTest) return EXIT.couldNotTest;
  const overall = overallVerdict(report);
  if (overall === 'NOT CONFORMANT') return EXIT.notConformant;
  if (overall === 'NOT TESTED') return EXIT.couldNotTest;
  if (overall !== 'INCOMPLETE') return EXIT.conformant;
  const testable = report.requirements.filter((requirement) => requirement.testable);
  if (testable.some((requirement) => requirement.verdict === 'INCONCLUSIVE'))
    return EXIT.inconclusive;
  return undecidedRequirements(report.requirements, scope).length
    ? EXIT.incomplete
    : EXIT.conformant;
}
