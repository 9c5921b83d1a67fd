/**
 * From the cucumber message stream of a run to one verdict per requirement of the catalogue.
 *
 * A scenario checks the requirements whose ids it carries as tags (`@HTTP-TEL-03`). The suite's inventory (every
 * scenario of the feature files, whatever the selection) says how many scenarios a requirement has. A requirement is
 * - PASS only when every scenario of the inventory tagged with it ran and passed;
 * - FAIL when any of its scenarios failed, was ambiguous, undefined or pending (not implemented is never passed);
 * - NOT APPLICABLE when its capability is absent from the target and ALL its scenarios were skipped for that;
 * - NOT TESTED, with a reason, when no scenario carries it (or it is not testable), when the selection (--tags,
 *   paths) ran only some of its scenarios ("partial: 3 of 9 scenarios ran"), or when some were skipped;
 * - DEVIATION when the target profile declares a deviation for it and the scenarios that verify the declared
 *   alternative (tagged `@deviation-<id>`) all passed. A declared deviation without such a scenario, or whose
 *   scenario failed, is FAIL: a deviation is verified, never waved through (NOT TESTED only when the run held no
 *   scenario of the requirement at all, e.g. a tag filter left them out).
 */
import type * as messages from '@cucumber/messages';
import type { Requirement } from '../../schemas';
import { EXCHANGES_MEDIA_TYPE, parseExchanges, type Exchange } from './exchanges';

export type Verdict = 'PASS' | 'FAIL' | 'DEVIATION' | 'NOT APPLICABLE' | 'NOT TESTED';
export type ScenarioStatus =
  | 'PASSED'
  | 'FAILED'
  | 'SKIPPED'
  | 'UNDEFINED'
  | 'PENDING'
  | 'AMBIGUOUS'
  | 'UNKNOWN';

export interface ScenarioResult {
  name: string;
  location: string;
  tags: string[];
  status: ScenarioStatus;
  durationMs: number;
  /** The first failure message, if any (not yet redacted). */
  error?: string;
  /** The text of the step that failed first (or `hook` when a hook failed). */
  failedStep?: string;
  /** JSON attachments of the scenario (e.g. fast-check seeds), parsed. */
  evidence: unknown[];
  /** The scenario's last requests and responses (its exchanges attachment), redacted when recorded. */
  exchanges?: Exchange[];
}

export interface RequirementResult extends Requirement {
  verdict: Verdict;
  /** Why the verdict is not PASS, FAIL or DEVIATION (always given for NOT TESTED and NOT APPLICABLE). */
  reason?: string;
  /** Scenarios of the inventory that carry the requirement (its alternatives when a deviation is declared). */
  planned: number;
  /** The target profile declares a deviation for it: the scenarios are the alternatives that verify it. */
  deviationDeclared?: boolean;
  /** The scenarios that decided the verdict, each with its error (if any) and the exchanges it made. */
  scenarios: Array<
    Pick<
      ScenarioResult,
      'name' | 'location' | 'status' | 'durationMs' | 'error' | 'failedStep' | 'exchanges'
    >
  >;
}

const STATUS_RANK: Record<ScenarioStatus, number> = {
  PASSED: 0,
  SKIPPED: 1,
  UNKNOWN: 2,
  PENDING: 3,
  UNDEFINED: 4,
  AMBIGUOUS: 5,
  FAILED: 6,
};

/** Collects one result per executed scenario (the last attempt counts) from the message envelopes. */
export function scenarioResults(envelopes: readonly messages.Envelope[]): ScenarioResult[] {
  const pickles = new Map<string, messages.Pickle>();
  const testCases = new Map<string, messages.TestCase>();
  const started = new Map<string, { testCaseId: string; startMs: number }>();
  const results = new Map<string, ScenarioResult>(); // by testCaseStartedId
  const finalAttempt = new Map<string, string>(); // pickleId -> testCaseStartedId

  for (const envelope of envelopes) {
    if (envelope.pickle) pickles.set(envelope.pickle.id, envelope.pickle);
    else if (envelope.testCase) testCases.set(envelope.testCase.id, envelope.testCase);
    else if (envelope.testCaseStarted) {
      const { id, testCaseId, timestamp } = envelope.testCaseStarted;
      started.set(id, { testCaseId, startMs: toMs(timestamp) });
      const pickle = pickles.get(testCases.get(testCaseId)?.pickleId ?? '');
      if (!pickle) continue;
      results.set(id, {
        name: pickle.name,
        location: pickleLocation(pickle),
        tags: pickle.tags.map((tag) => tag.name),
        status: 'PASSED',
        durationMs: 0,
        evidence: [],
      });
      finalAttempt.set(pickle.id, id);
    } else if (envelope.testStepFinished) {
      const result = results.get(envelope.testStepFinished.testCaseStartedId);
      const stepResult = envelope.testStepFinished.testStepResult;
      const status = stepResult.status as ScenarioStatus;
      if (result && STATUS_RANK[status] > STATUS_RANK[result.status]) {
        result.status = status;
        if (stepResult.message && !result.error) result.error = stepResult.message;
        if (status !== 'SKIPPED' && !result.failedStep)
          result.failedStep = stepText(envelope.testStepFinished, started, testCases, pickles);
      }
    } else if (
      envelope.attachment?.testCaseStartedId &&
      envelope.attachment.mediaType === EXCHANGES_MEDIA_TYPE
    ) {
      const result = results.get(envelope.attachment.testCaseStartedId);
      if (result) result.exchanges = parseExchanges(envelope.attachment.body);
    } else if (
      envelope.attachment?.testCaseStartedId &&
      envelope.attachment.mediaType === 'application/json'
    ) {
      const result = results.get(envelope.attachment.testCaseStartedId);
      try {
        result?.evidence.push(JSON.parse(envelope.attachment.body));
      } catch {
        // an attachment that is not JSON is not evidence for the report
      }
    } else if (envelope.testCaseFinished) {
      const result = results.get(envelope.testCaseFinished.testCaseStartedId);
      const start = started.get(envelope.testCaseFinished.testCaseStartedId);
      if (result && start)
        result.durationMs = toMs(envelope.testCaseFinished.timestamp) - start.startMs;
    }
  }
  return [...finalAttempt.values()]
    .map((id) => results.get(id))
    .filter((r): r is ScenarioResult => !!r);
}

/** A scenario of the suite's inventory, run or not: where it is and the tags it carries. */
export interface PlannedScenario {
  location: string;
  tags: readonly string[];
}

export interface VerdictContext {
  capabilities: ReadonlySet<string>;
  /** Requirement ids the target profile declares deviations for. */
  deviations?: ReadonlySet<string>;
  /**
   * Every scenario of the suite (all feature files, no tag filter); without it the scenarios that ran are taken to
   * be all there are, which only a run of the whole suite may claim.
   */
  inventory?: readonly PlannedScenario[];
}

/** Every pickle of the run's sources, selected or not: cucumber emits them all before it filters by tags. */
export function scenarioInventory(envelopes: readonly messages.Envelope[]): PlannedScenario[] {
  return envelopes.flatMap((envelope) =>
    envelope.pickle
      ? [
          {
            location: pickleLocation(envelope.pickle),
            tags: envelope.pickle.tags.map((tag) => tag.name),
          },
        ]
      : [],
  );
}

function pickleLocation(pickle: messages.Pickle): string {
  return `${pickle.uri}:${pickle.location?.line ?? 0}`;
}

export function requirementVerdicts(
  catalogue: readonly Requirement[],
  scenarios: readonly ScenarioResult[],
  context: VerdictContext,
): RequirementResult[] {
  const inventory = context.inventory ?? scenarios;
  // The hooks skip, by design, a scenario verifying a deviation this target does not declare, and a specification
  // scenario of a requirement whose deviation it declares (its alternative runs instead). Such a scenario is no
  // scenario of the other requirements it carries here; they would otherwise be partial on every such target.
  const declaredDeviation = (tag: string, prefix: string) =>
    context.deviations?.has(tag.slice(prefix.length)) ?? false;
  const runsHere = (scenario: { tags: readonly string[] }) => {
    const alternatives = scenario.tags.filter((tag) => tag.startsWith('@deviation-'));
    if (alternatives.length)
      return alternatives.some((tag) => declaredDeviation(tag, '@deviation-'));
    return !scenario.tags.some((tag) => declaredDeviation(tag, '@'));
  };
  return catalogue.map((requirement) => {
    const tag = `@${requirement.id}`;
    const declared = context.deviations?.has(requirement.id) ?? false;
    const ownTag = declared ? `@deviation-${requirement.id}` : tag;
    const carries = (scenario: { tags: readonly string[] }) =>
      scenario.tags.includes(ownTag) && (declared || runsHere(scenario));
    const own = scenarios.filter(carries);
    const planned = inventory.filter(carries).length;
    const specification = declared
      ? scenarios.filter((scenario) => scenario.tags.includes(tag)).length
      : 0;
    const judged = declared
      ? deviationVerdict(requirement, own, planned, specification)
      : verdictOf(requirement, own, planned, context);
    return {
      ...requirement,
      ...judged,
      planned,
      ...(declared ? { deviationDeclared: true } : {}),
      scenarios: own.map(
        ({ name, location, status, durationMs, error, failedStep, exchanges }) => ({
          name,
          location,
          status,
          durationMs,
          error,
          failedStep,
          exchanges,
        }),
      ),
    };
  });
}

/** The reason's opening for a requirement the selection (--tags, paths) left out entirely. */
export const NOT_SELECTED = 'not selected';

type Judged = { verdict: Verdict; reason?: string };

function failing(scenario: Pick<ScenarioResult, 'status'>): boolean {
  return STATUS_RANK[scenario.status] > STATUS_RANK.SKIPPED;
}

/**
 * The verdict of a requirement from the scenarios of it that ran and the number the inventory holds. Shared by a run
 * and by `report merge` (which judges the union of the parts' scenarios).
 */
export function verdictOf(
  requirement: Requirement,
  scenarios: readonly Pick<ScenarioResult, 'status'>[],
  planned: number,
  context: Pick<VerdictContext, 'capabilities'>,
): Judged {
  if (planned === 0)
    return {
      verdict: 'NOT TESTED',
      reason: requirement.testable
        ? `no scenario carries @${requirement.id}`
        : `not testable: ${requirement.note ?? 'the catalogue says so'}`,
    };
  if (scenarios.some(failing)) return { verdict: 'FAIL' };
  const passed = scenarios.filter((scenario) => scenario.status === 'PASSED').length;
  if (scenarios.length === 0)
    return {
      verdict: 'NOT TESTED',
      reason: `${NOT_SELECTED}: none of its ${planned} scenarios was in the selection`,
    };
  if (scenarios.length < planned)
    return {
      verdict: 'NOT TESTED',
      reason: `partial: ${passed} of ${planned} scenarios ran (the selection left ${planned - scenarios.length} out)`,
    };
  if (passed === planned) return { verdict: 'PASS' };
  if (passed === 0 && requirement.capability && !context.capabilities.has(requirement.capability))
    return {
      verdict: 'NOT APPLICABLE',
      reason: `the target lacks the capability ${requirement.capability}`,
    };
  return {
    verdict: 'NOT TESTED',
    reason: `${passed} of ${planned} scenarios ran; the others were skipped`,
  };
}

/**
 * A declared deviation: DEVIATION when all its alternatives ran and passed. When the run held the requirement's own
 * scenarios (skipped for the declaration) but the suite has no alternative, the declaration is unverified: FAIL.
 * When the run held no scenario of it at all (a tag filter left them out), or only some alternatives, nothing is
 * decided.
 */
export function deviationVerdict(
  requirement: Requirement,
  alternatives: readonly Pick<ScenarioResult, 'status'>[],
  planned: number,
  specificationScenarios: number,
): Judged {
  if (alternatives.some(failing)) return { verdict: 'FAIL' };
  if (planned === 0)
    return specificationScenarios === 0
      ? { verdict: 'NOT TESTED', reason: `no scenario of @${requirement.id} ran` }
      : { verdict: 'FAIL', reason: 'a declared deviation without a scenario that verifies it' };
  const passed = alternatives.filter((scenario) => scenario.status === 'PASSED').length;
  if (passed === planned) return { verdict: 'DEVIATION' };
  return {
    verdict: 'NOT TESTED',
    reason: `partial: ${passed} of ${planned} scenarios verifying the declared deviation ran`,
  };
}

function stepText(
  finished: messages.TestStepFinished,
  started: ReadonlyMap<string, { testCaseId: string }>,
  testCases: ReadonlyMap<string, messages.TestCase>,
  pickles: ReadonlyMap<string, messages.Pickle>,
): string {
  const testCase = testCases.get(started.get(finished.testCaseStartedId)?.testCaseId ?? '');
  const testStep = testCase?.testSteps.find((step) => step.id === finished.testStepId);
  if (!testStep?.pickleStepId) return 'hook';
  const pickle = pickles.get(testCase?.pickleId ?? '');
  return pickle?.steps.find((step) => step.id === testStep.pickleStepId)?.text ?? 'step';
}

function toMs(timestamp: messages.Timestamp): number {
  return timestamp.seconds * 1000 + Math.round(timestamp.nanos / 1e6);
}
