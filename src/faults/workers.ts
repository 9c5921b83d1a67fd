/**
 * The kill matrix split over worker processes: the selected faults are dealt to `workers` child
 * processes of `iotc faults --faults <share>`, each with its own baseline, cucumber session and
 * embedded references; their faults.json are merged. All faults of one requirement go to one worker
 * (dealByRequirement), so each worker's baseline runs only its own requirements' scenarios: dealt
 * round-robin, every worker's baseline ran nearly every requirement's, the same baseline once per
 * worker. A fault run mostly waits (report costs, token lifetimes, eventually windows), so two
 * workers finish sooner even on two cores (measured: bench/README.md). The requirements are dealt
 * by each fault's time in the last matrix here (FAULT_TIMES), so the workers end together: dealt by
 * the number of faults, one worker's share took 445 s and the other's 382 s (faults of 10 s, an RPC
 * timeout waited out, beside faults of one). When the clients' certifications share the matrix
 * (kill-matrix.ts), their slots take as many further workers once they end (LaterWorkers), dealt
 * the shares that make them end with the first ones.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { faultRequirement } from '../../faults';
import { PROJECT_ROOT } from '../engine/run';
import { summarize, type MatrixOptions, type MatrixResult } from './matrix';
import { selectFaults, uncoveredRequirements } from './selection';

/**
 * Workers that start later, in slots another part of the matrix frees: `workers` of them once
 * `after` settles, which is expected `expectedMs` after the start (their shares are dealt as if they
 * started then).
 */
export interface LaterWorkers {
  workers: number;
  after: Promise<unknown>;
  expectedMs: number;
}

export async function runFaultMatrixInWorkers(
  options: MatrixOptions & { workers: number; later?: LaterWorkers },
): Promise<MatrixResult> {
  const started = Date.now();
  const faults = selectFaults(options);
  const later = options.later?.workers ?? 0;
  const shares = dealShares(
    faults.map((fault) => fault.id),
    [
      ...Array.from({ length: options.workers }, () => 0),
      ...Array.from({ length: later }, () => options.later!.expectedMs),
    ],
    lastFaultTimes(),
  );
  const dir = mkdtempSync(join(tmpdir(), 'iotc-faults-'));
  const runWorker = async (share: readonly string[], name: string) => {
    const reports = join(dir, `worker-${name}`);
    const child = spawn(
      process.execPath,
      [
        join(PROJECT_ROOT, 'bin', 'iotc.js'),
        'faults',
        '--faults',
        share.join(','),
        '--reports',
        reports,
        '--allow-uncovered',
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // each worker's own lines, marked, as they come; its summary is the parent's to print
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (/^(killed|SURVIVED|NOT JUDGED|baseline)/.test(line))
        options.log?.(`[worker ${name}] ${line}`);
    });
    await once(child, 'exit');
    return JSON.parse(readFileSync(join(reports, 'faults.json'), 'utf8')) as MatrixResult;
  };
  try {
    const parts = await Promise.all(
      shares.map(async (share, worker) => {
        if (share.length === 0) return undefined;
        if (worker >= options.workers) await options.later!.after.catch(() => {});
        return runWorker(share, String(worker + 1));
      }),
    ).then((all) => all.filter((part): part is MatrixResult => part !== undefined));
    // A survivor is judged again in a fresh worker: a worker's measured delays (timing.ts
    // measuredDelays) last its whole run, and one loaded moment there widened a claim window's
    // allowance for every later attempt (HTTP-CLAIM-03 and MQTT-DEV-CLAIM-01:duration-ignored
    // survived five attempts in one worker of a matrix and were killed at once alone). Its attempts
    // add up, so a fault killed only there is reported RACY.
    const survivors = parts
      .flatMap((part) => part.faults)
      .filter((fault) => fault.outcome === 'survived');
    if (survivors.length) {
      options.log?.(
        `judging ${survivors.length} survivor(s) again in a fresh worker: ${survivors.map((fault) => fault.id).join(', ')}`,
      );
      const again = await runWorker(
        survivors.map((fault) => fault.id),
        'again',
      );
      const fresh = new Map(again.faults.map((fault) => [fault.id, fault]));
      for (const part of parts)
        part.faults = part.faults.map((fault) => {
          const second = fault.outcome === 'survived' ? fresh.get(fault.id) : undefined;
          return second
            ? { ...second, attempts: (fault.attempts ?? 1) + (second.attempts ?? 1) }
            : fault;
        });
    }
    const results = parts.flatMap((part) => part.faults);
    const notPassing = parts.flatMap((part) => part.baseline.notPassing);
    const uncovered = uncoveredRequirements(options);
    return {
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      target: parts[0]?.target ?? 'embedded',
      selection: { faults: options.faults, requirements: options.requirements },
      baseline: {
        ok: parts.every((part) => part.baseline.ok),
        requirements: new Set(results.map((result) => result.requirement)).size,
        notPassing,
        durationMs: Math.max(0, ...parts.map((part) => part.baseline.durationMs)),
      },
      clients: [],
      faults: results,
      uncovered,
      summary: summarize(results, uncovered),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The fault ids split into at most `workers` shares, every requirement's faults in one share: the
 * requirements with the longest faults first, each to the share with the least time so far (a
 * fault's run, not the baseline, is most of a worker's time). A fault's time is `times`' (the last
 * matrix's, lastFaultTimes()); one it does not know counts as the median of those it knows, and
 * with none known every fault counts the same (dealt by their number). Shares keep the catalogue's
 * order inside; none is empty.
 */
export function dealByRequirement(
  ids: readonly string[],
  workers: number,
  times: ReadonlyMap<string, number> = new Map(),
): string[][] {
  const requirements = new Set(ids.map((id) => faultRequirement(id))).size;
  return dealShares(
    ids,
    Array.from({ length: Math.max(1, Math.min(workers, requirements)) }, () => 0),
    times,
  ).filter((share) => share.length > 0);
}

/**
 * dealByRequirement's dealing into one share per entry of `startsMs`, each share counted as
 * starting at its entry (a worker that starts later gets less), in the order of `startsMs`; a
 * share may be empty.
 */
export function dealShares(
  ids: readonly string[],
  startsMs: readonly number[],
  times: ReadonlyMap<string, number> = new Map(),
): string[][] {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const requirement = faultRequirement(id);
    groups.set(requirement, [...(groups.get(requirement) ?? []), id]);
  }
  const timeOf = faultTime(ids, times);
  const shares = startsMs.map((startMs) => ({ ids: [] as string[], time: startMs }));
  const weighed = [...groups.values()].map((group) => ({
    group,
    time: group.reduce((sum, id) => sum + timeOf(id), 0),
  }));
  for (const { group, time } of weighed.sort((a, b) => b.time - a.time)) {
    const least = shares.reduce((best, share) => (share.time < best.time ? share : best));
    least.ids.push(...group);
    least.time += time;
  }
  const order = new Map(ids.map((id, index) => [id, index]));
  return shares.map((share) => share.ids.sort((a, b) => order.get(a)! - order.get(b)!));
}

/**
 * A fault's expected time: `times`', or the median of those of `ids` it knows, or 1 (every fault
 * the same) when it knows none.
 */
export function faultTime(
  ids: readonly string[],
  times: ReadonlyMap<string, number>,
): (id: string) => number {
  const known = ids
    .map((id) => times.get(id))
    .filter((ms): ms is number => ms !== undefined)
    .sort((a, b) => a - b);
  const unknown = known.length ? known[Math.floor(known.length / 2)]! : 1;
  return (id) => times.get(id) ?? unknown;
}

/**
 * Each fault's time in the matrices run here (milliseconds by fault id), merged run after run: in a
 * checkout's node_modules/.cache (git ignores it), never in an installed package's folder.
 */
const FAULT_TIMES = join(PROJECT_ROOT, 'node_modules', '.cache', 'iotc-fault-times.json');

/** The faults' times of the last matrices here; empty on a first run or an installed package. */
export function lastFaultTimes(path = FAULT_TIMES): Map<string, number> {
  try {
    const values = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return new Map(
      Object.entries(values).filter((entry): entry is [string, number] => {
        const ms = entry[1];
        return typeof ms === 'number' && ms >= 0;
      }),
    );
  } catch {
    return new Map(); // no matrix here yet
  }
}

/**
 * Merges the judged faults' times into FAULT_TIMES (written aside and renamed over it: worktrees'
 * node_modules are often hard links of one another, and a write in place would change all of
 * theirs). A fault not judged (its requirement failed the baseline) took no time and says nothing.
 */
export function rememberFaultTimes(
  results: ReadonlyArray<{ id: string; durationMs: number; scenarios: number }>,
  path = FAULT_TIMES,
): void {
  if (!existsSync(join(path, '..', '..'))) return; // no node_modules: an installed package
  try {
    const values = Object.fromEntries(lastFaultTimes(path));
    for (const result of results)
      if (result.scenarios > 0) values[result.id] = Math.round(result.durationMs);
    mkdirSync(join(path, '..'), { recursive: true });
    const aside = `${path}.${process.pid}`;
    writeFileSync(aside, `${JSON.stringify(values, null, 1)}\n`);
    renameSync(aside, path);
  } catch {
    // a read-only tree: the next matrix deals by the faults' number
  }
}
