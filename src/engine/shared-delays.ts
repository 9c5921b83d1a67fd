/**
 * The folder through which a parallel run's workers share the delays they measure
 * (steps/support/timing.ts DelayRecord, named to them in SHARED_DELAYS_VARIABLE). The run removes
 * it when its process exits; a run killed with SIGKILL cannot, so each folder's name carries the
 * pid of the run that made it, and every new run first removes the folders of runs no longer
 * alive.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'iotc-delays-';

export function sharedDelaysFolder(parent = tmpdir()): string {
  sweepDeadRunsFolders(parent);
  const folder = mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** Removes the shared-delays folders in `parent` whose run's process is gone. */
export function sweepDeadRunsFolders(parent = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid)))
      rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
