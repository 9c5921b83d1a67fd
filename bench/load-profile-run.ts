/**
 * e) A QoS 1 run of the load profile (`iotc load mqtt-gateway`) in its own process: nothing lost,
 * nothing duplicated.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadReport } from '../load/contract';
import { positiveEnv, runIotc } from './children';

export const LOAD_GATEWAYS = 10;
export const LOAD_DEVICES = 10;
export const LOAD_RATE = 100;
export const LOAD_DURATION_S = positiveEnv('BENCH_LOAD_DURATION_S', 3);

export async function loadProfileRun(): Promise<{
  report?: LoadReport;
  exitCode: number | null;
  output: string;
}> {
  const reportsDir = mkdtempSync(join(tmpdir(), 'iotc-bench-load-'));
  const args = [
    'load',
    'mqtt-gateway',
    '--gateways',
    String(LOAD_GATEWAYS),
    '--devices',
    String(LOAD_DEVICES),
    '--rate',
    String(LOAD_RATE),
    '--qos',
    '1',
    '--duration',
    String(LOAD_DURATION_S),
    '--reports',
    reportsDir,
  ];
  const run = await runIotc(
    args,
    { ...process.env, IOTC_STATE_DIR: join(reportsDir, 'state') },
    LOAD_DURATION_S * 1000 + 120_000,
  );
  let report: LoadReport | undefined;
  try {
    report = JSON.parse(
      readFileSync(join(reportsDir, 'load', 'mqtt-gateway.json'), 'utf8'),
    ) as LoadReport;
  } catch {
    // no report: the run failed before writing it; the output says why
  }
  rmSync(reportsDir, { recursive: true, force: true });
  return { report, ...run };
}
