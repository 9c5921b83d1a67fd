/**
 * reports/conformance.json: target, run facts, per-requirement verdict with its evidence, coverage
 * per interface. Everything written passes through the Redactor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  REQUIREMENT_VERDICTS,
  requirementCatalogueSchema,
  INTERFACES,
  type Requirement,
  type RequirementCatalogue,
  type Role,
} from '../../schemas';
import { validate } from '../../schemas/validate';
import type { Redactor } from './redact';
import {
  NOT_SELECTED,
  type HarnessWorker,
  type RequirementResult,
  type ScenarioResult,
  type Verdict,
  networkLine,
} from './verdicts';
import { overallReason, overallVerdict, type OverallVerdict } from './overall';
import { reproduceExchange } from './exchanges';
import type { Provenance } from './provenance';
import { PACKAGE_ROOT } from '../../lib/package-root';

const CATALOGUE_PATH = join(PACKAGE_ROOT, 'features', 'requirements.json');

/**
 * The roles `iotc run` and the kill matrix judge: a platform and a REST connector (the certified
 * clients are not).
 */
const SUITE_ROLES: readonly Role[] = ['platform', 'connector'];

/** The catalogue's requirements of the given roles (default: those of the conformance suite). */
export function loadCatalogue(
  path = CATALOGUE_PATH,
  roles: readonly Role[] = SUITE_ROLES,
): Requirement[] {
  const catalogue = JSON.parse(readFileSync(path, 'utf8')) as RequirementCatalogue;
  const check = validate(requirementCatalogueSchema, catalogue);
  if (!check.ok)
    throw new Error(`requirement catalogue ${path} is invalid: ${check.errors.join('; ')}`);
  const seen = new Set<string>();
  for (const requirement of catalogue.requirements) {
    if (seen.has(requirement.id))
      throw new Error(`requirement catalogue ${path} repeats the id ${requirement.id}`);
    seen.add(requirement.id);
  }
  return catalogue.requirements.filter((requirement) => roles.includes(requirement.role));
}

export interface InterfaceSummary {
  interface: string;
  requirements: number;
  testable: number;
  tested: number;
  verdicts: Record<Verdict, number>;
}

export interface ConformanceReport {
  tool: { name: 'iotc'; version: string };
  /** The one-line verdict of the whole run (src/report/overall.ts). */
  verdict?: OverallVerdict;
  /**
   * Why the run is INCOMPLETE when requirements are INCONCLUSIVE ("2 requirements INCONCLUSIVE: the
   * network failed").
   */
  verdictReason?: string;
  /**
   * iotc commit, catalogue and specification hashes, Node and OS, the selection
   * (src/report/provenance.ts).
   */
  provenance?: Provenance;
  target: { name: string; httpUrl: string; adminUrl: string; capabilities: string[] };
  run: {
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    tagExpression: string;
    scenarios: Record<string, number>;
    /** fast-check seeds and replay paths recorded by property scenarios. */
    seeds: unknown[];
    /**
     * Why nothing was tested, when the target could not be reached or logged in to before the run.
     */
    couldNotTest?: string;
    /**
     * The run was stopped before its end (Ctrl-C, SIGTERM): how; the report holds what ran until
     * then.
     */
    interrupted?: string;
    /**
     * The embedded reference ran asynchronous (src/target/twin-asynchrony.ts): the run's seed
     * (replay with IOTC_TWIN_SEED and the same number of workers, each of which derived its own
     * seed from it).
     */
    twin?: TwinRunFacts;
    /**
     * How loaded the harness was, per worker process: its event-loop lag over its whole run (ms)
     * and the delays it measured between asking for an effect and seeing it
     * (steps/support/timing.ts), by kind.
     */
    harness?: HarnessWorker[];
  };
  summary: InterfaceSummary[];
  requirements: RequirementResult[];
  /** Scenarios that carry no requirement id of the catalogue: a catalogue gap to fix. */
  untraced: string[];
}

/**
 * The reason's opening on every requirement of a run that could not reach or log in to its target.
 */
const COULD_NOT_TEST = 'could not test';

export interface TwinRunFacts {
  asynchronous: true;
  seed: number;
  workers: number;
}

const VERDICTS: readonly Verdict[] = REQUIREMENT_VERDICTS;

export function summarize(requirements: readonly RequirementResult[]): InterfaceSummary[] {
  return INTERFACES.map((name) => {
    const own = requirements.filter((requirement) => requirement.interface === name);
    const verdicts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<
      Verdict,
      number
    >;
    for (const requirement of own) verdicts[requirement.verdict] += 1;
    return {
      interface: name,
      requirements: own.length,
      testable: own.filter((requirement) => requirement.testable).length,
      tested: own.filter((requirement) => requirement.verdict !== 'NOT TESTED').length,
      verdicts,
    };
  }).filter((summary) => summary.requirements > 0);
}

export function buildConformanceReport(input: {
  version: string;
  target: ConformanceReport['target'];
  startedAt: Date;
  finishedAt: Date;
  tagExpression: string;
  scenarios: readonly ScenarioResult[];
  requirements: RequirementResult[];
  redactor: Redactor;
  couldNotTest?: string;
  /**
   * The run was stopped before its end: how (the report is partial, its verdict INCOMPLETE at
   * best).
   */
  interrupted?: string;
  provenance?: Provenance;
  twin?: TwinRunFacts;
  harness?: HarnessWorker[];
}): ConformanceReport {
  const counts: Record<string, number> = {};
  for (const scenario of input.scenarios)
    counts[scenario.status] = (counts[scenario.status] ?? 0) + 1;
  const ids = new Set(
    input.requirements.flatMap((requirement) => [
      `@${requirement.id}`,
      `@deviation-${requirement.id}`,
    ]),
  );
  const replayBase = /^https?:/.test(input.target.httpUrl)
    ? input.target.httpUrl
    : 'http://127.0.0.1:8080';
  // nothing ran: every requirement says why in its own reason (console, json, html, junit), not "no
  // scenario carries"; a reason of its own that says more (a certify step that timed out) is kept
  // after the cause
  const judged = input.couldNotTest
    ? input.requirements.map((requirement) => {
        const own = requirement.reason;
        const cause = `${COULD_NOT_TEST}: ${input.couldNotTest}`;
        return {
          ...requirement,
          verdict: 'NOT TESTED' as const,
          reason: own && !own.startsWith('no scenario carries @') ? `${cause}; ${own}` : cause,
        };
      })
    : input.requirements;
  const requirements = judged.map((requirement) => ({
    ...requirement,
    scenarios: requirement.scenarios.map((scenario) => ({
      ...scenario,
      error:
        scenario.error === undefined ? undefined : input.redactor.redactEvidence(scenario.error),
      // a failure comes with the commands that repeat its exchanges by hand (against `iotc
      // simulate` when embedded)
      exchanges:
        scenario.status === 'PASSED' || scenario.status === 'SKIPPED'
          ? scenario.exchanges
          : scenario.exchanges?.map((exchange) => {
              const reproduce = reproduceExchange(exchange, replayBase, {
                embedded: !/^https?:/.test(input.target.httpUrl),
              });
              return reproduce ? { ...exchange, reproduce } : exchange;
            }),
    })),
  }));
  const report: ConformanceReport = {
    tool: { name: 'iotc', version: input.version },
    ...(input.provenance ? { provenance: input.provenance } : {}),
    target: input.target,
    run: {
      startedAt: input.startedAt.toISOString(),
      finishedAt: input.finishedAt.toISOString(),
      durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
      tagExpression: input.tagExpression,
      scenarios: counts,
      seeds: input.scenarios.flatMap((scenario) =>
        scenario.evidence
          .filter(
            (item): item is { fastCheck: unknown } =>
              typeof item === 'object' && item !== null && 'fastCheck' in item,
          )
          .map((item) => ({
            scenario: scenario.name,
            location: scenario.location,
            ...(item.fastCheck as object),
          })),
      ),
      ...(input.couldNotTest ? { couldNotTest: input.couldNotTest } : {}),
      ...(input.interrupted ? { interrupted: input.interrupted } : {}),
      ...(input.twin ? { twin: input.twin } : {}),
      ...(input.harness?.length ? { harness: input.harness } : {}),
    },
    summary: summarize(requirements),
    requirements,
    untraced: input.scenarios
      .filter((scenario) => !scenario.tags.some((tag) => ids.has(tag)))
      .map((scenario) => `${scenario.location} ${scenario.name}`),
  };
  return withOverall(report);
}

/**
 * The report with its overall verdict (and the reason of an INCONCLUSIVE-made INCOMPLETE) in front.
 */
export function withOverall(report: ConformanceReport): ConformanceReport {
  const { tool, verdict: _verdict, verdictReason: _reason, ...rest } = report;
  const verdictReason = overallReason(report);
  return {
    tool,
    verdict: overallVerdict(report),
    ...(verdictReason ? { verdictReason } : {}),
    ...rest,
  };
}

/** The per-interface table printed at the end of a run. */
export function formatSummary(report: ConformanceReport): string {
  const header = [
    'interface',
    'reqs',
    'testable',
    'tested',
    'PASS',
    'FAIL',
    'DEVIATION',
    'INCONCL.',
    'N/A',
    'NOT TESTED',
  ];
  const rows = report.summary.map((summary) =>
    [
      summary.interface,
      summary.requirements,
      summary.testable,
      summary.tested,
      summary.verdicts.PASS,
      summary.verdicts.FAIL,
      summary.verdicts.DEVIATION,
      summary.verdicts.INCONCLUSIVE ?? 0,
      summary.verdicts['NOT APPLICABLE'],
      summary.verdicts['NOT TESTED'],
    ].map(String),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join('  ');
  const failures = report.requirements
    .filter((requirement) => requirement.verdict === 'FAIL')
    .map((requirement) => {
      const failed = requirement.scenarios.find(
        (scenario) => !['PASSED', 'SKIPPED', 'INCONCLUSIVE'].includes(scenario.status),
      );
      return `  FAIL ${requirement.id}: ${requirement.statement}\n       ${failed ? `${failed.location} ${failed.name} (${failed.status})` : ''}`;
    });
  const undecidable = report.requirements
    .filter((requirement) => requirement.verdict === 'INCONCLUSIVE')
    .map((requirement) => `  INCONCLUSIVE ${requirement.id}: ${requirement.reason ?? ''}`);
  // a testable requirement left undecided always says why (part of its scenarios ran, some were
  // skipped, none exists yet); those a restricted selection left out entirely are counted, not
  // listed
  const undecided = report.requirements.filter(
    (requirement) => requirement.testable && requirement.verdict === 'NOT TESTED',
  );
  const unselected = undecided.filter((requirement) =>
    requirement.reason?.startsWith(NOT_SELECTED),
  ).length;
  const reasons = undecided
    .filter((requirement) => !requirement.reason?.startsWith(NOT_SELECTED))
    .map(
      (requirement) =>
        `  NOT TESTED ${requirement.id}: ${requirement.reason ?? 'no reason recorded'}`,
    );
  const because = overallReason(report);
  const worstLag = Math.max(0, ...(report.run.harness ?? []).map((w) => w.eventLoopLagMs.max));
  return [
    `Conformance of target "${report.target.name}": ${overallVerdict(report)}${because ? ` (${because})` : ''}${report.provenance && !report.provenance.selection.full ? ` (partial run: ${[report.provenance.selection.tags, ...report.provenance.selection.paths].filter(Boolean).join(' ')})` : ''}`,
    ...(report.run.couldNotTest ? [`NOTHING TESTED: ${report.run.couldNotTest}`] : []),
    ...(report.run.interrupted
      ? [`INTERRUPTED: ${report.run.interrupted}; what ran until then`]
      : []),
    line(header),
    ...rows.map(line),
    ...(failures.length ? ['', ...failures] : []),
    ...(undecidable.length ? ['', ...undecidable] : []),
    ...(reasons.length ? ['', ...reasons] : []),
    ...(unselected
      ? ['', `  ${unselected} testable requirements not selected by this run (NOT TESTED)`]
      : []),
    ...(report.run.harness?.length
      ? [
          '',
          `Harness: ${report.run.harness.length} worker(s), worst event-loop lag ${worstLag} ms over the run`,
          ...report.run.harness.flatMap((worker) =>
            worker.network ? [`Network: ${networkLine(worker.network)}`] : [],
          ),
        ]
      : []),
  ].join('\n');
}
