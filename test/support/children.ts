/**
 * Child processes of tests: every child started here is killed when the test process ends, on every
 * path (a failed assertion, a thrown start-up error, a cancelled test), so no test leaves a server
 * running behind it. Start-ups wait for the child's own signal (its first line, or its exit), never
 * for a fixed time: on a busy machine ts-node alone can take a minute, and the test's own timeout
 * is the hang guard.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = join(__dirname, '..', '..');
const IOTC = join(ROOT, 'bin', 'iotc.js');

const alive = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** `iotc <args>` as a child process, registered for killing. */
export function spawnIotc(args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(process.execPath, [IOTC, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  return child;
}

/** Collects stdout and stderr and resolves with the exit code once the child has ended. */
export async function exitOf(
  child: ChildProcess,
): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const [code] =
    child.exitCode !== null || child.signalCode !== null
      ? [child.exitCode]
      : ((await once(child, 'exit')) as [number | null]);
  return { code, output };
}

/**
 * Ends a child (SIGTERM) and resolves with its exit code; nothing to do when it has ended already.
 */
export async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill('SIGTERM');
  const [code] = await exited;
  return code;
}

export interface SimulateInfo {
  httpUrl: string;
  httpsUrl?: string;
  mqttUrl?: string;
  mqttsUrl?: string;
  caFile?: string;
}

/**
 * `iotc simulate --json` on ports the OS chooses (every port the arguments do not name is set to 0,
 * so a machine running its own MQTT broker or web server is no obstacle). Resolves with the child
 * and its URLs once it prints them; if it exits first, or the start fails in any way, the child is
 * killed and the error carries its output.
 */
export async function startSimulate<Info = SimulateInfo>(
  extraArgs: string[] = [],
): Promise<{ child: ChildProcess; info: Info }> {
  const ports = ['--http-port', '--mqtt-port'].flatMap((flag) =>
    extraArgs.includes(flag) ? [] : [flag, '0'],
  );
  const child = spawnIotc(['simulate', ...ports, ...extraArgs, '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const lines = createInterface({ input: child.stdout! });
  try {
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => line as string),
      once(child, 'exit').then(([code]) => {
        throw new Error(`iotc simulate exited with ${code} before it started:\n${errors}`);
      }),
    ]);
    return { child, info: JSON.parse(first) as Info };
  } catch (error) {
    await stop(child);
    throw error;
  }
}
