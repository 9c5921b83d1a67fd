/**
 * `iotc cleanup`: deletes what an interrupted run left on a target, as its cleanup journal records it, and nothing
 * else. Also what `iotc run` does itself on Ctrl-C.
 */
import { AdminClient } from '../admin-client';
import { loadProfile, openTarget } from '../target';
import {
  cleanupFromJournal,
  journalPath,
  leftovers,
  restoreSettingsFromJournal,
  unrestoredSettings,
} from '../target/journal';

export async function cleanupTarget(
  targetName: string,
  log: (line: string) => void = console.log,
): Promise<number> {
  const profile = loadProfile(targetName);
  const path = journalPath(profile.name);
  const pending = leftovers(path);
  const settings = unrestoredSettings(path);
  if (pending.length === 0 && settings.length === 0) {
    log(`iotc cleanup: nothing to clean up for target "${profile.name}" (${path})`);
    return 0;
  }
  if (profile.embedded) {
    log(
      `iotc cleanup: target "${profile.name}" is embedded: its entities ended with the run that created them`,
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
