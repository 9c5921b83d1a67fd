/**
 * `iotc run`: the conformance suite against a target, with reports and a verdict per requirement.
 * The run itself is the engine's (src/engine/run.ts); this command prints: the gaps the profile
 * will leave, the progress, the summary, and it turns Ctrl-C into the engine's interruption.
 */
import { loadCatalogue } from '../report/conformance';
import { printSummary } from '../report/write';
import type { Redactor } from '../report/redact';
import type { ConformanceReport } from '../report/conformance';
import { checkRunOptions, ConformanceRun, type RunOptions } from '../engine/run';
import { formatGaps, predictGaps } from './profile-check';
import { RunProgress } from './progress';

/**
 * Runs the suite and writes reports; resolves to the process exit code (0 only when nothing
 * failed).
 */
export async function runConformance(options: RunOptions): Promise<number> {
  const profile = checkRunOptions(options); // fails fast on a bad profile, before anything is printed
  // what this profile will leave undecided, and what would let it run: said before the run, not
  // only in the report
  if (!options.paths?.length && !options.tags) {
    const catalogue = loadCatalogue();
    const gaps = predictGaps(profile, catalogue);
    if (gaps.length)
      console.log(
        `${formatGaps(profile.name, gaps, catalogue.filter((requirement) => requirement.testable).length)}\n(iotc profile check ${options.target} lists them again)\n`,
      );
  }
  const progress = options.progress ? undefined : new RunProgress({ out: process.stdout });
  const run = new ConformanceRun(options, {
    info: (line) => console.log(line),
    warn: (line) => console.error(line),
    onMessage: progress ? (envelope) => progress.onMessage(envelope) : undefined,
  });
  // Ctrl-C or a terminated CI job: the engine stops between scenarios, cleans up and writes what
  // ran; a second signal exits at once, leaving the journal for `iotc cleanup` (issue 26 item 4)
  const stopNow = (signal: NodeJS.Signals) => {
    run.abandon(signal);
    process.exit(130);
  };
  const interrupted = (signal: NodeJS.Signals) => {
    process.once('SIGINT', stopNow);
    process.once('SIGTERM', stopNow);
    void run.interrupt(signal).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const outcome = await run.start();
    progress?.stop();
    if (outcome.selectionError !== undefined) {
      console.error(`iotc run: ${outcome.selectionError}`);
      return outcome.exitCode;
    }
    if (outcome.couldNotTest !== undefined) console.error(`iotc run: ${outcome.couldNotTest}`);
    if (outcome.report && outcome.redactor)
      printReport(outcome.report, outcome.reportsDir, outcome.redactor);
    if (outcome.scenarios) {
      const { passed, failed, inconclusive } = outcome.scenarios;
      console.log(
        `scenarios: ${passed} passed, ${failed} failed${inconclusive ? `, ${inconclusive} inconclusive` : ''}`,
      );
    }
    if (outcome.undecided) {
      const undecided = outcome.undecided;
      console.log(
        `INCOMPLETE: ${undecided.length} requirement${undecided.length === 1 ? '' : 's'} the run selected stayed NOT TESTED (${undecided.slice(0, 5).join(', ')}${undecided.length > 5 ? ', ...' : ''}): exit ${outcome.exitCode}`,
      );
    }
    return outcome.exitCode;
  } finally {
    progress?.stop();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

/** The summary on the console and where the report's files are (src/report/write.ts wrote them). */
function printReport(report: ConformanceReport, reportsDir: string, redactor: Redactor): void {
  console.log('');
  printSummary(report, redactor);
  console.log(
    `\nReports: ${reportsDir}/{conformance.json (+ .sha256),conformance.html,junit.xml,badge.svg,cucumber.html,cucumber.json}`,
  );
  if (report.untraced.length)
    console.log(`Scenarios without a catalogued requirement id: ${report.untraced.length}`);
}
