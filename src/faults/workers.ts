/**
 * The kill matrix split over worker processes: the selected faults are dealt to `workers` child
 * processes of `iotc faults --faults <share>`, each with its own baseline, cucumber session and
 * embedded references; their faults.json are merged. All faults of one requirement go to one worker
 * (dealByRequirement), so each worker's baseline runs only its own requirements' scenarios: dealt
 * round-robin, every worker's baseline ran nearly every requirement's, the same baseline once per
 * worker. A fault run mostly waits (report costs, token lifetimes, eventually windows), so two
 * workers finish sooner even on two cores (measured: bench/README.md).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { faultRequirement } from '../../faults';
import { PROJECT_ROOT } from '../engine/run';
import { summarize, type MatrixOptions, type MatrixResult } from './matrix';
import { selectFaults, uncoveredRequirements } from './selection';

export async function runFaultMatrixInWorkers(
  options: MatrixOptions & { workers: number },
): Promise<MatrixResult> {
  const started = Date.now();
  const faults = selectFaults(options);
  const shares = dealByRequirement(
    faults.map((fault) => fault.id),
    options.workers,
  );
  const dir = mkdtempSync(join(tmpdir(), 'iotc-faults-'));
  try {
    const parts = await Promise.all(
      shares.map(async (share, worker) => {
        const reports = join(dir, `worker-${worker + 1}`);
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
            options.log?.(`[worker ${worker + 1}] ${line}`);
        });
        await once(child, 'exit');
        return JSON.parse(readFileSync(join(reports, 'faults.json'), 'utf8')) as MatrixResult;
      }),
    );
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
 * requirements with the most faults first, each to the share with the fewest faults so far (a
 * fault's run, not the baseline, is most of a worker's time). Shares keep the catalogue's order
 * inside; none is empty.
 */
export function dealByRequirement(ids: readonly string[], workers: number): string[][] {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const requirement = faultRequirement(id);
    groups.set(requirement, [...(groups.get(requirement) ?? []), id]);
  }
  const shares: string[][] = Array.from(
    { length: Math.max(1, Math.min(workers, groups.size)) },
    () => [],
  );
  for (const group of [...groups.values()].sort((a, b) => b.length - a.length)) {
    const smallest = shares.reduce((best, share) => (share.length < best.length ? share : best));
    smallest.push(...group);
  }
  const order = new Map(ids.map((id, index) => [id, index]));
  return shares
    .filter((share) => share.length > 0)
    .map((share) => share.sort((a, b) => order.get(a)! - order.get(b)!));
}
