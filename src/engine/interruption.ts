/**
 * Ctrl-C during `iotc run` (issue 13 finding 8): first no new scenario starts, then the running one
 * finishes its own cleanup, and only then is the journal cleaned up; cleaning up while a scenario
 * still ran let it create a device after everything was deleted. Shared by the run command and the
 * scenario hooks of the same process (a parallel run's workers get the signal themselves and stop
 * at their next scenario).
 */
let stopRequested = false;
let running = 0;
const idleWaiters = new Set<() => void>();

export function requestStop(): void {
  stopRequested = true;
}

export function isStopRequested(): boolean {
  return stopRequested;
}

/**
 * A scenario starts; false (and nothing counted) when a stop was requested: the scenario must not
 * run.
 */
export function scenarioStarting(): boolean {
  if (stopRequested) return false;
  running += 1;
  return true;
}

/** A counted scenario has finished, its own cleanup included. */
export function scenarioFinished(): void {
  running = Math.max(0, running - 1);
  if (running === 0) for (const wake of [...idleWaiters]) wake();
}

/**
 * Resolves when no scenario runs, or after `limitMs` (a hung scenario must not keep the cleanup
 * from running).
 */
export function whenNoScenarioRuns(limitMs: number): Promise<'idle' | 'timed out'> {
  if (running === 0) return Promise.resolve('idle');
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      idleWaiters.delete(wake);
      resolve('idle');
    };
    const timer = setTimeout(() => {
      idleWaiters.delete(wake);
      resolve('timed out');
    }, limitMs);
    idleWaiters.add(wake);
  });
}

/** For tests: back to the state of a fresh process. */
export function resetInterruption(): void {
  stopRequested = false;
  running = 0;
  idleWaiters.clear();
}
