/**
 * `iotc faults`: the kill matrix of the reference's and the clients' faults (src/faults/), its
 * reports and exit code.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { autoWorkers } from '../faults/auto-workers';
import { runKillMatrix } from '../faults/kill-matrix';
import type { MatrixResult } from '../faults/matrix';
import { MatrixSelectionError } from '../faults/selection';
import { matrixExitCode, matrixHtml, matrixSummary } from '../faults/matrix-report';

interface FaultsCommandOptions {
  reports: string;
  faults?: string[];
  requirements?: string[];
  allowUncovered: boolean;
  /**
   * Worker processes sharing the reference's faults, and client certifications at once; 1 = all in
   * this process, one at a time; 'auto' = autoWorkers() (src/faults/auto-workers.ts).
   */
  workers: number | 'auto';
}

export async function faultsCommand(options: FaultsCommandOptions): Promise<number> {
  let result: MatrixResult;
  let workers = options.workers;
  if (workers === 'auto') {
    const chosen = await autoWorkers();
    workers = chosen.workers;
    console.log(`iotc faults: ${workers} workers (auto: ${chosen.why})`);
  }
  try {
    result = await runKillMatrix({
      faults: options.faults,
      requirements: options.requirements,
      workers,
      log: (line: string) => console.log(line),
    });
  } catch (error) {
    if (!(error instanceof MatrixSelectionError)) throw error;
    console.error(`iotc faults: ${error.message}`);
    return 2;
  }
  const dir = resolve(options.reports);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'faults.json'), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, 'faults.html'), matrixHtml(result));
  console.log('');
  console.log(matrixSummary(result, options.allowUncovered));
  console.log(`\nReports: ${dir}/{faults.json,faults.html}`);
  return matrixExitCode(result, options.allowUncovered);
}
