/**
 * What the profiles that create their own devices share (http-telemetry, mqtt-connect): a login to
 * the admin API, a cleanup journal of the run, devices created with the profile's prefix and the
 * run id in their names (journaled before they exist), and at the end, whatever happened, the
 * deletion of everything the journal holds, reported as the `left_behind` metric and the `cleanup`
 * detail.
 */
import { AdminClient } from '../src/admin-client';
import {
  CleanupJournal,
  cleanupFromJournal,
  journalPath,
  RunInterruptedError,
} from '../src/target/journal';
import { type LoadRunContext, type ProfileOutcome, profileTarget } from './contract';
import { mapLimited } from './gateway-fleet';

export interface CreatedDevice {
  name: string;
  id: string;
  token: string;
}

/** Runs `work` with an admin session and the run's journal, then deletes what the journal holds. */
export async function withCreatedFleet(
  context: LoadRunContext<unknown>,
  profileName: string,
  work: (admin: AdminClient, journal: CleanupJournal) => Promise<ProfileOutcome>,
): Promise<ProfileOutcome> {
  const { runId, log } = context;
  const target = profileTarget(context, `the ${profileName} profile`);
  const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: target.tls,
  });
  const journal = new CleanupJournal(journalPath(target.name), runId);
  let outcome: ProfileOutcome;
  let cleanup: { deleted: string[]; failed: string[] } = { deleted: [], failed: [] };
  try {
    outcome = await work(admin, journal);
  } finally {
    cleanup = await cleanupFromJournal(journal.path, admin, target.namePrefix, runId);
    await admin.close();
  }
  if (cleanup.failed.length)
    log(
      `cleanup left ${cleanup.failed.length} entities; run iotc cleanup --target ${target.name}: ${cleanup.failed.slice(0, 5).join('; ')}`,
    );
  return {
    ...outcome,
    metrics: { ...outcome.metrics, left_behind: cleanup.failed.length },
    details: {
      ...outcome.details,
      cleanup: { deleted: cleanup.deleted.length, failed: cleanup.failed },
    },
  };
}

/**
 * Creates the devices (8 at once), each journaled before it exists; Ctrl-C stops creating, straight
 * to cleanup.
 */
export async function createDevices(
  admin: AdminClient,
  journal: CleanupJournal,
  names: readonly string[],
  signal: AbortSignal,
): Promise<CreatedDevice[]> {
  return mapLimited(names, 8, async (name) => {
    if (signal.aborted) throw new RunInterruptedError('stopped while creating devices');
    journal.intend('device', name);
    const record = await admin.createDevice(name);
    journal.created('device', name, record.id);
    return { name, id: record.id, token: await admin.getDeviceCredentials(record.id) };
  });
}
