/**
 * The conformance engine: runs the suite against a target through cucumber's API (workers, the
 * twin's seed, the inventory), writes the reports and decides the exit code. No command-line code:
 * what a user reads comes out through `RunEvents`, and signals are the caller's (`iotc run`,
 * src/cli/run.ts, installs them and calls `interrupt`/`abandon`). The kill matrix (src/faults/)
 * loads the same step definitions (`stepDefinitions`).
 */
// first: its sample of the cores' times starts before cucumber and the rest load (workerCount)
import { othersBusyCores } from './idle-cpu';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { SHARED_DELAYS_VARIABLE } from '../../steps/support/timing';
import type * as messages from '@cucumber/messages';
import { loadConfiguration, loadSupport, runCucumber } from '@cucumber/cucumber/api';
import { loadProfile, openTarget } from '../target';
import type { TargetProfile } from '../../schemas';
import { checkTarget, TargetUnreachableError } from '../target/preflight';
import { isStopRequested, requestStop, whenNoScenarioRuns } from './interruption';
import { Redactor } from '../report/redact';
import {
  scenarioInventory,
  scenarioResults,
  harnessFacts,
  requirementVerdicts,
  type PlannedScenario,
} from '../report/verdicts';
import {
  buildConformanceReport,
  loadCatalogue,
  type ConformanceReport,
} from '../report/conformance';
import { cleanupTarget, undoEarlierRun } from './cleanup';
import {
  creationsSettled,
  journalPath,
  refuseNewEntities,
  stopMarkerPath,
} from '../target/journal';
import { takeRunLock } from '../target/run-lock';
import { scrubLocalPaths, writeConformanceFiles } from '../report/write';
import { provenance } from '../report/provenance';
import { COMPILED, PACKAGE_ROOT } from '../../lib/package-root';
import { selectionErrorJunit } from '../report/junit';
import { checkSelection, EMPTY_SELECTION_EXIT, SelectionError } from './selection';
import { EXIT, reportExitCode, undecidedRequirements } from '../report/exit-code';
import { dryRunInventory } from './inventory';
import { IotcError } from '../../lib/errors';
import { featureFiles, loadFeatureWeights, remoteOrder, slowestFirst } from './feature-order';
import { featureRank } from './exclusive';
import { runTwinSeed, TWIN_SEED_VARIABLE } from '../target/twin-asynchrony';
import {
  defaultsNotExercised,
  effectiveRestConfig,
  routedDestinations,
  withUnexercisedDefaults,
} from '../target/effective-rest';
import { workerEnvironment } from './worker-environment';
import { scenariosPerWorker, staggerWorkers } from './staggered-workers';
import { sharedDelaysFolder } from './shared-delays';
import { compactWorkerMessages } from './worker-messages';

export const PROJECT_ROOT = PACKAGE_ROOT;

/**
 * How long an interrupted run waits for the running scenario to finish before cleaning up anyway
 * (its hooks' own limit).
 */
const STOP_WAIT_MS = 60_000;

export interface RunOptions {
  target: string;
  reportsDir: string;
  tags?: string;
  /** Feature files or folders; all features when empty. */
  paths?: string[];
  /**
   * A cucumber formatter for the console (its name), instead of the caller's own progress through
   * `onMessage`.
   */
  progress?: string;
  /**
   * Worker processes running scenarios at once (cucumber's parallel); 1 = in this process. 'auto'
   * (the default): several (workerCount: at most five on an embedded target, seven to eighteen on
   * a remote one by its round trip); on an embedded target every worker starts its own reference,
   * on a remote one they share its tenant and a scenario that changes what others see does not
   * overlap them (src/engine/exclusive.ts).
   */
  parallel?: number | 'auto';
}

/** What the engine tells its caller while it runs. */
export interface RunEvents {
  /** A line for the user (the twin's seed). */
  info(line: string): void;
  /** A line about a problem or the interruption (the caller's stderr). */
  warn(line: string): void;
  /** Every cucumber message as it comes (a progress display). */
  onMessage?(envelope: messages.Envelope): void;
}

/** The end of a run: its exit code and, when it got that far, its report and scenario counts. */
export interface RunOutcome {
  exitCode: number;
  reportsDir: string;
  report?: ConformanceReport;
  /** The redactor the report was written with (the caller prints its summary through it). */
  redactor?: Redactor;
  /**
   * Why nothing was tested: the target could not be reached or the selection was empty or
   * malformed.
   */
  couldNotTest?: string;
  selectionError?: string;
  scenarios?: { passed: number; failed: number; inconclusive: number };
  /**
   * INCOMPLETE (exit 6): the requirements the run selected that stayed NOT TESTED by no choice of
   * the user.
   */
  undecided?: string[];
}

/** Options of `iotc run` that do not fit together or the target (exit 2). */
export class RunOptionsError extends IotcError {
  readonly code = 'IOTC_RUN_OPTIONS';
}

/**
 * The exit code of a run that tested: the report's (src/report/exit-code.ts: 0 CONFORMANT or PASS
 * WITH WARNINGS, 1 NOT CONFORMANT, 3 nothing decided, 4 INCONCLUSIVE, 6 INCOMPLETE by no choice of
 * the user), except that cucumber failing where no requirement's verdict shows it (a hook, a
 * scenario without a catalogued id) is a failure: 1. An INCONCLUSIVE scenario is not a failure of
 * the target, so never 1; it is not a proof either, so never 0.
 */
function exitCode(outcome: {
  success: boolean;
  /** The report's exit code (reportExitCode). */
  reportCode: number;
  /** Failed scenarios that carry no catalogued requirement id (no verdict shows them). */
  untracedFailures: number;
  /** Requirements that FAIL, of any level (a SHOULD's FAIL explains cucumber's failure). */
  failedRequirements: number;
  inconclusiveScenarios: number;
}): number {
  if (outcome.reportCode === EXIT.notConformant || outcome.untracedFailures > 0)
    return EXIT.notConformant;
  if (!outcome.success && outcome.failedRequirements === 0 && outcome.inconclusiveScenarios === 0)
    return EXIT.notConformant;
  return outcome.reportCode;
}

/**
 * The profile of a run, checked against its options before anything starts (throws on a bad profile
 * or options).
 */
export function checkRunOptions(options: RunOptions): TargetProfile {
  const profile = loadProfile(options.target);
  // workers clean up by run id: with one id given to all of them, the first to finish would delete
  // the others'
  if (
    process.env.IOTC_RUN_ID !== undefined &&
    typeof options.parallel === 'number' &&
    options.parallel > 1
  )
    throw new RunOptionsError(
      'IOTC_RUN_ID names one run: it cannot be shared by --parallel workers, which clean up by run id',
    );
  return profile;
}

/**
 * One conformance run. `start` runs it; `interrupt` (a first Ctrl-C) stops it between scenarios,
 * cleans up what it created and writes what ran as an INCOMPLETE report; `abandon` (a second one)
 * writes that report without cleaning up.
 */
export class ConformanceRun {
  private partialReport: ((reason: string) => void) | undefined;
  /**
   * Set once cucumber runs: resolves when it has ended (every worker's running scenario finished).
   */
  private cucumberEnded: Promise<'idle'> | undefined;

  constructor(
    private readonly options: RunOptions,
    private readonly events: RunEvents,
  ) {}

  /**
   * No new scenario and no new entity; the running scenario finishes (with its own cleanup) and
   * creations in flight are answered; then what the run created is deleted (its journal says what)
   * and what ran so far is written as an interrupted report. Resolves when that is done; the caller
   * exits.
   */
  async interrupt(signal: NodeJS.Signals): Promise<void> {
    const { options, events } = this;
    requestStop();
    refuseNewEntities(signal);
    // the workers of a parallel run stop too, though only this process may have been signalled
    writeFileSync(this.stopMarker(), `${signal}\n`);
    events.warn(
      `\niotc run: ${signal}: stopping; the running scenario finishes first (${signal} again: exit now)`,
    );
    // this process's scenarios, then the workers' (cucumber ends once theirs have finished, the
    // rest skipped)
    const waited = await Promise.race([
      whenNoScenarioRuns(STOP_WAIT_MS).then(async (own) =>
        own === 'idle' ? ((await this.cucumberEnded) ?? 'idle') : own,
      ),
      new Promise<'timed out'>((done) => setTimeout(() => done('timed out'), STOP_WAIT_MS).unref()),
    ]);
    if (waited === 'timed out')
      events.warn(
        `iotc run: a scenario still runs after ${STOP_WAIT_MS / 1000} s; cleaning up anyway`,
      );
    events.warn('iotc run: cleaning up what this run created');
    try {
      await creationsSettled();
      const code = await cleanupTarget(options.target, (line) => events.warn(line));
      if (code !== 0)
        events.warn(
          `iotc run: the cleanup is not complete; run iotc cleanup --target ${options.target}`,
        );
    } catch (error) {
      events.warn(
        `iotc run: cleanup failed: ${(error as Error).message}; run iotc cleanup --target ${options.target}`,
      );
    } finally {
      rmSync(this.stopMarker(), { force: true });
      this.finishInterrupted(`interrupted by ${signal}`);
    }
  }

  /** The stop marker beside this run's journal (src/target/journal.ts: the workers read it). */
  private stopMarker(): string {
    return stopMarkerPath(journalPath(loadProfile(this.options.target).name));
  }

  /**
   * A second signal: the report of what ran, no cleanup; the journal is left for `iotc cleanup`
   * (issue 26 item 4).
   */
  abandon(signal: NodeJS.Signals): void {
    const journal = journalPath(loadProfile(this.options.target).name);
    this.events.warn(
      `\niotc run: ${signal} again: exiting now without cleaning up; what this run created or changed is in ${journal}: run iotc cleanup --target ${this.options.target}`,
    );
    this.finishInterrupted(`interrupted by a second ${signal}: not cleaned up`);
  }

  private finishInterrupted(reason: string): void {
    try {
      this.partialReport?.(reason);
    } catch (error) {
      this.events.warn(`iotc run: the partial report failed: ${(error as Error).message}`);
    }
    removeUnfinishedCucumberFiles(resolve(this.options.reportsDir));
  }

  /**
   * Runs the suite and writes the reports; the exit code is 0 only when nothing failed. Once
   * `interrupt` was called this never resolves: the interruption ends the run (its cleanup, the
   * partial report) and the caller exits.
   */
  async start(): Promise<RunOutcome> {
    const { options, events } = this;
    const reportsDir = resolve(options.reportsDir);
    mkdirSync(reportsDir, { recursive: true });
    const profile = checkRunOptions(options); // fails fast on a bad profile, before cucumber starts
    // one run at a time against a remote target, and it starts by undoing what an earlier (killed)
    // run left
    if (!profile.embedded) takeRunLock(journalPath(profile.name), profile.name);
    const checked = profile.embedded ? {} : await preflight(options.target);
    const unreachable = profile.embedded
      ? undefined
      : (checked.unreachable ??
        (await undoEarlierRun(options.target, (line) => events.warn(line))));
    // the embedded reference's asynchrony (src/target/twin-asynchrony.ts): one seed per run,
    // printed, recorded in conformance.json, and handed to the workers (each derives its own)
    // through the environment
    const twinSeed = runTwinSeed(profile);
    if (twinSeed !== undefined) {
      process.env[TWIN_SEED_VARIABLE] = String(twinSeed);
      events.info(
        `iotc run: the embedded reference is asynchronous, seed ${twinSeed} (replay: ${TWIN_SEED_VARIABLE}=${twinSeed})`,
      );
    }
    const redactor = new Redactor();
    // The profile's passwords are blanked by value where they stand whole, when they are strong
    // enough to be told from prose (redact.ts looksLikeSecret): the demo users' "tenant" /
    // "customer" blanked by value broke every /api/tenant/... path of the report. Password fields
    // and Authorization headers are blanked by name anyway.
    for (const credentials of profile.embedded
      ? []
      : [profile.platform.tenantAdmin, profile.platform.customerUser, profile.platform.sysAdmin]) {
      if (credentials) redactor.addSecret(credentials.password);
    }

    if (unreachable) {
      // nothing was tested: the report says so for every requirement, with the cause, and the exit
      // code is its own
      const now = new Date();
      const report = buildConformanceReport({
        version: iotcVersion(),
        target: targetFacts(profile),
        startedAt: now,
        finishedAt: now,
        tagExpression: options.tags ?? '',
        scenarios: [],
        requirements: requirementVerdicts(loadCatalogue(), [], {
          capabilities: new Set(profile.capabilities ?? []),
          deviations: new Set(Object.keys(profile.deviations ?? {})),
        }),
        redactor,
        couldNotTest: unreachable,
        provenance: provenance({
          version: iotcVersion(),
          tags: options.tags ?? '',
          paths: options.paths ?? [],
        }),
      });
      writeConformanceFiles(report, reportsDir, redactor);
      return {
        exitCode: EXIT.couldNotTest,
        reportsDir,
        report,
        redactor,
        couldNotTest: unreachable,
      };
    }

    const { default: cucumberProfile } = require(join(PROJECT_ROOT, 'cucumber.js')) as {
      default: Record<string, unknown>;
    };
    const reportFiles = { html: 'cucumber.html', json: 'cucumber.json' };
    holdFormatterWrites();
    const { runConfiguration } = await loadConfiguration(
      {
        file: false,
        provided: {
          ...cucumberProfile,
          requireModule: [], // set below once the number of workers is known
          require: stepDefinitions(cucumberProfile),
          paths: options.paths?.length
            ? options.paths.map((path) => resolve(path))
            : (cucumberProfile.paths as string[]),
          tags: options.tags ?? '',
          // the progress lines are the caller's (onMessage); cucumber's summary closes the run with
          // its failures
          format: [
            options.progress ?? 'summary',
            ...Object.entries(reportFiles).map(
              ([format, file]) => `${format}:${join(reportsDir, file)}`,
            ),
          ],
        },
      },
      { cwd: PROJECT_ROOT },
    );

    // A malformed or empty selection stops here: nothing is started, and junit.xml says the run
    // tested nothing
    let planned: number;
    try {
      planned = await checkSelection(runConfiguration.sources, PROJECT_ROOT);
    } catch (error) {
      if (!(error instanceof SelectionError)) throw error;
      writeFileSync(join(reportsDir, 'junit.xml'), selectionErrorJunit(error.message));
      return { exitCode: EMPTY_SELECTION_EXIT, reportsDir, selectionError: error.message };
    }

    // what other processes use of the cores now: an embedded run's workers are chosen by it
    const others = profile.embedded ? othersBusyCores() : undefined;
    // scenarios at once in each worker (staggered-workers.ts): the embedded run's are bound by waits
    const slots = scenariosPerWorker(profile.embedded === true);
    const workers = workerCount(options.parallel, planned, {
      slots,
      embedded: profile.embedded === true,
      roundTripMs: checked.roundTripMs,
      othersBusyCores: others?.cores,
    });
    runConfiguration.runtime.parallel = workers > 1 ? workers : 0;
    if (typeof options.parallel !== 'number')
      events.info(
        `iotc run: ${workers} worker${workers === 1 ? '' : 's'}${workers > 1 && slots > 1 ? ` of ${slots} scenarios at once` : ''}${UNDER_TEST_RUNNER ? ` (at most ${TEST_RUNNER_WORKERS} under the project's test runner)` : others ? ` (${others.how})` : checked.roundTripMs === undefined ? '' : ` (the admin API's round trip ${Math.round(checked.roundTripMs)} ms)`}`,
      );
    // workers take scenarios in feature order: the slow features first, so that none starts when
    // the others are done; where scenarios share a platform (a remote target's workers, or a
    // worker's several scenarios at once) those that run alone or set the token lifetimes before
    // them (exclusive.ts): left to the end, those that run alone waited for a worker whose every
    // scenario had ended, and ended the run one at a time
    if (workers > 1 && !options.paths?.length) {
      const features = featureFiles(PROJECT_ROOT);
      const weights = loadFeatureWeights(PROJECT_ROOT);
      runConfiguration.sources.paths =
        profile.embedded && slots === 1
          ? slowestFirst(features, weights)
          : remoteOrder(features, weights, (feature) =>
              featureRank(feature, readFileSync(join(PROJECT_ROOT, feature), 'utf8')),
            );
    }
    // this process already runs TypeScript (lib/ts-register.js); worker processes of a parallel run
    // need it loaded. Compiled (an installed package), the steps are JavaScript in dist/ and need
    // no hook.
    runConfiguration.support.requireModules =
      !COMPILED && workers > 1 ? (cucumberProfile.requireModule as string[]) : [];
    // the workers find every source transpiled (lib/ts-register.js): none loads TypeScript for an
    // edited file
    if (!COMPILED && workers > 1)
      (
        require(join(PACKAGE_ROOT, 'lib', 'ts-register.js')) as { cacheMissing(): number }
      ).cacheMissing();

    // Loaded once here, the support code serves the inventory's dry run and the run (a second load
    // in this process would register nothing); parallel workers load their own from its
    // coordinates, which name the hook for them. A run restricted to some paths takes the inventory
    // from all of them, to see what it left out. the steps' module code reads the target too
    // (steps/hooks.ts: a remote target's scenarios that run alone)
    process.env.IOTC_TARGET = options.target;
    const support = await loadSupport(runConfiguration, { cwd: PROJECT_ROOT });
    const inventory: PlannedScenario[] | undefined = options.paths?.length
      ? await dryRunInventory(
          runConfiguration,
          cucumberProfile.paths as string[],
          support,
          PROJECT_ROOT,
        )
      : undefined;

    const envelopes: messages.Envelope[] = [];
    const startedAt = new Date();
    const requirementsOf = (scenarios: ReturnType<typeof scenarioResults>) => {
      const capabilities = new Set<string>(profile.capabilities ?? []);
      const deviations = new Set(Object.keys(profile.deviations ?? {}));
      const catalogue = loadCatalogue();
      // a PASS that rests on a default the target's configuration never left to it is NOT TESTED
      // (effective-rest.ts)
      return withUnexercisedDefaults(
        requirementVerdicts(catalogue, scenarios, {
          capabilities,
          deviations,
          inventory: inventory ?? scenarioInventory(envelopes),
        }),
        capabilities.has('rest-connector')
          ? defaultsNotExercised(
              catalogue,
              effectiveRestConfig(profile),
              deviations,
              routedDestinations(profile),
            )
          : new Map(),
      );
    };
    const reportOf = (finishedAt: Date, interrupted?: string): ConformanceReport => {
      const scenarios = scenarioResults(envelopes);
      return buildConformanceReport({
        version: iotcVersion(),
        target: targetFacts(profile),
        startedAt,
        finishedAt,
        tagExpression: options.tags ?? '',
        scenarios,
        requirements: requirementsOf(scenarios),
        redactor,
        harness: harnessFacts(envelopes),
        provenance: provenance({
          version: iotcVersion(),
          tags: options.tags ?? '',
          paths: options.paths ?? [],
        }),
        twin:
          twinSeed === undefined
            ? undefined
            : { asynchronous: true, seed: twinSeed, workers: workers > 1 ? workers : 1 },
        interrupted,
      });
    };
    // an interruption: what ran so far, marked interrupted (its verdict INCOMPLETE at best)
    this.partialReport = (reason) => {
      const report = reportOf(new Date(), reason);
      writeConformanceFiles(report, reportsDir, redactor);
      events.warn(
        `iotc run: ${reason}; the report of what ran (${Object.values(report.run.scenarios).reduce((a, b) => a + b, 0)} scenarios, verdict ${report.verdict}): ${reportsDir}/conformance.json`,
      );
    };
    // a marker an earlier interrupted run left behind would stop this one's workers at once
    rmSync(this.stopMarker(), { force: true });
    // the workers start as many at a time as there are cores (staggered-workers.ts)
    staggerWorkers(undefined, slots);
    // each feature's document sent to a worker once, the workers' messages taken in batches
    compactWorkerMessages();
    const cucumberRun = runCucumber(
      { ...runConfiguration, support },
      {
        cwd: PROJECT_ROOT,
        // cucumber forks the workers with this environment (worker-environment.ts says what it
        // adds), and a folder where they share their measured delays (steps/support/timing.ts
        // DelayRecord)
        env:
          workers > 1
            ? {
                ...(await workerEnvironment(profile.embedded === true)),
                [SHARED_DELAYS_VARIABLE]: sharedDelaysFolder(),
              }
            : process.env,
      },
      (envelope) => {
        envelopes.push(envelope);
        events.onMessage?.(envelope);
      },
    );
    this.cucumberEnded = cucumberRun.then(
      () => 'idle' as const,
      () => 'idle' as const,
    );
    const { success } = await cucumberRun;
    // interrupted: `interrupt` owns the end of the run (its cleanup, the partial report); this
    // never resolves then
    if (isStopRequested()) await new Promise<never>(() => {});
    const finishedAt = new Date();

    this.partialReport = undefined;
    for (const file of Object.values(reportFiles)) redactFile(join(reportsDir, file), redactor);
    const report = reportOf(finishedAt);
    const scenarios = scenarioResults(envelopes);
    writeConformanceFiles(report, reportsDir, redactor);

    const counts = {
      passed: scenarios.filter((scenario) => scenario.status === 'PASSED').length,
      failed: scenarios.filter(
        (scenario) => !['PASSED', 'SKIPPED', 'INCONCLUSIVE'].includes(scenario.status),
      ).length,
      inconclusive: scenarios.filter((scenario) => scenario.status === 'INCONCLUSIVE').length,
    };
    const ids = new Set(
      report.requirements.flatMap((requirement) => [
        `@${requirement.id}`,
        `@deviation-${requirement.id}`,
      ]),
    );
    const untracedFailures = scenarios.filter(
      (scenario) =>
        !['PASSED', 'SKIPPED', 'INCONCLUSIVE'].includes(scenario.status) &&
        !scenario.tags.some((tag) => ids.has(tag)),
    ).length;
    const code = exitCode({
      success,
      reportCode: reportExitCode(report, 'selection'),
      untracedFailures,
      failedRequirements: report.requirements.filter(
        (requirement) => requirement.verdict === 'FAIL',
      ).length,
      inconclusiveScenarios: counts.inconclusive,
    });
    return {
      exitCode: code,
      reportsDir,
      report,
      redactor,
      scenarios: counts,
      undecided:
        code === EXIT.incomplete
          ? undecidedRequirements(report.requirements, 'selection').map(
              (requirement) => requirement.id,
            )
          : undefined,
    };
  }
}

/**
 * A folder for this run's workers to share their measured delays in, removed when the process
 * exits (the end of a run, an interruption's exit alike).
 */
function iotcVersion(): string {
  return (require(join(PROJECT_ROOT, 'package.json')) as { version: string }).version;
}

function targetFacts(profile: TargetProfile): ConformanceReport['target'] {
  return {
    name: profile.name,
    httpUrl: profile.embedded ? 'embedded' : (profile.platform.http ?? ''),
    adminUrl: profile.embedded
      ? 'embedded'
      : (profile.platform.adminUrl ?? profile.platform.http ?? ''),
    capabilities: [...(profile.capabilities ?? [])],
  };
}

/**
 * The target check of a remote target (src/target/preflight.ts): undefined when it can be tested,
 * else why not.
 */
async function preflight(
  targetName: string,
): Promise<{ unreachable?: string; roundTripMs?: number }> {
  const target = await openTarget(targetName);
  try {
    return { roundTripMs: await checkTarget(target) };
  } catch (error) {
    if (error instanceof TargetUnreachableError) return { unreachable: error.message };
    throw error;
  } finally {
    await target.close();
  }
}

/**
 * cucumber's own report files of an interrupted run: its JSON formatter writes only at the end (a
 * Ctrl-C left a 0-byte cucumber.json), its HTML page ends with the run. An empty or unfinished one
 * is removed rather than left as if it were a report; conformance.json says what ran.
 */
function removeUnfinishedCucumberFiles(reportsDir: string): void {
  for (const [file, end] of [
    ['cucumber.json', /\]\s*$/],
    ['cucumber.html', /<\/html>\s*$/],
  ] as const) {
    const path = join(reportsDir, file);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    if (!end.test(text)) rmSync(path, { force: true });
  }
}

/**
 * cucumber's report files written at the run's end in one go: its HTML formatter wrote cucumber.html
 * as the messages came, one write a message (some 8,000 for the embedded run, about 0.3 CPU-s of
 * the CLI's file writes in a profile), and the page is read back and redacted after the run anyway
 * (redactFile). A corked stream keeps the writes until cucumber ends it, which sends them at once;
 * an interrupted run whose page was never ended leaves an empty file, removed as an unfinished one
 * was (removeUnfinishedCucumberFiles). Cucumber opens the files itself (its createStream, called
 * through its module's exports: replaced here, the version is pinned in package.json).
 */
function holdFormatterWrites(): void {
  const streams = require('@cucumber/cucumber/lib/formatter/create_stream') as {
    createStream: ((...args: unknown[]) => Promise<{ stream: Writable }>) & { held?: true };
  };
  if (streams.createStream.held) return;
  const original = streams.createStream;
  const held = async (...args: unknown[]) => {
    const created = await original(...args);
    created.stream.cork();
    return created;
  };
  streams.createStream = Object.assign(held, { held: true as const });
}

function redactFile(path: string, redactor: Redactor): void {
  if (!existsSync(path)) return;
  const text = readFileSync(path, 'utf8');
  const redacted = scrubLocalPaths(redactor.redact(text));
  if (redacted !== text) writeFileSync(path, redacted);
}

/**
 * Workers of an 'auto' run at most on a remote target, where the workers share its tenant and the
 * run is bound by round trips: seven on a near target, one more for every ROUND_TRIP_MS_PER_WORKER
 * of its round trip, up to eighteen (an embedded target's: EMBEDDED_WORKERS_BY_OTHERS).
 */
const AUTO_WORKERS = { remote: 7, remoteFar: 18 } as const;
/**
 * An embedded run's workers by what other processes use of the cores when it starts
 * (idle-cpu.ts othersBusyCores), in cores from `othersBelow`: the first row whose figure is above
 * theirs (issue 29 item 2, bench/README.md "Workers from the idle CPU").
 */
const EMBEDDED_WORKERS_BY_OTHERS = [
  { othersBelow: 0.5, workers: 5 },
  { othersBelow: 1.5, workers: 4 },
  { othersBelow: Infinity, workers: 3 },
] as const;
/**
 * The same with several scenarios at once in each worker (staggered-workers.ts scenariosPerWorker):
 * three workers of three took 12-13 s quiet where two of four took 13.5-14 s for 1-3 CPU-s less
 * and four of one 15-16 s (bench/README.md "Several scenarios at once in each embedded worker");
 * on a busy machine the two workers' CPU saved is worth more than the third's overlap.
 */
const EMBEDDED_WORKERS_OF_SEVERAL_BY_OTHERS = [
  { othersBelow: 0.5, workers: 3 },
  { othersBelow: 1.5, workers: 3 },
  { othersBelow: Infinity, workers: 2 },
] as const;
/**
 * An 'auto' run's workers at most under the project's own test runner (scripts/test.js, which sets
 * IOTC_TEST_CPU_DIR), embedded or remote. The runner keeps four to six test files going at once on
 * two cores, its `iotc run` children were half of the suite's CPU, and each worker costs about
 * 1.6 CPU-s before its first scenario: there the suite's wall follows its CPU, not one run's wall.
 * The remote-target test's 231 scenarios took 21 CPU-s in seven workers, 15 in three (49 and 53 s
 * of wall, side by side); the embedded deviation run 17 CPU-s in four workers, 15 in two, but 53
 * against 78 s of wall, one of the suite's longest files (bench/README.md "The own tests' CPU").
 * No test's verdict depends on the count, and three still run the scenarios in parallel workers.
 */
const TEST_RUNNER_WORKERS = 3;
const UNDER_TEST_RUNNER = process.env.IOTC_TEST_CPU_DIR !== undefined;
/**
 * The round trip (ms) that is worth one more worker on a remote target. With the workers started
 * a few at a time (staggered-workers.ts) a later one's start overlaps the first ones' scenarios:
 * the platform features through 50 ms each way (a round trip of 103 ms), quiet, side by side, took
 * 27.7, 28.1 s in thirteen workers (one per 15 ms), 25.7, 25.8 s in eighteen and 26.1, 25.2 s in
 * twenty-two, one of whose runs left a requirement INCONCLUSIVE for the harness's starvation
 * (docs/concepts/remote-network.md): one per 9 ms, up to eighteen.
 */
const ROUND_TRIP_MS_PER_WORKER = 9;
/**
 * The scenarios that make one worker worth its start (on an embedded target a reference of its
 * own): the platform features' 250-odd scenarios fill eighteen remote workers.
 */
const SCENARIOS_PER_AUTO_WORKER = { embedded: 25, remote: 14 } as const;

/**
 * The worker processes of a run. 'auto': one per 25 planned scenarios, on an embedded target at
 * most five, four or three by what other processes use of the cores as the run starts, three or
 * two when each worker runs several scenarios at once (embeddedWorkers), at most three under the project's test runner (TEST_RUNNER_WORKERS), and one
 * with IOTC_RUN_ID, which names a single run. On an embedded target
 * (each worker with a reference of its own) the whole suite, mostly waiting on tokens, claims and
 * windows, went from 47 s in one process to 20 s in four on two cores. Each worker costs about
 * 1.6 s of CPU before its first scenario (loading cucumber, the steps, the reference and some 850
 * modules: one feature of four scenarios took 2.9 s of CPU in one process, 6.1 s in two workers and
 * 9.3 s in four), and the suite had become bound by the CPU of the two cores (about 34 s of CPU,
 * 20 s of wall with seven workers): seven workers spent 11 s of CPU on starting, four spend 6 s,
 * and four still overlap the suite's waits (issue 29 item 2, bench/README.md). With the waits cut since, a quiet
 * run keeps only about 1.2 of two cores busy in four workers: on an idle machine five took 1 s
 * less wall (16.8 against 17.7 s, medians) for about 2-4 CPU-s more, six 0.3 s less again for
 * 1.4 s more; on a busy one three took about 3 CPU-s less than four in no more wall
 * (bench/README.md "Workers from the idle CPU").
 *
 * On a remote target the workers share one tenant (src/engine/exclusive.ts keeps apart the
 * scenarios that would disturb each other) and the run is bound by the network's round trips, not
 * by the CPU: one per 20 planned scenarios, seven at most on a near target and more the farther it
 * is (`roundTripMs`, the admin API's round trip the preflight measured). The platform features
 * through a proxy adding 50 ms each way (a round trip of 103 ms) took 401 s in one worker against
 * 49 s on loopback, 56.7 s in seven workers and 46.5 s in twelve, where on loopback twelve were
 * slower than seven (25.9 against 23.4 s: the starts' CPU).
 */
function workerCount(
  parallel: number | 'auto' | undefined,
  planned: number,
  target: { slots: number; embedded: boolean; roundTripMs?: number; othersBusyCores?: number },
): number {
  if (typeof parallel === 'number') return parallel;
  if (process.env.IOTC_RUN_ID !== undefined) return 1;
  if (UNDER_TEST_RUNNER)
    return Math.max(
      1,
      Math.min(
        TEST_RUNNER_WORKERS,
        Math.ceil(planned / SCENARIOS_PER_AUTO_WORKER[target.embedded ? 'embedded' : 'remote']),
      ),
    );
  if (target.embedded)
    return Math.max(
      1,
      Math.min(
        embeddedWorkers(target.othersBusyCores, target.slots),
        Math.ceil(planned / SCENARIOS_PER_AUTO_WORKER.embedded),
      ),
    );
  const most = Math.min(
    AUTO_WORKERS.remoteFar,
    AUTO_WORKERS.remote + Math.floor((target.roundTripMs ?? 0) / ROUND_TRIP_MS_PER_WORKER),
  );
  return Math.max(1, Math.min(most, Math.ceil(planned / SCENARIOS_PER_AUTO_WORKER.remote)));
}

/**
 * The most workers of an 'auto' embedded run, by the cores other processes use as it starts
 * (EMBEDDED_WORKERS_BY_OTHERS, or EMBEDDED_WORKERS_OF_SEVERAL_BY_OTHERS when each runs several
 * scenarios at once): the middle row when that is unknown.
 */
function embeddedWorkers(othersBusyCores: number | undefined, slots: number): number {
  const table = slots > 1 ? EMBEDDED_WORKERS_OF_SEVERAL_BY_OTHERS : EMBEDDED_WORKERS_BY_OTHERS;
  if (othersBusyCores === undefined) return table[1].workers;
  return table.find((row) => othersBusyCores < row.othersBelow)!.workers;
}

/**
 * Where the step definitions are: the TypeScript sources of a checkout (lib/ts-register.js), or the
 * JavaScript in dist/ when this code runs compiled (an installed package, IOTC_COMPILED=1), where
 * no TypeScript is loaded. `iotc run` and the kill matrix (src/faults/cucumber-session.ts) load the
 * same ones.
 */
export function stepDefinitions(cucumberProfile: Record<string, unknown>): string[] {
  return COMPILED
    ? [join(PACKAGE_ROOT, 'dist', 'steps', '**', '*.js')]
    : (cucumberProfile.require as string[]);
}
