/**
 * One run at a time against a remote target, per state directory (issue 26 item 4): a run starts by
 * undoing what an earlier, killed run left (its journal), which must never be the entities and
 * settings of a run still going. The lock is a file beside the journal naming the process that
 * holds it; a lock whose process is gone (kill -9) is stale and taken over. Released when the
 * process exits, whatever the path.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { IotcError } from '../../lib/errors';

/**
 * A remote target that another live `iotc run` (or `iotc cleanup`) holds: one run at a time, so
 * that a run never undoes another run's journal.
 */
export class TargetBusyError extends IotcError {
  readonly code = 'IOTC_TARGET_BUSY';
}

function lockPath(journalPath: string): string {
  return `${journalPath}.lock`;
}

/** The pid holding the lock of a journal, when that process is alive and is not this one. */
export function lockHolder(journalPath: string): number | undefined {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(lockPath(journalPath), 'utf8'), 10);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive, another user's
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/** Takes the lock of a journal for this process; TargetBusyError when a live process holds it. */
export function takeRunLock(journalPath: string, targetName: string): void {
  const holder = lockHolder(journalPath);
  if (holder !== undefined)
    throw new TargetBusyError(
      `another iotc run (pid ${holder}) is running against target "${targetName}" (${lockPath(journalPath)}); runs against one target do not overlap, since each starts by undoing what an earlier run left`,
    );
  mkdirSync(dirname(journalPath), { recursive: true });
  writeFileSync(lockPath(journalPath), String(process.pid));
  process.once('exit', () => releaseRunLock(journalPath));
}

function releaseRunLock(journalPath: string): void {
  try {
    if (readFileSync(lockPath(journalPath), 'utf8') === String(process.pid))
      rmSync(lockPath(journalPath), { force: true });
  } catch {
    // already gone
  }
}
