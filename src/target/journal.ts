/**
 * The cleanup journal: every entity a run creates is written here BEFORE it is created, and marked
 * when it is deleted, so that an interrupted run (a crash, Ctrl-C, a killed CI job) can be cleaned
 * up later by `iotc cleanup`. One JSON line per event, appended synchronously (a line written is a
 * line kept, whatever happens next). Cleanup deletes only what a journal names and only names that
 * carry the profile's prefix: a run never touches entities it did not create. A target setting a
 * run changes (the tenant profile's device limit, tenant-limits capability) is journaled the same
 * way, with the value it had, before the change; cleanup puts that value back.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { AdminClient } from '../admin-client';
import { AdminApiError } from '../admin-client';
import { IotcError } from '../../lib/errors';
import { toPlain } from '../../lib/kv/values';

export type EntityKind = 'device' | 'deviceProfile' | 'otaPackage' | 'apiKey';

interface JournalEntry {
  event: 'intent' | 'created' | 'deleted';
  kind: EntityKind;
  /** The entity's name (device, profile), `title@version` (firmware) or description (API key). */
  name: string;
  /** The platform id once known. */
  id?: string;
  runId: string;
  at: number;
}

/**
 * A target setting a run may change, and what holds it (`id`): the default tenant profile's device
 * limit (tenant-limits capability), the system's JWT token lifetimes (jwt-settings capability; `id`
 * is `system`). Every step that changes a tenant or system setting journals it here BEFORE the
 * change (issue 26 item 4): a run killed in between leaves the value it had, which the end of the
 * run, `iotc cleanup` and the start of the next run put back. Only the values the run changes are
 * journaled (never the JWT signing key the settings also hold).
 */
export type SettingName = 'tenantProfile.maxDevices' | 'jwtSettings.lifetimes';

/** The JWT settings' lifetimes (seconds) a run changes. */
export interface TokenLifetimes {
  tokenExpirationTime: number;
  refreshTokenExpTime: number;
}

export type SettingChange =
  | {
      setting: 'tenantProfile.maxDevices';
      id: string /** what cleanup restores */;
      previous: number;
    }
  | { setting: 'jwtSettings.lifetimes'; id: string; previous: TokenLifetimes };

interface SettingEntry {
  event: 'setting-changing' | 'setting-restored';
  setting: SettingName;
  id: string;
  previous?: number | TokenLifetimes;
  runId: string;
  at: number;
}

export function journalPath(
  profileName: string,
  stateDir = process.env.IOTC_STATE_DIR ?? '.iotc',
): string {
  return resolve(join(stateDir, `cleanup-journal.${profileName.replace(/[^\w.-]+/g, '_')}.jsonl`));
}

/** Thrown when a run that was interrupted tries to create one more entity. */
export class RunInterruptedError extends IotcError {
  readonly code = 'IOTC_RUN_INTERRUPTED';
  constructor(reason: string) {
    super(`the run was interrupted (${reason}): no new entity is created`);
  }
}

/**
 * Interruption. Once a run is stopping, no journal of this process takes a new intent (so nothing
 * new can be created), and creations already under way are awaited before the cleanup reads the
 * journal: otherwise a create answered after the cleanup's deletes would leave its entity behind.
 */
let stopping: string | undefined;
const creating = new Set<Promise<unknown>>();

export function refuseNewEntities(reason: string): void {
  stopping = reason;
}

/**
 * The stop marker beside a journal: the run's main process writes it on Ctrl-C, so the workers of a
 * parallel run, which share the journal but not the main process's signal when it alone is
 * signalled (`kill -INT <pid>` from a CI system, not a terminal's Ctrl-C to the whole process
 * group), start no scenario and create nothing more.
 */
export function stopMarkerPath(journal: string): string {
  return `${journal}.stopping`;
}

/** Whether the run of this journal is stopping (its marker is there). */
export function stopMarked(journal: string): boolean {
  return existsSync(stopMarkerPath(journal));
}

/**
 * Registers a creation in flight (the request after its intent), so an interrupt can wait for it.
 */
export function creation<T>(created: Promise<T>): Promise<T> {
  creating.add(created);
  const forget = () => creating.delete(created);
  created.then(forget, forget);
  return created;
}

/**
 * Resolves once every creation in flight has been answered or has failed (each is bounded by its
 * request timeout).
 */
export async function creationsSettled(): Promise<void> {
  while (creating.size) await Promise.allSettled([...creating]);
}

export class CleanupJournal {
  constructor(
    readonly path: string,
    private readonly runId: string,
  ) {
    mkdirSync(dirname(path), { recursive: true });
  }

  private append(...entries: Array<Omit<JournalEntry, 'runId' | 'at'>>): void {
    const at = Date.now();
    appendFileSync(
      this.path,
      entries.map((entry) => `${JSON.stringify({ ...entry, runId: this.runId, at })}\n`).join(''),
    );
  }

  intend(kind: EntityKind, name: string): void {
    if (stopping) throw new RunInterruptedError(stopping);
    if (stopMarked(this.path)) throw new RunInterruptedError('the run is stopping');
    this.append({ event: 'intent', kind, name });
  }

  /** The intents of many names in one write (the sub-devices of a gateway fleet). */
  intendAll(kind: EntityKind, names: readonly string[]): void {
    if (stopping) throw new RunInterruptedError(stopping);
    if (stopMarked(this.path)) throw new RunInterruptedError('the run is stopping');
    if (names.length)
      this.append(...names.map((name) => ({ event: 'intent' as const, kind, name })));
  }

  created(kind: EntityKind, name: string, id: string): void {
    this.append({ event: 'created', kind, name, id });
  }

  deleted(kind: EntityKind, name: string, id?: string): void {
    this.append({ event: 'deleted', kind, name, id });
  }

  /** Before a setting is changed: its current value, for cleanup to restore. */
  changingSetting(change: SettingChange): void {
    this.appendSetting({ event: 'setting-changing', ...change });
  }

  /** After a changed setting was put back. */
  restoredSetting(setting: SettingName, id: string): void {
    this.appendSetting({ event: 'setting-restored', setting, id });
  }

  private appendSetting(entry: Omit<SettingEntry, 'runId' | 'at'>): void {
    appendFileSync(
      this.path,
      `${JSON.stringify({ ...entry, runId: this.runId, at: Date.now() })}\n`,
    );
  }
}

function journalLines(path: string): Array<JournalEntry | SettingEntry> {
  if (!existsSync(path)) return [];
  const out: Array<JournalEntry | SettingEntry> = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as JournalEntry | SettingEntry);
    } catch {
      // a line cut by a crash mid-write: the intent before it, if any, still counts
    }
  }
  return out;
}

function isSetting(entry: JournalEntry | SettingEntry): entry is SettingEntry {
  return entry.event === 'setting-changing' || entry.event === 'setting-restored';
}

/**
 * Settings a journal says were changed and not put back, each with the value it had before the
 * first of those changes (a run that lowered a limit twice restores the original). With `runId`,
 * only that run's changes.
 */
export function unrestoredSettings(path: string, runId?: string): SettingChange[] {
  const open = new Map<string, SettingChange & { runId: string }>();
  for (const entry of journalLines(path)) {
    if (!isSetting(entry)) continue;
    const key = `${entry.setting}:${entry.id}`;
    if (entry.event === 'setting-restored') open.delete(key);
    else if (!open.has(key) && entry.previous !== undefined)
      open.set(key, {
        ...({ setting: entry.setting, id: entry.id, previous: entry.previous } as SettingChange),
        runId: entry.runId,
      });
  }
  return [...open.values()]
    .filter((change) => runId === undefined || change.runId === runId)
    .map(({ runId: _run, ...change }) => change as SettingChange);
}

/** Puts one journaled setting back to its previous value (through the system administrator). */
async function restoreSetting(sysadmin: AdminClient, change: SettingChange): Promise<void> {
  switch (change.setting) {
    case 'tenantProfile.maxDevices': {
      const profile = await sysadmin.defaultTenantProfile();
      const profileId = (profile.id as { id?: string } | undefined)?.id;
      if (profileId !== change.id)
        throw new Error(`the default tenant profile is now ${profileId}`);
      const configuration = (profile.profileData as { configuration: { maxDevices?: number } })
        .configuration;
      configuration.maxDevices = change.previous;
      await sysadmin.saveTenantProfile(profile);
      return;
    }
    case 'jwtSettings.lifetimes': {
      // the settings as they are now (their signing key included, which the journal never holds),
      // with the lifetimes they had before the run
      const current = toPlain(
        (await sysadmin.session.call('GET', '/api/admin/jwtSettings')).json,
      ) as Record<string, unknown>;
      await sysadmin.session.call('POST', '/api/admin/jwtSettings', {
        ...current,
        ...change.previous,
      });
      return;
    }
  }
}

/** How a journaled setting change is named in messages. */
function settingLabel(change: SettingChange): string {
  const previous =
    typeof change.previous === 'number'
      ? String(change.previous)
      : `access ${change.previous.tokenExpirationTime} s, refresh ${change.previous.refreshTokenExpTime} s`;
  return `${change.setting} of ${change.id} back to ${previous}`;
}

/**
 * Puts back what unrestoredSettings names, through the system administrator (the only one who may
 * change a tenant profile); without one, every change is reported as failed. Returns what it
 * restored and what it could not.
 */
export async function restoreSettingsFromJournal(
  path: string,
  sysadmin: AdminClient | undefined,
  runId?: string,
): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  const journal = new CleanupJournal(path, 'cleanup');
  for (const change of unrestoredSettings(path, runId)) {
    const label = settingLabel(change);
    if (!sysadmin) {
      failed.push(`${label}: the target profile has no platform.sysAdmin to restore it with`);
      continue;
    }
    try {
      await restoreSetting(sysadmin, change);
      journal.restoredSetting(change.setting, change.id);
      restored.push(label);
    } catch (error) {
      failed.push(`${label}: ${(error as Error).message}`);
    }
  }
  return { restored, failed };
}

/**
 * Entities of a journal that may still exist: intended or created, and not deleted since. Newest
 * first. With `runId`, only those that run intended (runs in parallel share one journal; each
 * cleans up only its own).
 */
export function leftovers(
  path: string,
  runId?: string,
): Array<{ kind: EntityKind; name: string; id?: string }> {
  const state = new Map<
    string,
    { kind: EntityKind; name: string; id?: string; order: number; runId: string }
  >();
  journalLines(path).forEach((entry, order) => {
    if (isSetting(entry)) return;
    const key = `${entry.kind}:${entry.name}`;
    if (entry.event === 'deleted') state.delete(key);
    else
      state.set(key, {
        kind: entry.kind,
        name: entry.name,
        id: entry.id ?? state.get(key)?.id,
        order,
        runId: state.get(key)?.runId ?? entry.runId,
      });
  });
  return [...state.values()]
    .filter((entry) => runId === undefined || entry.runId === runId)
    .sort((a, b) => b.order - a.order)
    .map(({ kind, name, id }) => ({ kind, name, id }));
}

const DELETE_ORDER: EntityKind[] = ['apiKey', 'device', 'otaPackage', 'deviceProfile'];

/**
 * Deletes what a journal says may still exist, devices before the profiles and packages they use.
 * Refuses any name without the prefix. With `runId`, only what that run intended. Returns what it
 * deleted and what it could not; the journal is archived when nothing is left in it.
 */
export async function cleanupFromJournal(
  path: string,
  admin: AdminClient,
  namePrefix: string,
  runId?: string,
): Promise<{ deleted: string[]; failed: string[] }> {
  const deleted: string[] = [];
  const failed: string[] = [];
  const entries = leftovers(path, runId).sort(
    (a, b) => DELETE_ORDER.indexOf(a.kind) - DELETE_ORDER.indexOf(b.kind),
  );
  const journal = new CleanupJournal(path, 'cleanup');
  for (const entry of entries) {
    const label = `${entry.kind} ${entry.name}`;
    if (!entry.name.startsWith(namePrefix)) {
      failed.push(`${label}: refused, the name does not carry the prefix ${namePrefix}`);
      continue;
    }
    try {
      const gone = await deleteEntity(admin, entry);
      journal.deleted(entry.kind, entry.name, entry.id);
      if (gone) deleted.push(label);
    } catch (error) {
      failed.push(`${label}: ${(error as Error).message}`);
    }
  }
  // the last complete journal, kept for inspection; not while another run (in parallel) still has
  // entities in it
  if (
    failed.length === 0 &&
    existsSync(path) &&
    leftovers(path).length === 0 &&
    unrestoredSettings(path).length === 0
  )
    archive(path);
  return { deleted, failed };
}

/**
 * Renames the journal to `<path>.done`. The workers of a parallel run finish at about the same time
 * and each may find the journal empty: the one that renames it second finds it gone, which is the
 * same outcome.
 */
export function archive(path: string): void {
  try {
    renameSync(path, `${path}.done`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Deletes one entity; false when it was already gone. */
async function deleteEntity(
  admin: AdminClient,
  entry: { kind: EntityKind; name: string; id?: string },
): Promise<boolean> {
  try {
    switch (entry.kind) {
      case 'device': {
        const device = await admin.findDeviceByName(entry.name);
        if (!device) return false;
        await admin.deleteDevice(device.id);
        return true;
      }
      case 'deviceProfile': {
        // a profile a gateway connect created has no id in the journal: it is found by its
        // (prefixed) name
        const id = entry.id ?? (await admin.findDeviceProfileByName(entry.name))?.id;
        if (!id) return false;
        await admin.deleteDeviceProfile(id);
        return true;
      }
      case 'otaPackage':
      case 'apiKey': {
        if (!entry.id) return false; // never created: the run stopped between the intent and the answer
        const path = {
          deviceProfile: '/api/deviceProfile/',
          otaPackage: '/api/otaPackage/',
          apiKey: '/api/apiKey/',
        }[entry.kind];
        await admin.session.call('DELETE', path + entry.id);
        return true;
      }
    }
  } catch (error) {
    if (
      error instanceof AdminApiError &&
      (error.status === 404 || (error.status === 400 && /not found/i.test(error.serverMessage)))
    )
      return false;
    throw error;
  }
}
