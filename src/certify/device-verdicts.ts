/**
 * From the checks of what the client sent to the report's requirement results: one verdict per
 * client requirement of the catalogue, evidence being the client's own requests or packets (the
 * ones that broke it, else the first it judged). A requirement without a check, or whose subject
 * the client never exercised, is NOT TESTED with the reason; one whose subject the client need not
 * take up (the check says so: a gateway that never acted as a device) is NOT APPLICABLE with the
 * reason, which the overall verdict accepts as it does a capability a platform lacks.
 */
import type { Requirement } from '../../schemas';
import type { Exchange, HttpExchange } from '../report/exchanges';
import type { RequirementResult, ScenarioResult } from '../report/verdicts';
import type { ObservedExchange } from '../../simulators/platform';
import type { ClientCheck } from './client-checks';

/** How many of the client's requests a requirement shows as evidence. */
const EVIDENCE_LIMIT = 6;
const BODY_CHARS = 300;

export function cut(text: string): string | undefined {
  if (!text) return undefined;
  return text.length > BODY_CHARS ? `${text.slice(0, BODY_CHARS)}…` : text;
}

/**
 * A request of the client as report evidence (redacted later by the report writer, token included).
 */
function clientExchange(exchange: ObservedExchange): HttpExchange {
  return {
    protocol: 'http',
    via: 'client under test',
    request: {
      method: exchange.method,
      url: exchange.url,
      ...(exchange.contentType === undefined
        ? {}
        : { headers: { 'content-type': exchange.contentType } }),
      body: cut(exchange.requestBody),
    },
    response: { status: exchange.status, body: cut(exchange.responseBody) },
    elapsedMs: 0,
  };
}

export interface DeviceVerdicts {
  requirements: RequirementResult[];
  /** One pseudo-scenario per judged requirement, for the report's run counts. */
  scenarios: ScenarioResult[];
}

/** How a kind of observed item is shown in the report. */
export interface Evidence<Item> {
  /** What one item is called: 'request', 'packet'. */
  noun: string;
  /** The report's exchange of one item. */
  exchange: (item: Item) => Exchange;
}

export const HTTP_EVIDENCE: Evidence<ObservedExchange> = {
  noun: 'request',
  exchange: clientExchange,
};

/**
 * `certification`: the kind of client certified, when its report also holds another role's
 * requirements (a gateway).
 */
export function deviceVerdicts<Input, Item>(
  catalogue: readonly Requirement[],
  checks: ReadonlyMap<string, ClientCheck<Input, Item>>,
  input: Input,
  evidence: Evidence<Item>,
  certification?: 'device' | 'gateway',
): DeviceVerdicts {
  const scenarios: ScenarioResult[] = [];
  const requirements = catalogue.map((requirement): RequirementResult => {
    const check = checks.get(requirement.id);
    if (!check)
      return {
        ...requirement,
        verdict: 'NOT TESTED',
        reason: 'iotc certify has no check of it yet',
        planned: 0,
        scenarios: [],
      };
    const outcome = check(input);
    if (!outcome.exercised)
      return {
        ...requirement,
        verdict: outcome.notApplicable ? 'NOT APPLICABLE' : 'NOT TESTED',
        reason: `${outcome.notApplicable ? 'not applicable' : 'not exercised'}: ${outcome.reason}`,
        planned: 1,
        scenarios: [],
      };
    const failed = outcome.violations.length > 0;
    const shown = failed ? outcome.violations.map((violation) => violation.item) : outcome.judged;
    const scenario: ScenarioResult = {
      name: `${requirement.id}: ${outcome.judged.length} ${evidence.noun}${outcome.judged.length === 1 ? '' : 's'} of the client checked`,
      location: `iotc certify ${certification ?? requirement.role} ${requirement.id}`,
      tags: [`@${requirement.id}`],
      status: failed ? 'FAILED' : 'PASSED',
      durationMs: 0,
      ...(failed
        ? {
            error: outcome.violations.map((violation) => violation.reason).join('\n'),
            failedStep: `the ${evidence.noun}s of the client under test`,
          }
        : {}),
      evidence: [],
      exchanges: shown.slice(0, EVIDENCE_LIMIT).map(evidence.exchange),
    };
    scenarios.push(scenario);
    const { tags: _tags, evidence: _evidence, ...decided } = scenario;
    return {
      ...requirement,
      verdict: failed ? 'FAIL' : 'PASS',
      planned: 1,
      scenarios: [decided],
    };
  });
  return { requirements, scenarios };
}
