/**
 * `iotc cleanup`: deletes what an interrupted run left on a target, as its cleanup journal records it, and nothing
 * else. Also what `iotc run` does itself on Ctrl-C.
 */
import { AdminClient } from '../admin-client';
import { loadProfile, openTarget } from '../target';
import { cleanupFromJournal, journalPath, leftovers } from '../target/journal';

export async function cleanupTarget(
  targetName: string,
  log: (line: string) => void = console.log,
): Promise<number> {
  const profile = loadProfile(targetName);
  const path = journalPath(profile.name);
  const pending = leftovers(path);
  if (pending.length === 0) {
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
  try {
    const { deleted, failed } = await cleanupFromJournal(path, admin, target.namePrefix);
    for (const label of deleted) log(`deleted ${label}`);
    for (const label of failed) log(`NOT deleted ${label}`);
    log(
      `iotc cleanup: ${deleted.length} deleted, ${failed.length} failed, ${pending.length - deleted.length - failed.length} already gone`,
    );
    return failed.length ? 1 : 0;
  } finally {
    await admin.close();
    await target.close();
  }
}
