/** The iotc command as a child process (as a user would): a run with its own state directory, or `iotc simulate`. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = join(__dirname, '..', '..');

/** Runs the iotc command with its own state directory, collecting its output. */
export async function iotc(
  args: string[],
  stateDir: string,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'iotc.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, IOTC_STATE_DIR: stateDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, output };
}

/**
 * Starts `iotc simulate --json` with these arguments as a child process and answers its first line (URLs, demo
 * credentials). The caller ends the child (SIGTERM) on every path.
 */
export async function startSimulate<Info = Record<string, unknown>>(
  args: string[],
): Promise<{ child: ChildProcess; info: Info }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'iotc.js'), 'simulate', '--json', ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  try {
    const first = await Promise.race([
      once(lines, 'line').then(([line]) => line as string),
      once(child, 'exit').then(([code]) =>
        Promise.reject(new Error(`iotc simulate exited with ${code}`)),
      ),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('iotc simulate did not start in 20 s')), 20_000).unref(),
      ),
    ]);
    return { child, info: JSON.parse(first) as Info };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
