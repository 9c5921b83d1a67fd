/**
 * The kill matrix split over worker processes: the selected faults are dealt round-robin to `workers` child
 * processes of `iotc faults --faults <share>`, each with its own baseline, cucumber session and embedded references;
 * their faults.json are merged. A fault run mostly waits (report costs, token lifetimes, eventually windows), so two
 * workers finish sooner even on two cores (measured: bench/README.md).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../engine/run';
import { summarize, type MatrixOptions, type MatrixResult } from './matrix';
import { selectFaults, uncoveredRequirements } from './selection';

export async function runFaultMatrixInWorkers(
  options: MatrixOptions & { workers: number },
): Promise<MatrixResult> {
  const started = Date.now();
  const faults = selectFaults(options);
  const shares = Array.from({ length: Math.min(options.workers, faults.length) }, (_, worker) =>
    faults.filter((_fault, index) => index % options.workers === worker).map((fault) => fault.id),
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
