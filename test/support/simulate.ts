/** Starts `iotc simulate` as a separate process on free ports and reads the JSON line it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT } from './iotc';

export interface SimulateInfo {
  httpUrl: string;
  httpsUrl: string;
  mqttUrl: string;
  mqttsUrl: string;
  caFile: string;
}

/** HTTP, HTTPS and MQTT on free ports, plus `extraArgs`; the caller stops the child (kill it on every path). */
export async function startSimulate(
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; info: SimulateInfo }> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'iotc.js'),
      'simulate',
      '--http-port',
      '0',
      '--https-port',
      '0',
      '--mqtt-port',
      '0',
      '--json',
      ...extraArgs,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const lines = createInterface({ input: child.stdout! });
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => line as string),
      once(child, 'exit').then(([code]) =>
        Promise.reject(new Error(`iotc simulate exited with ${code}`)),
      ),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('iotc simulate did not start in 20 s')), 20_000).unref(),
      ),
    ]);
    return { child, info: JSON.parse(first) as SimulateInfo };
  } catch (error) {
    child.kill();
    throw error;
  }
}
