/**
 * e) A QoS 1 run of the load profile (`iotc load mqtt-gateway`) in its own process: nothing lost, nothing duplicated.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttGatewayReport } from '../load/mqtt-gateway';
import { children, positiveEnv, ROOT } from './children';

export const LOAD_GATEWAYS = 10;
export const LOAD_DEVICES = 10;
export const LOAD_RATE = 100;
export const LOAD_DURATION_S = positiveEnv('BENCH_LOAD_DURATION_S', 3);

export function loadProfileRun(): Promise<{
  report?: MqttGatewayReport;
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
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'iotc.js'), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, IOTC_STATE_DIR: join(reportsDir, 'state') },
  });
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  return new Promise((resolveRun) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), LOAD_DURATION_S * 1000 + 120_000);
    const finish = (exitCode: number | null) => {
      clearTimeout(timer);
      children.delete(child);
      let report: MqttGatewayReport | undefined;
      try {
        report = JSON.parse(
          readFileSync(join(reportsDir, 'load', 'mqtt-gateway.json'), 'utf8'),
        ) as MqttGatewayReport;
      } catch {
        // no report: the run failed before writing it; the output says why
      }
      rmSync(reportsDir, { recursive: true, force: true });
      resolveRun({ report, exitCode, output });
    };
    child.once('exit', (code) => finish(code));
    child.once('error', () => finish(null));
  });
}
