/**
 * The seed of the embedded reference's asynchrony (profile member `asynchrony`,
 * simulators/platform/core/scheduler.ts). A run chooses one seed (IOTC_TWIN_SEED, else the
 * profile's `asynchrony.seed`, else a new one), prints it and records it in conformance.json
 * (run.twin); it reaches the worker processes through IOTC_TWIN_SEED, and each cucumber worker,
 * which starts its own embedded reference, derives its seed from it and its worker id, so that a
 * run is replayed whole by setting IOTC_TWIN_SEED to the recorded seed (with the same number of
 * workers).
 */
import type { TargetProfile } from '../../schemas';
import {
  deriveSeed,
  newSeed,
  type AsyncKind,
  type AsynchronyOptions,
  type DelayBounds,
} from '../../simulators/platform/core/scheduler';

export const TWIN_SEED_VARIABLE = 'IOTC_TWIN_SEED';

/**
 * The run's seed when the profile turns asynchrony on (undefined when it is off or the target is
 * not embedded).
 */
export function runTwinSeed(
  profile: TargetProfile,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  if (!profile.embedded || !profile.asynchrony?.enabled) return undefined;
  const given = env[TWIN_SEED_VARIABLE];
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      throw new Error(`${TWIN_SEED_VARIABLE}=${given}: a seed is an integer from 0 to 4294967295`);
    return seed;
  }
  return profile.asynchrony.seed ?? newSeed();
}

/**
 * The asynchrony of this process's embedded reference: the run's seed (derived for a cucumber
 * worker, from CUCUMBER_WORKER_ID) and the profile's delay bounds; undefined when the profile
 * leaves asynchrony off.
 */
export function embeddedAsynchrony(
  profile: TargetProfile,
  env: NodeJS.ProcessEnv = process.env,
): AsynchronyOptions | undefined {
  const runSeed = runTwinSeed(profile, env);
  if (runSeed === undefined) return undefined;
  const worker = env.CUCUMBER_WORKER_ID;
  const seed = worker === undefined ? runSeed : deriveSeed(runSeed, Number(worker));
  const delaysMs: Partial<Record<AsyncKind, DelayBounds>> = {};
  for (const [kind, maxMs] of Object.entries(profile.asynchrony?.maxDelayMs ?? {}))
    if (maxMs !== undefined) delaysMs[kind as AsyncKind] = { minMs: 0, maxMs };
  return { seed, delaysMs };
}
