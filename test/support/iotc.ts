/** Runs the iotc command as a child process (as a user would), with its own state directory, collecting its output. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

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
