/**
 * How much of the machine's CPU other processes are using right now: a sample of the cores' times
 * (os.cpus) from when the engine is loaded to when a run chooses its workers, minus this process's
 * own CPU over the same span (it is loading cucumber and the steps meanwhile). The kill matrix's
 * `--workers auto` samples a second of it (src/faults/auto-workers.ts). The load average says the
 * same over the last minute; the sample says it for the last second or so, which is what
 * the run's workers will meet (a burst of others' work that has just ended still weighs on the
 * load average for a minute). Used by run.ts to choose an embedded run's workers.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

export interface CpuSample {
  /** performance.now() when taken. */
  at: number;
  /** The sum over all cores of their busy and idle times (ms, since boot). */
  busyMs: number;
  idleMs: number;
  /** This process's CPU (user + system, ms). */
  ownMs: number;
}

export function cpuSample(): CpuSample {
  let busyMs = 0;
  let idleMs = 0;
  for (const { times } of cpus()) {
    busyMs += times.user + times.nice + times.sys + times.irq;
    idleMs += times.idle;
  }
  const own = process.cpuUsage();
  return { at: performance.now(), busyMs, idleMs, ownMs: (own.user + own.system) / 1000 };
}

/** A sample taken when this module is loaded: the start of the span `othersBusyCores` measures. */
const LOADED = cpuSample();

/** The shortest span the cores' times say something over (they tick every 10 ms per core). */
const SHORTEST_SAMPLE_MS = 200;

/**
 * The cores' worth of CPU other processes used since `since` (default: when the engine was loaded):
 * the machine's busy time minus this process's own, as a share of the machine's total time, times
 * the cores this process may use (availableParallelism). Over a span shorter than 200 ms, or where
 * os.cpus() says nothing (some containers), the one-minute load average stands in for it, this
 * process's own share not taken out. `how` says which it was, for the user.
 */
export function othersBusyCores(since: CpuSample = LOADED): { cores: number; how: string } {
  const cores = availableParallelism();
  const now = cpuSample();
  const totalMs = now.busyMs + now.idleMs - (since.busyMs + since.idleMs);
  if (now.at - since.at >= SHORTEST_SAMPLE_MS && totalMs > 0) {
    const othersMs = Math.max(0, now.busyMs - since.busyMs - (now.ownMs - since.ownMs));
    const busy = Math.min(cores, (othersMs / totalMs) * cores);
    return {
      cores: busy,
      how: `others used ${busy.toFixed(1)} of ${cores} cores over ${Math.round(now.at - since.at)} ms`,
    };
  }
  const load = loadavg()[0] ?? 0;
  return { cores: Math.min(cores, load), how: `load average ${load.toFixed(1)} on ${cores} cores` };
}
