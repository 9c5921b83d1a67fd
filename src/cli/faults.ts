/** `iotc faults`: the kill matrix (src/faults/matrix.ts), its reports and its exit code. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MatrixSelectionError, runFaultMatrix } from '../faults/matrix';
import { matrixExitCode, matrixHtml, matrixSummary } from '../faults/matrix-report';

export interface FaultsCommandOptions {
  reports: string;
  faults?: string[];
  requirements?: string[];
  allowUncovered: boolean;
}

export async function faultsCommand(options: FaultsCommandOptions): Promise<number> {
  let result: Awaited<ReturnType<typeof runFaultMatrix>>;
  try {
    result = await runFaultMatrix({
      faults: options.faults,
      requirements: options.requirements,
      log: (line) => console.log(line),
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
