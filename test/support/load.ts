/**
 * Load tests assert counts, never schedules: whether a machine busy with other work kept a run's
 * rate (`schedule_kept`) is no property of the code under test, and on a loaded machine (load
 * average 10-30) it is not kept. A test whose subject is the schedule itself (a run far behind its
 * rate fails) keeps the profile's defaults; every other runs with `countsOnly(profile)`: the
 * profile's default thresholds less the schedule's. The schedule is measured in bench runs (`iotc
 * load` itself keeps the default).
 */
import type { LoadProfile, RunLoadOptions } from '../../load/contract';

/** Thresholds about the run's schedule, not its counts. */
const SCHEDULE_METRICS = ['schedule_kept'];

/** The run options that make the verdict rest on the profile's count thresholds only. */
export function countsOnly(
  // biome-ignore lint/suspicious/noExplicitAny: any profile's options
  profile: LoadProfile<any>,
): Pick<RunLoadOptions, 'thresholds' | 'defaultThresholds'> {
  return {
    defaultThresholds: false,
    thresholds: profile.defaultThresholds.filter(
      (source) => !SCHEDULE_METRICS.some((metric) => source.startsWith(metric)),
    ),
  };
}
