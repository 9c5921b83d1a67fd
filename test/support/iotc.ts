/**
 * Runs the iotc command as a child process (as a user would), with its own state directory,
 * collecting its output.
 */
import { exitOf, spawnIotc } from './children';

export { ROOT } from './children';

/** Runs the iotc command with its own state directory, collecting its output. */
export async function iotc(
  args: string[],
  stateDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string }> {
  return exitOf(spawnIotc(args, { env: { ...process.env, ...env, IOTC_STATE_DIR: stateDir } }));
}
