/**
 * Whether a target's host was starved while a step waited on it: HEAD round trips on the
 * administration URL sampled during the wait, against the round trip the run's start measured. A
 * long wait that ends without an answer then says nothing about the target's behaviour
 * (INCONCLUSIVE); a target that answers HEAD promptly throughout and never the awaited request
 * FAILs.
 */
import type { IotcWorld } from '../world';
import { httpSamples } from './network';

/**
 * One round trip of HEAD on the administration URL, as the run's start measured it
 * (network.ts httpSamples: on a connection opened first), in ms; Infinity when no answer came
 * within the request timeout.
 */
export async function headRoundTrip(world: IotcWorld): Promise<number> {
  const { target } = world.run;
  try {
    const [ms] = await httpSamples(target.adminUrl, target, target.timeouts.requestMs, 1);
    return ms ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Why a description that never came says nothing, or undefined when it does: the target's host was
 * starved while it was awaited, its HEAD round trips (sampled meanwhile) at a median of a second or
 * more and ten times the run's start or more. A starved host delays a first, heavy build of the
 * description (springdoc's, on real ThingsBoard just started beside six CPU burners: no headers in
 * 120 s) as it delays everything; a target that answers HEAD promptly and never its description
 * FAILs.
 */
export function starvedHost(
  world: Pick<IotcWorld, 'run'>,
  samplesMs: number[],
): string | undefined {
  if (samplesMs.length === 0) return undefined;
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const baseline = Math.max(1, world.run.target.timeouts.roundTripMs ?? 1);
  if (median < 1000 || median < 10 * baseline) return undefined;
  return `the target answered HEAD ${world.run.target.adminUrl} in a median of ${Number.isFinite(median) ? `${Math.round(median)} ms` : 'no time (no answer)'} over ${samplesMs.length} samples meanwhile (${Math.round(baseline)} ms at the run's start): its host was starved`;
}
