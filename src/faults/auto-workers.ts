/**
 * How many workers `iotc faults --workers auto` takes (src/cli/faults.ts): four when at least half
 * of the machine's CPU time is idle now, two when it is not. A fault's run mostly waits (one to four
 * seconds of wall for half a CPU-second), so four overlap well on an idle machine (the matrix 2,033
 * -> 1,511 s beside other work); on a busy one they starve each other's event loops until timed
 * verdicts turn INCONCLUSIVE and faults go unjudged.
 *
 * "Now" is a sample of the CPUs' own counters (os.cpus()) over a second, not the 1-minute load
 * average: in `npm test` the matrix starts right after the own tests and the conformance run, whose
 * minute always left the load average above the cores, so the rule chose two workers on a machine
 * that had just gone quiet.
 */
import { availableParallelism } from 'node:os';
import { cpuSample, othersBusyCores } from '../engine/idle-cpu';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The share (0 to 1) of the cores other processes left idle over `sampleMs` (the engine's one
 * measure of it, src/engine/idle-cpu.ts; under 200 ms it is the load average's).
 */
export async function idleShare(sampleMs = 1000): Promise<number> {
  const since = cpuSample();
  await delay(sampleMs);
  return Math.max(0, 1 - othersBusyCores(since).cores / availableParallelism());
}

/** Four workers when at least half of the CPU time was idle over the sample, else two. */
export function workersFor(idle: number, cores: number): { workers: number; why: string } {
  const workers = idle >= 0.5 ? 4 : 2;
  return {
    workers,
    why: `${Math.round(idle * 100)} % of ${cores} cores idle over the last second`,
  };
}

export async function autoWorkers(): Promise<{ workers: number; why: string }> {
  return workersFor(await idleShare(), availableParallelism());
}
