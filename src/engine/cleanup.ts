/**
 * Deletes what an interrupted run left on a target, as its cleanup journal records it, and nothing
 * else: the `iotc cleanup` command, and what an interrupted run (src/engine/run.ts) does itself.
 */
import { AdminClient } from '../admin-client';
import { loadProfile, openTarget } from '../target';
import { existsSync } from 'node:fs';
import { lockHolder } from '../target/run-lock';
import {
  archive,
  cleanupFromJournal,
  journalPath,
  leftovers,
  restoreSettingsFromJournal,
  unrestoredSettings,
} from '../target/journal';

export async function cleanupTarget(
  targetName: string,
  log: (line: string) => void,
): Promise<number> {
  const profile = loadProfile(targetName);
  const path = journalPath(profile.name);
  const pending = leftovers(path);
  const settings = unrestoredSettings(path);
  const holder = lockHolder(path);
  if (holder !== undefined) {
    log(
      `iotc cleanup: a run (pid ${holder}) is still running against target "${profile.name}": its entities and settings are in use; stop it first (Ctrl-C cleans up itself)`,
    );
    return 1;
  }
  if (pending.length === 0 && settings.length === 0) {
    // a journal with nothing left in it is kept as the last complete one (<path>.done), not as a
    // pending one
    if (existsSync(path)) archive(path);
    log(`iotc cleanup: nothing to clean up for target "${profile.name}" (${path})`);
    return 0;
  }
  if (profile.embedded) {
    archive(path);
    log(
      `iotc cleanup: target "${profile.name}" is embedded: its entities and settings ended with the run that made them`,
    );
    return 0;
  }
  const target = await openTarget(targetName);
  const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
  });
  let sysadmin: AdminClient | undefined;
  try {
    // settings first: a lowered device limit would fail the next run even once every device is gone
    if (settings.length && target.sysAdmin)
      sysadmin = await AdminClient.login(target.adminUrl, target.sysAdmin, {
        requestTimeoutMs: target.timeouts.requestMs,
        tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      });
    const restoring = await restoreSettingsFromJournal(path, sysadmin);
    for (const label of restoring.restored) log(`restored ${label}`);
    for (const label of restoring.failed) log(`NOT restored ${label}`);
    const { deleted, failed } = await cleanupFromJournal(path, admin, target.namePrefix);
    for (const label of deleted) log(`deleted ${label}`);
    for (const label of failed) log(`NOT deleted ${label}`);
    log(
      `iotc cleanup: ${deleted.length} deleted, ${failed.length} failed, ${pending.length - deleted.length - failed.length} already gone; ${restoring.restored.length} settings restored, ${restoring.failed.length} not`,
    );
    return failed.length || restoring.failed.length ? 1 : 0;
  } finally {
    await sysadmin?.close();
    await admin.close();
    await target.close();
  }
}

/**
 * The start of a run against a remote target (issue 26 item 4): what an earlier run left (a kill
 * -9, a second Ctrl-C) is undone first, settings before entities, exactly as `iotc cleanup` would;
 * a lowered device limit left in place failed 49 scenarios of the next run falsely. Resolves to
 * undefined when the journal is clean (or was cleaned), else to why the run must not start: a
 * journal it cannot undo remains.
 */
export async function undoEarlierRun(
  targetName: string,
  log: (line: string) => void,
): Promise<string | undefined> {
  const profile = loadProfile(targetName);
  if (profile.embedded) return undefined; // every run starts its own reference
  const path = journalPath(profile.name);
  const pending = leftovers(path).length;
  const settings = unrestoredSettings(path).length;
  if (pending === 0 && settings === 0) return undefined;
  log(
    `iotc run: an earlier run against "${profile.name}" left ${settings} changed setting(s) and ${pending} entit${pending === 1 ? 'y' : 'ies'} (${path}); undoing them first`,
  );
  const lines: string[] = [];
  const code = await cleanupTarget(targetName, (line) => {
    lines.push(line);
    log(`  ${line}`);
  });
  if (code === 0) return undefined;
  return `an earlier run left changes on target "${profile.name}" that could not be undone (${lines.filter((line) => line.startsWith('NOT ') || line.includes('still running')).join('; ')}); the run would test a changed target. Fix the cause and run: iotc cleanup --target ${targetName}`;
}
