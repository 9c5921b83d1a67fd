/**
 * `iotc run`: the conformance suite against a target, with reports and a verdict per requirement.
 * Cucumber runs in this process through its API; the steps open the target named by IOTC_TARGET.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as messages from '@cucumber/messages';
import { loadConfiguration, runCucumber } from '@cucumber/cucumber/api';
import { loadProfile } from '../target';
import { requestStop, whenNoScenarioRuns } from './interruption';
import { Redactor } from '../report/redact';
import { scenarioResults, requirementVerdicts } from '../report/verdicts';
import {
  buildConformanceReport,
  formatSummary,
  loadCatalogue,
  type ConformanceReport,
} from '../report/conformance';
import { conformanceHtml } from '../report/html';
import { cleanupTarget } from './cleanup';
import { junitXml } from '../report/junit';

export const PROJECT_ROOT = resolve(__dirname, '..', '..');

/** How long Ctrl-C waits for the running scenario to finish before cleaning up anyway (its hooks' own limit). */
const STOP_WAIT_MS = 60_000;

export interface RunOptions {
  target: string;
  reportsDir: string;
  tags?: string;
  /** Feature files or folders; all features when empty. */
  paths?: string[];
  /** Cucumber's console formatter. */
  progress?: string;
  /** Worker processes running scenarios at once (cucumber's parallel); 1 = in this process. */
  parallel?: number;
}

/** Runs the suite and writes reports; resolves to the process exit code (0 only when nothing failed). */
export async function runConformance(options: RunOptions): Promise<number> {
  // Ctrl-C or a terminated CI job: no new scenario, the running one finishes (with its own cleanup), then delete
  // what the run created (its journal says what), then stop
  const interrupted = async (signal: NodeJS.Signals) => {
    requestStop();
    console.error(`\niotc run: ${signal}: stopping; the running scenario finishes first`);
    const waited = await whenNoScenarioRuns(STOP_WAIT_MS);
    if (waited === 'timed out')
      console.error(
        `iotc run: a scenario still runs after ${STOP_WAIT_MS / 1000} s; cleaning up anyway`,
      );
    console.error('iotc run: cleaning up what this run created');
    cleanupTarget(options.target, (line) => console.error(line))
      .catch((error: unknown) =>
        console.error(
          `iotc run: cleanup failed: ${(error as Error).message}; run iotc cleanup --target ${options.target}`,
        ),
      )
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', (signal) => void interrupted(signal));
  process.once('SIGTERM', (signal) => void interrupted(signal));
  const reportsDir = resolve(options.reportsDir);
  mkdirSync(reportsDir, { recursive: true });
  const profile = loadProfile(options.target); // fails fast on a bad profile, before cucumber starts
  const redactor = new Redactor();
  // An embedded target's users are the published demo users ("customer" / "customer"), not secrets: blanking them
  // would blank the user names in the evidence. A real target's passwords are blanked whatever their length, and
  // only where they stand whole (redact.ts). Password fields are blanked by name anyway.
  for (const credentials of profile.embedded
    ? []
    : [profile.platform.tenantAdmin, profile.platform.customerUser, profile.platform.sysAdmin]) {
    if (credentials) redactor.addSecret(credentials.password);
  }

  const { default: cucumberProfile } = require(join(PROJECT_ROOT, 'cucumber.js')) as {
    default: Record<string, unknown>;
  };
  const reportFiles = { html: 'cucumber.html', json: 'cucumber.json' };
  const { runConfiguration } = await loadConfiguration(
    {
      file: false,
      provided: {
        ...cucumberProfile,
        // this process already runs TypeScript through ts-node; worker processes of a parallel run need it loaded
        requireModule:
          (options.parallel ?? 1) > 1 ? (cucumberProfile.requireModule as string[]) : [],
        parallel: (options.parallel ?? 1) > 1 ? options.parallel : 0,
        paths: options.paths?.length
          ? options.paths.map((path) => resolve(path))
          : (cucumberProfile.paths as string[]),
        tags: options.tags ?? '',
        format: [
          options.progress ?? 'progress',
          ...Object.entries(reportFiles).map(
            ([format, file]) => `${format}:${join(reportsDir, file)}`,
          ),
        ],
      },
    },
    { cwd: PROJECT_ROOT },
  );

  const envelopes: messages.Envelope[] = [];
  const startedAt = new Date();
  process.env.IOTC_TARGET = options.target;
  const { success } = await runCucumber(runConfiguration, { cwd: PROJECT_ROOT }, (envelope) =>
    envelopes.push(envelope),
  );
  process.off('SIGINT', interrupted);
  process.off('SIGTERM', interrupted);
  const finishedAt = new Date();

  for (const file of Object.values(reportFiles)) redactFile(join(reportsDir, file), redactor);
  const scenarios = scenarioResults(envelopes);
  const capabilities = new Set<string>(profile.capabilities ?? []);
  const deviations = new Set(Object.keys(profile.deviations ?? {}));
  const requirements = requirementVerdicts(loadCatalogue(), scenarios, {
    capabilities,
    deviations,
  });
  const report = buildConformanceReport({
    version: (require(join(PROJECT_ROOT, 'package.json')) as { version: string }).version,
    target: {
      name: profile.name,
      httpUrl: profile.embedded ? 'embedded' : (profile.platform.http ?? ''),
      adminUrl: profile.embedded
        ? 'embedded'
        : (profile.platform.adminUrl ?? profile.platform.http ?? ''),
      capabilities: [...capabilities],
    },
    startedAt,
    finishedAt,
    tagExpression: options.tags ?? '',
    scenarios,
    requirements,
    redactor,
  });
  // The page and junit are made from the redacted report, so their markup is built around redacted text (redacting
  // the finished HTML would put a raw <redacted> tag into it); the final redact of each file is the safety net.
  const json = redactor.redact(JSON.stringify(report, null, 2));
  const redactedReport = JSON.parse(json) as ConformanceReport;
  writeFileSync(join(reportsDir, 'conformance.json'), `${json}\n`);
  writeFileSync(
    join(reportsDir, 'conformance.html'),
    redactor.redact(conformanceHtml(redactedReport)),
  );
  writeFileSync(join(reportsDir, 'junit.xml'), redactor.redact(junitXml(redactedReport)));

  const failedScenarios = scenarios.filter(
    (scenario) => scenario.status !== 'PASSED' && scenario.status !== 'SKIPPED',
  ).length;
  const passedScenarios = scenarios.filter((scenario) => scenario.status === 'PASSED').length;
  const failedRequirements = requirements.filter(
    (requirement) => requirement.verdict === 'FAIL',
  ).length;
  console.log('');
  console.log(redactor.redact(formatSummary(report)));
  console.log(
    `\nReports: ${reportsDir}/{conformance.json,conformance.html,cucumber.html,cucumber.json,junit.xml}`,
  );
  if (report.untraced.length)
    console.log(`Scenarios without a catalogued requirement id: ${report.untraced.length}`);
  console.log(`scenarios: ${passedScenarios} passed, ${failedScenarios} failed`);
  return success && failedRequirements === 0 && failedScenarios === 0 ? 0 : 1;
}

function redactFile(path: string, redactor: Redactor): void {
  if (!existsSync(path)) return;
  const text = readFileSync(path, 'utf8');
  const redacted = redactor.redact(text);
  if (redacted !== text) writeFileSync(path, redacted);
}
