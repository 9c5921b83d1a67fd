/**
 * From the cucumber message stream of a run to one verdict per requirement of the catalogue.
 *
 * A scenario checks the requirements whose ids it carries as tags (`@HTTP-TEL-03`). The suite's
 * inventory (every scenario of the feature files, whatever the selection) says how many scenarios a
 * requirement has. A requirement is
 * - PASS only when every scenario of the inventory tagged with it that runs on the target ran and
 *   passed (those a declared deviation of another requirement sets aside: below);
 * - FAIL when any of its scenarios failed, was ambiguous, undefined or pending (not implemented is
 *   never passed);
 * - NOT APPLICABLE when its capability is absent from the target and ALL its scenarios were skipped
 *   for that;
 * - INCONCLUSIVE, with the reason, when a scenario of it could not decide (its error opens with
 *   `INCONCLUSIVE:`, steps/support/timing.ts): the harness was starved, or the network failed twice
 *   (steps/hooks.ts retries once). Never PASS, never FAIL; a real failure of another of its
 *   scenarios still makes it FAIL;
 * - NOT TESTED, with a reason, when no scenario carries it (or it is not testable), when the
 *   selection (--tags, paths) ran only some of its scenarios ("partial: 3 of 9 scenarios ran"), or
 *   when some were skipped, or when declared deviations of other requirements took all of its
 *   scenarios ("not proven here");
 * - DEVIATION when the target profile declares a deviation for it and the scenarios that verify the
 *   declared alternative (tagged `@deviation-<id>`) all passed. A declared deviation without such a
 *   scenario, or whose scenario failed, is FAIL: a deviation is verified, never waved through (NOT
 *   TESTED only when the run held no scenario of the requirement at all, e.g. a tag filter left
 *   them out).
 *
 * A scenario that also carries a requirement whose deviation the target declares does not run there
 * (its alternative does). For the other requirements it carries it is set aside, and said so: such
 * a requirement is PASS when at least one of its scenarios runs here (one that carries no declared
 * deviation, or an alternative that carries it too) and all that run here passed; its reason then
 * says on how many of its scenarios the PASS rests and which declared deviations took the others
 * ("PASS on 2 of 8 scenarios; 6 also check KV-02 (declared deviation) and do not run here"). The
 * suite keeps that honest by splitting: a requirement's behaviour is checked by scenarios that do
 * not touch the deviated behaviour, and each deviated check stands in a scenario of its own that
 * carries the deviated requirement (features/http-device-api/payload-properties.feature: the
 * payloads with a string value apart from those without). When no scenario of it runs here it is
 * NOT TESTED ("not proven here").
 */
import type * as messages from '@cucumber/messages';
import type { Requirement, REQUIREMENT_VERDICTS, SCENARIO_STATUSES } from '../../schemas';
import { INCONCLUSIVE_PREFIX } from '../../steps/support/timing';
import { EXCHANGES_MEDIA_TYPE, parseExchanges, type Exchange } from './exchanges';

/** A requirement's verdict; the vocabulary is schemas/conformance.ts's. */
export type Verdict = (typeof REQUIREMENT_VERDICTS)[number];
/**
 * A scenario's outcome: cucumber's statuses, and INCONCLUSIVE for one that failed with an
 * `INCONCLUSIVE:` error.
 */
export type ScenarioStatus = (typeof SCENARIO_STATUSES)[number];

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
  /**
   * The scenario's last requests and responses (its exchanges attachment), redacted when recorded.
   */
  exchanges?: Exchange[];
  /**
   * Why a SKIPPED scenario was skipped: the `skipped: ...` line its hook or step logged (it names
   * the profile field).
   */
  skipped?: string;
}

/**
 * Scenarios of a requirement that a declared deviation of another requirement kept from running on
 * the target.
 */
export interface SetAside {
  /** How many of the requirement's scenarios did not run for it. */
  scenarios: number;
  /** The declared deviations that took them. */
  deviations: string[];
  /**
   * Every one of those deviations has an alternative scenario that carries this requirement too.
   */
  checkedByAlternatives: boolean;
}

export interface RequirementResult extends Requirement {
  verdict: Verdict;
  /**
   * Why the verdict is not PASS, FAIL or DEVIATION (always given for NOT TESTED, NOT APPLICABLE and
   * INCONCLUSIVE), or what a PASS rests on when declared deviations set some of its scenarios
   * aside.
   */
  reason?: string;
  /**
   * Scenarios of the inventory that carry the requirement (its alternatives when a deviation is
   * declared).
   */
  planned: number;
  /**
   * The target profile declares a deviation for it: the scenarios are the alternatives that verify
   * it.
   */
  deviationDeclared?: boolean;
  /**
   * Its scenarios that declared deviations of other requirements kept from running (not counted in
   * planned).
   */
  setAside?: SetAside;
  /**
   * The scenarios that decided the verdict, each with its error (if any) and the exchanges it made.
   */
  scenarios: Array<
    Pick<
      ScenarioResult,
      | 'name'
      | 'location'
      | 'status'
      | 'durationMs'
      | 'error'
      | 'failedStep'
      | 'exchanges'
      | 'skipped'
    >
  >;
}

/** Within a scenario the worst step decides; a real failure is worse than an INCONCLUSIVE one. */
const STATUS_RANK: Record<ScenarioStatus, number> = {
  PASSED: 0,
  SKIPPED: 1,
  INCONCLUSIVE: 2,
  UNKNOWN: 3,
  PENDING: 4,
  UNDEFINED: 5,
  AMBIGUOUS: 6,
  FAILED: 7,
};

/** Statuses from best to worst (report merge keeps the worst of two runs of one scenario). */
export const STATUS_ORDER = (Object.keys(STATUS_RANK) as ScenarioStatus[]).sort(
  (a, b) => STATUS_RANK[a] - STATUS_RANK[b],
);

/**
 * The opening of the error of a retry attempt that steps/hooks.ts declined (the first attempt
 * failed with an answer of the target): the attempt before it is the scenario's result.
 */
export const RETRY_DECLINED = 'iotc: not retried:';

/**
 * Media type of the harness facts every scenario attaches (steps/hooks.ts): event-loop lag and
 * measured delays.
 */
export const HARNESS_MEDIA_TYPE = 'application/vnd.iotc.harness+json';

/**
 * The message of an error thrown by a step, without the name cucumber puts before it
 * (`Inconclusive: ...`).
 */
function thrownMessage(result: messages.TestStepResult): string {
  if (result.exception?.message !== undefined) return result.exception.message;
  const message = result.message ?? '';
  const named = /^[\w$.]+(?: \[[\w]+\])?: /.exec(message);
  return named ? message.slice(named[0].length) : message;
}

/**
 * Whether a failed step's error says the harness could not decide (steps/support/timing.ts
 * Inconclusive).
 */
function isInconclusive(result: messages.TestStepResult): boolean {
  return thrownMessage(result).startsWith(INCONCLUSIVE_PREFIX);
}

/**
 * Collects one result per executed scenario (the last attempt counts) from the message envelopes.
 */
export function scenarioResults(envelopes: readonly messages.Envelope[]): ScenarioResult[] {
  const pickles = new Map<string, messages.Pickle>();
  const testCases = new Map<string, messages.TestCase>();
  const started = new Map<string, { testCaseId: string; startMs: number }>();
  const results = new Map<string, ScenarioResult>(); // by testCaseStartedId
  const finalAttempt = new Map<string, string>(); // pickleId -> testCaseStartedId
  const priorAttempt = new Map<string, string>(); // testCaseStartedId -> that of the pickle's attempt before it
  const declined = new Set<string>(); // attempts whose retry steps/hooks.ts declined

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
      const before = finalAttempt.get(pickle.id);
      if (before) priorAttempt.set(id, before);
      finalAttempt.set(pickle.id, id);
    } else if (envelope.testStepFinished) {
      const result = results.get(envelope.testStepFinished.testCaseStartedId);
      const stepResult = envelope.testStepFinished.testStepResult;
      let status = stepResult.status as ScenarioStatus;
      if (status === 'FAILED' && thrownMessage(stepResult).startsWith(RETRY_DECLINED))
        declined.add(envelope.testStepFinished.testCaseStartedId);
      if (status === 'FAILED' && isInconclusive(stepResult)) status = 'INCONCLUSIVE';
      if (result && STATUS_RANK[status] > STATUS_RANK[result.status]) {
        result.status = status;
        // the error shown is the first failure's; a real failure after an INCONCLUSIVE one replaces
        // it
        if (
          stepResult.message &&
          (!result.error || (status === 'FAILED' && isInconclusiveText(result.error)))
        )
          result.error = stepResult.message;
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
      envelope.attachment.mediaType === 'text/x.cucumber.log+plain' &&
      envelope.attachment.body.startsWith(SKIPPED_LOG)
    ) {
      const result = results.get(envelope.attachment.testCaseStartedId);
      if (result && !result.skipped)
        result.skipped = envelope.attachment.body.slice(SKIPPED_LOG.length).trim();
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
    .map((id) => (declined.has(id) ? (priorAttempt.get(id) ?? id) : id))
    .map((id) => results.get(id))
    .filter((r): r is ScenarioResult => !!r);
}

function isInconclusiveText(message: string): boolean {
  return message.startsWith(INCONCLUSIVE_PREFIX) || message.includes(`: ${INCONCLUSIVE_PREFIX}`);
}

/**
 * One worker's harness facts: its event-loop lag over the run and the delays it measured
 * (timing.ts).
 */
export interface HarnessWorker {
  pid: number;
  eventLoopLagMs: { max: number; p99: number; mean: number };
  measuredDelays: Record<string, { maxMs: number; count: number }>;
  /**
   * A remote target: the round trips the worker measured at its start and the timeouts derived from
   * them.
   */
  network?: NetworkFacts;
}

/**
 * The network to a remote target as a worker measured it (steps/hooks.ts,
 * steps/support/network.ts).
 */
export interface NetworkFacts {
  roundTripMs: number;
  interfaces: Record<string, { url: string; rttMs?: number; samplesMs: number[]; error?: string }>;
  timeouts: { eventuallyMs: number; pollIntervalMs: number; requestMs: number };
}

/**
 * One line for a worker's network facts: "http 201 ms, mqtt 203 ms -> eventually 5010 ms, poll 101
 * ms, ...".
 */
export function networkLine(network: NetworkFacts): string {
  const interfaces = Object.entries(network.interfaces)
    .map(([name, measured]) =>
      measured.rttMs !== undefined
        ? `${name} ${measured.rttMs} ms`
        : `${name} not measured (${measured.error ?? 'no answer'})`,
    )
    .join(', ');
  const { eventuallyMs, pollIntervalMs, requestMs } = network.timeouts;
  return `round trip ${interfaces}; waits derived from ${network.roundTripMs} ms: eventually ${eventuallyMs} ms, poll ${pollIntervalMs} ms, request ${requestMs} ms`;
}

/**
 * How loaded the harness was: per worker its last harness attachment (each covers the worker's run
 * so far).
 */
export function harnessFacts(envelopes: readonly messages.Envelope[]): HarnessWorker[] {
  const byPid = new Map<number, HarnessWorker>();
  for (const envelope of envelopes) {
    if (envelope.attachment?.mediaType !== HARNESS_MEDIA_TYPE) continue;
    try {
      const facts = JSON.parse(envelope.attachment.body) as HarnessWorker;
      if (typeof facts.pid === 'number') byPid.set(facts.pid, facts);
    } catch {
      // not ours
    }
  }
  return [...byPid.values()];
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
   * Every scenario of the suite (all feature files, no tag filter); without it the scenarios that
   * ran are taken to be all there are, which only a run of the whole suite may claim.
   */
  inventory?: readonly PlannedScenario[];
}

/**
 * Every pickle of the run's sources, selected or not: cucumber emits them all before it filters by
 * tags.
 */
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
  // The hooks skip, by design, a scenario verifying a deviation this target does not declare (it
  // belongs to no requirement here), and a specification scenario of a requirement whose deviation
  // it declares (its alternative runs instead): for the other requirements such a scenario carries
  // it is set aside, and their verdict says so.
  const declaredDeviation = (tag: string, prefix: string) =>
    context.deviations?.has(tag.slice(prefix.length)) ?? false;
  const alternativesOf = (scenario: { tags: readonly string[] }) =>
    scenario.tags.filter((tag) => tag.startsWith('@deviation-'));
  const runsHere = (scenario: { tags: readonly string[] }) => {
    const alternatives = alternativesOf(scenario);
    if (alternatives.length)
      return alternatives.some((tag) => declaredDeviation(tag, '@deviation-'));
    return !scenario.tags.some((tag) => declaredDeviation(tag, '@'));
  };
  /** The declared deviations that keep a (specification) scenario from running here. */
  const takenBy = (scenario: { tags: readonly string[] }) =>
    alternativesOf(scenario).length
      ? []
      : scenario.tags.filter((tag) => declaredDeviation(tag, '@')).map((tag) => tag.slice(1));
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
    let setAside: SetAside | undefined;
    if (!declared) {
      const taken = inventory.filter((scenario) => scenario.tags.includes(tag));
      const deviations = [...new Set(taken.flatMap(takenBy))].sort();
      const count = taken.filter((scenario) => takenBy(scenario).length > 0).length;
      if (count > 0)
        setAside = {
          scenarios: count,
          deviations,
          // each deviation's alternatives check this requirement too: the suite says so by tagging
          // them with it
          checkedByAlternatives: deviations.every((id) =>
            inventory.some(
              (scenario) =>
                scenario.tags.includes(`@deviation-${id}`) && scenario.tags.includes(tag),
            ),
          ),
        };
    }
    const judged = declared
      ? deviationVerdict(requirement, own, planned, specification)
      : verdictOf(requirement, own, planned, context, setAside);
    return {
      ...requirement,
      ...judged,
      planned,
      ...(declared ? { deviationDeclared: true } : {}),
      ...(setAside ? { setAside } : {}),
      scenarios: own.map(
        ({ name, location, status, durationMs, error, failedStep, exchanges, skipped }) => ({
          name,
          location,
          status,
          durationMs,
          error,
          failedStep,
          exchanges,
          skipped,
        }),
      ),
    };
  });
}

/**
 * How a hook or step says why it skipped its scenario (`this.log('skipped: the target profile lacks
 * ...')`).
 */
const SKIPPED_LOG = 'skipped:';

/**
 * The distinct reasons the skipped scenarios gave, joined: "the target profile names no mqtts URL
 * (platform.mqtts)".
 */
function skipReasons(scenarios: readonly Pick<ScenarioResult, 'status' | 'skipped'>[]): string {
  const reasons = [
    ...new Set(
      scenarios
        .filter((scenario) => scenario.status === 'SKIPPED')
        .map((scenario) => scenario.skipped ?? 'no reason recorded'),
    ),
  ];
  return reasons.join('; ');
}

/** The reason's opening for a requirement the selection (--tags, paths) left out entirely. */
export const NOT_SELECTED = 'not selected';

type Judged = { verdict: Verdict; reason?: string };

/**
 * A scenario that failed for real: failed, ambiguous, undefined, pending or unknown (not
 * INCONCLUSIVE).
 */
function failing(scenario: Pick<ScenarioResult, 'status'>): boolean {
  return STATUS_RANK[scenario.status] > STATUS_RANK.INCONCLUSIVE;
}

/**
 * INCONCLUSIVE when any scenario could not decide (and none failed): the reason counts them and
 * gives the first one's error line.
 */
function inconclusive(
  scenarios: readonly Pick<ScenarioResult, 'status' | 'error'>[],
  planned: number,
): Judged | undefined {
  const undecided = scenarios.filter((scenario) => scenario.status === 'INCONCLUSIVE');
  if (undecided.length === 0) return undefined;
  const first = inconclusiveCause(undecided[0].error);
  return {
    verdict: 'INCONCLUSIVE',
    reason: `${undecided.length} of ${planned} scenarios could not decide: ${first}`,
  };
}

/** The first line of an INCONCLUSIVE error, from its `INCONCLUSIVE:` on. */
function inconclusiveCause(error: string | undefined): string {
  const line = (error ?? '').split('\n')[0];
  const at = line.indexOf(INCONCLUSIVE_PREFIX);
  return at < 0 ? line || 'no reason recorded' : line.slice(at + INCONCLUSIVE_PREFIX.length).trim();
}

/**
 * The verdict of a requirement from the scenarios of it that ran and the number the inventory
 * holds. Shared by a run and by `report merge` (which judges the union of the parts' scenarios).
 */
export function verdictOf(
  requirement: Requirement,
  scenarios: readonly Pick<ScenarioResult, 'status' | 'error' | 'skipped'>[],
  planned: number,
  context: Pick<VerdictContext, 'capabilities'>,
  setAside?: SetAside,
): Judged {
  const total = planned + (setAside?.scenarios ?? 0);
  const ids = setAside?.deviations.join(', ');
  const plural = (setAside?.deviations.length ?? 0) > 1 ? 's' : '';
  // "6 also check KV-02, GW-TEL-03 (declared deviations) and do not run here"
  const taken = `${setAside?.scenarios === 1 ? '1 also checks' : `${setAside?.scenarios} also check`} ${ids} (declared deviation${plural}) and ${setAside?.scenarios === 1 ? 'does' : 'do'} not run here`;
  if (setAside && planned === 0)
    return {
      verdict: 'NOT TESTED',
      reason: `not proven here: all ${total} of its scenarios also check ${ids} (declared deviation${plural}) and do not run here`,
    };
  const judged = plainVerdictOf(requirement, scenarios, planned, context);
  if (!setAside || judged.verdict === 'FAIL') return judged;
  // an undecided requirement's reason counts the set-aside scenarios too: "of 3" alone would hide 6
  // more
  if (judged.verdict !== 'PASS') return { ...judged, reason: `${judged.reason}; ${taken}` };
  // the scenarios that ran here prove it: the split-off ones check the deviated behaviour only (see
  // the top)
  return {
    verdict: 'PASS',
    reason: `PASS on ${planned} of ${total} scenarios; ${taken}${setAside.checkedByAlternatives ? `, and the alternative scenarios of ${ids} check @${requirement.id} too` : ''}`,
  };
}

function plainVerdictOf(
  requirement: Requirement,
  scenarios: readonly Pick<ScenarioResult, 'status' | 'error' | 'skipped'>[],
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
  const undecided = inconclusive(scenarios, planned);
  if (undecided) return undecided;
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
      reason: `the target lacks the capability ${requirement.capability} (add "${requirement.capability}" to the profile's capabilities to test it)`,
    };
  return {
    verdict: 'NOT TESTED',
    reason: `${passed} of ${planned} scenarios ran; the others were skipped: ${skipReasons(scenarios)}`,
  };
}

/**
 * A declared deviation: DEVIATION when all its alternatives ran and passed. When the run held the
 * requirement's own scenarios (skipped for the declaration) but the suite has no alternative, the
 * declaration is unverified: FAIL. When the run held no scenario of it at all (a tag filter left
 * them out), or only some alternatives, nothing is decided.
 */
export function deviationVerdict(
  requirement: Requirement,
  alternatives: readonly Pick<ScenarioResult, 'status' | 'error'>[],
  planned: number,
  specificationScenarios: number,
): Judged {
  if (alternatives.some(failing)) return { verdict: 'FAIL' };
  const undecided = inconclusive(alternatives, Math.max(planned, alternatives.length));
  if (undecided) return undecided;
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
