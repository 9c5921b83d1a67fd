/**
 * The kill matrix: for every planted fault, the scenarios tagged with its requirement run against
 * the embedded reference with exactly that fault on, and the requirement's verdict (the project's
 * own verdict rules) says whether the fault was killed (FAIL) or survived. A baseline with no fault
 * on comes first: every requirement the faults break must PASS there, otherwise a FAIL under a
 * fault would prove nothing.
 *
 * A run restricted by tags leaves other requirements partial; "killed" is judged on the fault's own
 * requirement, whose scenarios the selection `@<id>` holds entirely.
 *
 * This is the reference's half; client-matrix.ts judges the clients' faults and kill-matrix.ts runs
 * both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultRequirement, setActiveFaults } from '../../faults';
import type { Requirement } from '../../schemas';
import { loadCatalogue } from '../report/conformance';
import { loadProfile } from '../target';
import {
  requirementVerdicts,
  scenarioInventory,
  scenarioResults,
  type RequirementResult,
  type VerdictContext,
} from '../report/verdicts';
import { CucumberSession } from './cucumber-session';
import { selectFaults, uncoveredRequirements } from './selection';
import type {
  BaselineResult,
  Failure,
  FaultOutcome,
  FaultResult,
  MatrixOptions,
  MatrixResult,
} from './matrix-types';

/**
 * How many times a fault is judged before it is called a survivor. A kill that needs a second or
 * third run means the scenario sees the fault only when a race goes one way (an RPC queued before
 * the poll or not): such faults are reported as killed with their attempts, and listed as scenarios
 * to make deterministic, never hidden.
 */
export const SURVIVOR_ATTEMPTS = 5;

export type {
  ClientControl,
  FaultResult,
  MatrixOptions,
  MatrixResult,
} from './matrix-types';

export async function runFaultMatrix(options: MatrixOptions = {}): Promise<MatrixResult> {
  const started = Date.now();
  selectFaults(options); // an unknown fault fails before cucumber loads
  const session = await CucumberSession.open();
  // Every run's entities live on an embedded reference that stops with the run; a fault that breaks
  // cleanup (a refusal the admin client cannot refresh past) must not leave entries in the user's
  // journal for ever
  const matrixState = mkdtempSync(join(tmpdir(), 'iotc-faults-state-'));
  const restore = setEnvironment({
    IOTC_STATE_DIR: matrixState,
    // a kill needs a failing case, not the smallest one: shrinking (every failing attempt waits the
    // profile's eventuallyMs) was most of the time of the faults judged by properties
    FC_SHRINK_MS: '0',
  });
  try {
    return await judgeAll(session, options, started);
  } finally {
    restore();
    rmSync(matrixState, { recursive: true, force: true });
  }
}

async function judgeAll(
  session: CucumberSession,
  options: MatrixOptions,
  started: number,
): Promise<MatrixResult> {
  const target = options.target ?? 'embedded';
  const log = options.log ?? (() => {});
  const catalogue = loadCatalogue();
  const profile = loadProfile(target);
  const context = {
    capabilities: new Set<string>(profile.capabilities ?? []),
    deviations: new Set(Object.keys(profile.deviations ?? {})),
  };
  const faults = selectFaults(options);

  const requirementOf = (id: string) => options.judgeBy?.[id] ?? faultRequirement(id);
  const requirementIds = [...new Set(faults.map((fault) => requirementOf(fault.id)))];
  setActiveFaults([]);
  const baselineStarted = Date.now();
  let baselineRun = new Map<string, RequirementResult>();
  let baselineError: string | undefined;
  try {
    if (requirementIds.length)
      baselineRun = await judge(
        session,
        target,
        catalogue,
        context,
        requirementIds.map((id) => `@${id}`).join(' or '),
      );
  } catch (error) {
    baselineError = describe(error);
  }
  const notPassing = requirementIds
    .map((id) => ({ id, result: baselineRun.get(id) }))
    .filter(({ result }) => result?.verdict !== 'PASS')
    .map(({ id, result }) => ({
      id,
      verdict: result?.verdict ?? ('NOT TESTED' as const),
      reason: result ? result.reason : `the baseline run failed: ${baselineError}`,
      failure: result && firstFailure(result),
    }));
  const baseline: BaselineResult = {
    ok: notPassing.length === 0,
    requirements: requirementIds.length,
    notPassing,
    durationMs: Date.now() - baselineStarted,
  };
  log(
    baseline.ok
      ? `baseline: all ${requirementIds.length} requirements PASS with no fault on (${seconds(baseline.durationMs)})`
      : `baseline: ${notPassing.length} of ${requirementIds.length} requirements do not PASS with no fault on: ${notPassing.map((entry) => `${entry.id} ${entry.verdict}`).join(', ')}; their faults cannot be judged`,
  );

  const broken = new Set(notPassing.map((entry) => entry.id));
  const results: FaultResult[] = [];
  try {
    for (const fault of faults) {
      const requirement = requirementOf(fault.id);
      if (broken.has(requirement)) {
        results.push({
          id: fault.id,
          requirement,
          breaks: fault.breaks,
          outcome: 'not judged',
          reason: `${requirement} does not PASS without the fault`,
          scenarios: 0,
          durationMs: 0,
        });
        continue;
      }
      const faultStarted = Date.now();
      let verdicts: Map<string, RequirementResult> | undefined;
      let attempts = 0;
      try {
        while (attempts < SURVIVOR_ATTEMPTS) {
          attempts += 1;
          setActiveFaults([fault.id]);
          verdicts = await judge(session, target, catalogue, context, `@${requirement}`, {
            failFast: true,
          });
          setActiveFaults([]);
          if (verdicts.get(requirement)?.verdict === 'FAIL') break;
        }
      } catch (error) {
        // the run itself broke (a BeforeAll hook could not open the target, say): no scenario
        // judged anything
        results.push({
          id: fault.id,
          requirement,
          breaks: fault.breaks,
          outcome: 'not judged',
          reason: `the run failed before its scenarios could judge: ${describe(error)}`,
          scenarios: 0,
          durationMs: Date.now() - faultStarted,
        });
        log(`NOT JUDGED ${fault.id}: ${results.at(-1)!.reason}`);
        continue;
      } finally {
        setActiveFaults([]);
      }
      const result = verdicts!.get(requirement)!;
      // INCONCLUSIVE in every attempt: the harness could not judge (starved, or the network), so
      // the fault is not judged rather than survived: no scenario passed with it on
      const outcome: FaultOutcome =
        result.verdict === 'FAIL'
          ? 'killed'
          : result.verdict === 'INCONCLUSIVE'
            ? 'not judged'
            : 'survived';
      results.push({
        id: fault.id,
        requirement,
        breaks: fault.breaks,
        outcome,
        verdict: result.verdict,
        reason:
          outcome === 'killed'
            ? undefined
            : `${requirement} is ${result.verdict}${result.reason ? ` (${result.reason})` : ''} with the fault on${outcome === 'not judged' ? ` in all ${attempts} attempts` : ''}`,
        scenarios: result.scenarios.length,
        failure: firstFailure(result),
        durationMs: Date.now() - faultStarted,
        attempts,
      });
      const last = results.at(-1)!;
      const racy =
        outcome === 'killed' && attempts > 1
          ? ` [killed only at attempt ${attempts}: a racy scenario]`
          : '';
      log(
        `${outcome === 'killed' ? 'killed  ' : outcome === 'survived' ? 'SURVIVED' : 'NOT JUDGED'} ${fault.id} (${last.scenarios} scenarios, ${seconds(last.durationMs)})${last.failure?.step ? `: ${last.failure.step}` : ''}${racy}`,
      );
    }
  } finally {
    setActiveFaults([]);
  }

  const uncovered = uncoveredRequirements(options);
  return {
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    target,
    selection: { faults: options.faults, requirements: options.requirements },
    baseline,
    clients: [],
    faults: results,
    uncovered,
    summary: summarize(results, uncovered),
  };
}

export function summarize(
  results: readonly FaultResult[],
  uncovered: MatrixResult['uncovered'],
): MatrixResult['summary'] {
  const count = (outcome: FaultOutcome) =>
    results.filter((result) => result.outcome === outcome).length;
  return {
    faults: results.length,
    killed: count('killed'),
    survived: count('survived'),
    notJudged: count('not judged'),
    requirementsWithFaults: new Set(results.map((result) => result.requirement)).size,
    uncovered: uncovered.length,
    clientFaults: results.filter((result) => result.client).length,
  };
}

/**
 * One cucumber run of the tag expression, judged with the project's verdict rules (inventory
 * included).
 */
async function judge(
  session: CucumberSession,
  target: string,
  catalogue: readonly Requirement[],
  context: Omit<VerdictContext, 'inventory'>,
  tags: string,
  options: { failFast?: boolean } = {},
): Promise<Map<string, RequirementResult>> {
  const { envelopes } = await session.run(tags, target, options);
  const verdicts = requirementVerdicts(catalogue, scenarioResults(envelopes), {
    ...context,
    inventory: scenarioInventory(envelopes),
  });
  return new Map(verdicts.map((result) => [result.id, result]));
}

function firstFailure(result: RequirementResult): Failure | undefined {
  const failed = result.scenarios.find(
    (scenario) => scenario.status !== 'PASSED' && scenario.status !== 'SKIPPED',
  );
  return failed
    ? {
        scenario: failed.name,
        location: failed.location,
        step: failed.failedStep,
        error: failed.error?.split('\n').slice(0, 6).join('\n').slice(0, 600),
      }
    : undefined;
}

/**
 * Sets these variables for the matrix's runs; the function returned puts the previous values back.
 */
function setEnvironment(values: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  return () => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

function describe(error: unknown): string {
  const cause = (error as Error).cause as Error | undefined;
  return `${(error as Error).message}${cause ? `: ${cause.message}` : ''}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
