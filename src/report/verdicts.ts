/**
 * From the cucumber message stream of a run to one verdict per requirement of the catalogue.
 *
 * A scenario checks the requirements whose ids it carries as tags (`@HTTP-TEL-03`). A requirement is
 * - PASS when it has scenarios and every one passed;
 * - FAIL when any of its scenarios failed, was ambiguous, undefined or pending (not implemented is never passed);
 * - NOT APPLICABLE when its capability is absent from the target and its scenarios were skipped for that;
 * - NOT TESTED when no scenario carries it (or it is not testable; the entry says which);
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
  /** JSON attachments of the scenario (e.g. fast-check seeds), parsed. */
  evidence: unknown[];
  /** The scenario's last requests and responses (its exchanges attachment), redacted when recorded. */
  exchanges?: Exchange[];
}

export interface RequirementResult extends Requirement {
  verdict: Verdict;
  /** The scenarios that decided the verdict, each with its error (if any) and the exchanges it made. */
  scenarios: Array<
    Pick<ScenarioResult, 'name' | 'location' | 'status' | 'durationMs' | 'error' | 'exchanges'>
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
        location: `${pickle.uri}:${pickle.location?.line ?? 0}`,
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

export interface VerdictContext {
  capabilities: ReadonlySet<string>;
  /** Requirement ids the target profile declares deviations for. */
  deviations?: ReadonlySet<string>;
}

export function requirementVerdicts(
  catalogue: readonly Requirement[],
  scenarios: readonly ScenarioResult[],
  context: VerdictContext,
): RequirementResult[] {
  return catalogue.map((requirement) => {
    const tag = `@${requirement.id}`;
    const declared = context.deviations?.has(requirement.id) ?? false;
    const own = scenarios.filter((scenario) =>
      scenario.tags.includes(declared ? `@deviation-${requirement.id}` : tag),
    );
    const specification = declared
      ? scenarios.filter((scenario) => scenario.tags.includes(tag)).length
      : 0;
    return {
      ...requirement,
      verdict: declared
        ? deviationVerdict(own, specification)
        : verdictOf(requirement, own, context),
      scenarios: own.map(({ name, location, status, durationMs, error, exchanges }) => ({
        name,
        location,
        status,
        durationMs,
        error,
        exchanges,
      })),
    };
  });
}

function verdictOf(
  requirement: Requirement,
  scenarios: readonly ScenarioResult[],
  context: VerdictContext,
): Verdict {
  if (scenarios.length === 0) return 'NOT TESTED';
  if (scenarios.some((scenario) => STATUS_RANK[scenario.status] > STATUS_RANK.SKIPPED))
    return 'FAIL';
  if (scenarios.every((scenario) => scenario.status === 'PASSED')) return 'PASS';
  if (requirement.capability && !context.capabilities.has(requirement.capability))
    return 'NOT APPLICABLE';
  if (scenarios.some((scenario) => scenario.status === 'PASSED')) return 'PASS';
  return 'NOT TESTED';
}

/**
 * A declared deviation: DEVIATION when its alternatives ran and passed. When the run held the requirement's own
 * scenarios (skipped for the declaration) but no alternative, the declaration is unverified: FAIL. When the run held
 * no scenario of it at all (a tag filter left them out), nothing was tested.
 */
function deviationVerdict(
  alternatives: readonly ScenarioResult[],
  specificationScenarios: number,
): Verdict {
  if (alternatives.length === 0) return specificationScenarios === 0 ? 'NOT TESTED' : 'FAIL';
  return alternatives.every((scenario) => scenario.status === 'PASSED') ? 'DEVIATION' : 'FAIL';
}

function toMs(timestamp: messages.Timestamp): number {
  return timestamp.seconds * 1000 + Math.round(timestamp.nanos / 1e6);
}
