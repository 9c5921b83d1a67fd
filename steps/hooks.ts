/**
 * Run and scenario lifecycle: open the target (IOTC_TARGET: `embedded` or a profile path) and log in once; skip
 * scenarios whose capability the target lacks (reported NOT APPLICABLE); delete what each scenario created.
 */
import {
  After,
  AfterAll,
  Before,
  BeforeAll,
  Status,
  setDefaultTimeout,
  type ITestCaseHookParameter,
} from '@cucumber/cucumber';
import { loadProfile, openTarget } from '../src/target';
import { AdminApiError, AdminClient } from '../src/admin-client';
import { createDeviceDispatcher } from '../simulators/device/http-device';
import { newRunId, run, setRun } from './support/run';
import { scenarioFinished, scenarioStarting } from '../src/cli/interruption';
import {
  CleanupJournal,
  cleanupFromJournal,
  journalPath,
  restoreSettingsFromJournal,
  unrestoredSettings,
} from '../src/target/journal';
import type { IotcWorld } from './world';
import { recordExchange, recordInto } from './support/evidence';
import { EXCHANGES_MEDIA_TYPE } from '../src/report/exchanges';

/**
 * A step's hang guard, from the target's own timeouts: one request may take requestMs and a bounded wait
 * eventuallyMs, so a step that makes a slow request (ThingsBoard builds its 1 MB OpenAPI description on the first
 * call: more than 30 s on a loaded machine) ends by its own bound, not by cucumber's. Read at load time, since
 * cucumber fixes its default before BeforeAll; a profile that does not load fails in BeforeAll with its reason.
 */
function stepTimeoutMs(): number {
  try {
    const { timeouts } = loadProfile(process.env.IOTC_TARGET || 'embedded');
    return Math.max(30_000, (timeouts?.requestMs ?? 0) + (timeouts?.eventuallyMs ?? 0) + 10_000);
  } catch {
    return 30_000;
  }
}
setDefaultTimeout(stepTimeoutMs());

BeforeAll({ timeout: 60_000 }, async () => {
  const runId = newRunId();
  const target = await openTarget(undefined, runId);
  const sessionOptions = {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
    recorder: recordExchange, // into the running scenario's evidence
  };
  let admin: AdminClient | undefined;
  let customer: AdminClient | undefined;
  try {
    admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, sessionOptions);
    customer = target.customerUser
      ? await AdminClient.login(target.adminUrl, target.customerUser, sessionOptions)
      : undefined;
  } catch (error) {
    // nothing of the run may stay open, or the process would not end
    await Promise.allSettled([admin?.close(), target.close()]);
    throw error;
  }
  setRun({
    target,
    admin,
    customer,
    deviceDispatcher: createDeviceDispatcher({
      tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
    }),
    journal: new CleanupJournal(journalPath(target.name), runId),
    runId,
  });
});

AfterAll({ timeout: 60_000 }, async () => {
  let context: ReturnType<typeof run>;
  try {
    context = run();
  } catch {
    return; // BeforeAll failed: nothing was opened
  }
  setRun(undefined);
  // whatever the scenarios left (a device a provisioning request created, an interrupted cleanup), per the journal
  // only this run's own entities: other workers of a parallel run share the journal and may still use theirs
  const restoring = await restoreOwnSettings(context);
  const { failed } = await cleanupFromJournal(
    context.journal.path,
    context.admin,
    context.target.namePrefix,
    context.runId,
  );
  failed.push(...restoring.failed);
  if (failed.length)
    console.error(
      `iotc: cleanup left ${failed.length} entities; run iotc cleanup --target: ${failed.join('; ')}`,
    );
  await Promise.allSettled([
    context.admin.close(),
    context.customer?.close(),
    context.deviceDispatcher.close(),
  ]);
  await context.target.close();
});

Before(function (this: IotcWorld, { pickle }: ITestCaseHookParameter) {
  recordInto(this.exchanges);
  // Ctrl-C: no scenario starts once the run is stopping (it cleans up when the running one has finished)
  if (!scenarioStarting()) {
    this.log('skipped: the run is stopping');
    return 'skipped';
  }
  this.countedAsRunning = true;
  this.scenarioTags = pickle.tags.map((tag) => tag.name).join(' and ');
  // a complete command: the same target, the scenario's feature file and its tags (an outline's example included)
  const target = process.env.IOTC_TARGET || 'embedded';
  this.replayCommand = `npx iotc run --target ${shellWord(target)} --tags ${shellWord(this.scenarioTags)} ${shellWord(pickle.uri)}`;
  const missing = pickle.tags
    .map((tag) => tag.name)
    .filter((tag) => tag.startsWith('@capability-'))
    .map((tag) => tag.slice('@capability-'.length))
    .filter((capability) => !this.run.target.capabilities.has(capability as never));
  if (missing.length) {
    this.log(`skipped: the target profile lacks the capability ${missing.join(', ')}`);
    return 'skipped';
  }
  // A declared deviation is verified by its alternative scenarios (@deviation-<id>); the specification's own
  // scenarios of that requirement do not run, and alternatives run only where the deviation is declared.
  const tags = pickle.tags.map((tag) => tag.name);
  const deviations = this.run.target.deviations;
  const alternativeOf = tags
    .filter((tag) => tag.startsWith('@deviation-'))
    .map((tag) => tag.slice('@deviation-'.length));
  if (alternativeOf.length && !alternativeOf.some((id) => id in deviations)) {
    this.log(
      `skipped: verifies a deviation the target profile does not declare (${alternativeOf.join(', ')})`,
    );
    return 'skipped';
  }
  const deviating = tags.map((tag) => tag.slice(1)).filter((id) => id in deviations);
  if (!alternativeOf.length && deviating.length) {
    this.log(
      `skipped: the target profile declares a deviation for ${deviating.join(', ')}; its alternative is verified instead`,
    );
    return 'skipped';
  }
  return undefined;
});

After({ timeout: 60_000 }, async function (this: IotcWorld, { result }: ITestCaseHookParameter) {
  // Evidence, passed or failed: the scenario's last exchanges (redacted as recorded); cleanup is not evidence.
  recordInto(undefined);
  if (this.exchanges.total > 0 && result?.status !== Status.SKIPPED) {
    await this.attach(this.redact(JSON.stringify(this.exchanges)), {
      mediaType: EXCHANGES_MEDIA_TYPE,
      fileName: 'iotc-exchanges.json',
    });
  }
  const failures: string[] = [];
  for (const { what, undo } of this.cleanups.reverse()) {
    try {
      await undo();
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404) continue; // the scenario deleted it itself
      failures.push(`${what}: ${(error as Error).message}`);
    }
  }
  // Abandoned long-polls and RPC calls are awaited so they cannot leak into the next scenario.
  await this.pending.settled();
  await Promise.allSettled(this.ownDrivers.map((driver) => driver.close()));
  if (this.countedAsRunning) scenarioFinished();
  if (failures.length) throw new Error(`cleanup failed for ${failures.join('; ')}`);
});

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@./:=,+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** Settings this run changed and a scenario's own undo did not put back (it failed, or never ran). */
async function restoreOwnSettings(context: ReturnType<typeof run>): Promise<{ failed: string[] }> {
  const { target, journal, runId } = context;
  if (unrestoredSettings(journal.path, runId).length === 0) return { failed: [] };
  const sysadmin = target.sysAdmin
    ? await AdminClient.login(target.adminUrl, target.sysAdmin, {
        requestTimeoutMs: target.timeouts.requestMs,
        tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      }).catch(() => undefined)
    : undefined;
  try {
    return await restoreSettingsFromJournal(journal.path, sysadmin, runId);
  } finally {
    await sysadmin?.close();
  }
}
