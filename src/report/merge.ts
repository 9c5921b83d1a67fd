/**
 * `iotc report merge`: one conformance report from runs split across machines (e.g. one interface per CI job).
 * Per requirement the scenarios of every part are joined and the verdicts combined: any FAIL fails; otherwise a
 * DEVIATION, a PASS, NOT APPLICABLE and NOT TESTED win in that order. The parts must be of the same target.
 */
import { summarize, type ConformanceReport } from './conformance';
import type { RequirementResult, Verdict } from './verdicts';

const ORDER: Verdict[] = ['FAIL', 'DEVIATION', 'PASS', 'NOT APPLICABLE', 'NOT TESTED'];

export class ReportMergeError extends Error {
  readonly code = 'IOTC_REPORT_MERGE';
}

export function mergeReports(parts: readonly ConformanceReport[]): ConformanceReport {
  if (parts.length === 0) throw new ReportMergeError('nothing to merge');
  const targets = new Set(parts.map((part) => part.target.name));
  if (targets.size > 1)
    throw new ReportMergeError(`the reports are of different targets: ${[...targets].join(', ')}`);
  const byId = new Map<string, RequirementResult>();
  for (const part of parts) {
    for (const requirement of part.requirements) {
      const merged = byId.get(requirement.id);
      if (!merged) {
        byId.set(requirement.id, { ...requirement, scenarios: [...requirement.scenarios] });
        continue;
      }
      merged.scenarios.push(...requirement.scenarios);
      if (ORDER.indexOf(requirement.verdict) < ORDER.indexOf(merged.verdict))
        merged.verdict = requirement.verdict;
    }
  }
  const requirements = [...byId.values()];
  const scenarios: Record<string, number> = {};
  for (const part of parts)
    for (const [status, count] of Object.entries(part.run.scenarios))
      scenarios[status] = (scenarios[status] ?? 0) + count;
  const startedAt = parts.map((part) => part.run.startedAt).sort()[0];
  const finishedAt = parts
    .map((part) => part.run.finishedAt)
    .sort()
    .at(-1)!;
  return {
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
    },
    summary: summarize(requirements),
    requirements,
    untraced: parts.flatMap((part) => part.untraced),
  };
}
