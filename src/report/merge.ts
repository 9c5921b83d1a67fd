/**
 * `iotc report merge`: one conformance report from runs split across machines (e.g. one interface
 * per CI job). Per requirement the scenarios of every part are joined (one per location, the worst
 * outcome when two parts ran the same one, except that a pass decides what an INCONCLUSIVE run of
 * it could not) and judged again with the run's own rules: any failure fails, an INCONCLUSIVE
 * scenario makes it INCONCLUSIVE; PASS or DEVIATION only when together the parts ran every scenario
 * the suite holds for it, so partial runs (each NOT TESTED, partial) merge into a full verdict only
 * when they complete each other. The parts must be of the same target.
 */
import { DEFAULT_NOT_EXERCISED } from '../target/effective-rest';
import { summarize, withOverall, type ConformanceReport } from './conformance';
import {
  deviationVerdict,
  STATUS_ORDER,
  verdictOf,
  type RequirementResult,
  type ScenarioStatus,
} from './verdicts';
import { IotcError } from '../../lib/errors';

/**
 * The conformance reports given to `iotc report merge` cannot be merged (missing, another
 * catalogue, another target).
 */
export class ReportMergeError extends IotcError {
  readonly code = 'IOTC_REPORT_MERGE';
}

export function mergeReports(parts: readonly ConformanceReport[]): ConformanceReport {
  if (parts.length === 0) throw new ReportMergeError('nothing to merge');
  const targets = new Set(parts.map((part) => part.target.name));
  if (targets.size > 1)
    throw new ReportMergeError(`the reports are of different targets: ${[...targets].join(', ')}`);
  const byId = new Map<string, RequirementResult[]>();
  for (const part of parts)
    for (const requirement of part.requirements)
      byId.set(requirement.id, [...(byId.get(requirement.id) ?? []), requirement]);
  const capabilities = new Set(parts.flatMap((part) => part.target.capabilities));
  const requirements = [...byId.values()].map((results) => mergeRequirement(results, capabilities));
  const scenarios: Record<string, number> = {};
  for (const part of parts)
    for (const [status, count] of Object.entries(part.run.scenarios))
      scenarios[status] = (scenarios[status] ?? 0) + count;
  const startedAt = parts.map((part) => part.run.startedAt).sort()[0];
  const finishedAt = parts
    .map((part) => part.run.finishedAt)
    .sort()
    .at(-1)!;
  const harness = parts.flatMap((part) => part.run.harness ?? []);
  return withOverall({
    tool: parts[0].tool,
    target: {
      ...parts[0].target,
      capabilities: [...new Set(parts.flatMap((part) => part.target.capabilities))],
    },
    run: {
      startedAt,
      finishedAt,
      durationMs: parts.reduce((sum, part) => sum + part.run.durationMs, 0),
      tagExpression: parts.map((part) => part.run.tagExpression || '(all)').join(' | '),
      scenarios,
      seeds: parts.flatMap((part) => part.run.seeds),
      ...(harness.length ? { harness } : {}),
    },
    summary: summarize(requirements),
    requirements,
    untraced: parts.flatMap((part) => part.untraced),
  });
}

/**
 * Whether `a` outranks `b` when two parts ran the same scenario: the worse outcome, except that a
 * PASS decides what an INCONCLUSIVE run could not (the part that passed ran it again and proved
 * it).
 */
function worse(a: ScenarioStatus, b: ScenarioStatus): boolean {
  if (a === 'INCONCLUSIVE' && b === 'PASSED') return false;
  if (a === 'PASSED' && b === 'INCONCLUSIVE') return true;
  return STATUS_ORDER.indexOf(a) > STATUS_ORDER.indexOf(b);
}

function mergeRequirement(
  results: readonly RequirementResult[],
  capabilities: ReadonlySet<string>,
): RequirementResult {
  const byLocation = new Map<string, RequirementResult['scenarios'][number]>();
  for (const scenario of results.flatMap((result) => result.scenarios)) {
    const seen = byLocation.get(scenario.location);
    if (!seen || worse(scenario.status, seen.status)) byLocation.set(scenario.location, scenario);
  }
  const scenarios = [...byLocation.values()];
  // a report written before `planned` existed counted only what it ran
  const planned = Math.max(...results.map((result) => result.planned ?? result.scenarios.length));
  const first = results[0];
  const declared = results.some((result) => result.deviationDeclared);
  // every part judged against the same inventory and profile, so any part's set-aside count is the
  // requirement's
  const setAside = results.find((result) => result.setAside)?.setAside;
  const verdict = declared
    ? deviationVerdict(first, scenarios, planned, 0)
    : verdictOf(first, scenarios, planned, { capabilities }, setAside);
  // a part's run found the default unexercised on the target (src/target/effective-rest.ts): no
  // merge proves it
  const unexercised = results.find((result) => result.reason?.startsWith(DEFAULT_NOT_EXERCISED));
  const judged =
    verdict.verdict === 'PASS' && unexercised
      ? { verdict: 'NOT TESTED' as const, reason: unexercised.reason }
      : verdict;
  const { reason: _reason, ...rest } = first;
  return {
    ...rest,
    ...judged,
    planned,
    ...(declared ? { deviationDeclared: true } : {}),
    ...(setAside ? { setAside } : {}),
    scenarios,
  };
}
