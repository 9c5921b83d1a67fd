/** `iotc faults`: the kill matrix (src/faults/matrix.ts), its reports and its exit code. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MatrixSelectionError, runFaultMatrix } from '../faults/matrix';
import { runFaultMatrixInWorkers } from '../faults/workers';
import { matrixExitCode, matrixHtml, matrixSummary } from '../faults/matrix-report';

interface FaultsCommandOptions {
  reports: string;
  faults?: string[];
  requirements?: string[];
  allowUncovered: boolean;
  /** Worker processes sharing the faults; 1 = all in this process. */
  workers: number;
}

export async function faultsCommand(options: FaultsCommandOptions): Promise<number> {
  let result: Awaited<ReturnType<typeof runFaultMatrix>>;
  try {
    const matrixOptions = {
      faults: options.faults,
      requirements: options.requirements,
      log: (line: string) => console.log(line),
    };
    result =
      options.workers > 1
        ? await runFaultMatrixInWorkers({ ...matrixOptions, workers: options.workers })
        : await runFaultMatrix(matrixOptions);
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
