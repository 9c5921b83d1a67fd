/**
 * Runs a load profile for the CLI: the common options into the contract's run, Ctrl-C into its
 * abort signal.
 */
import { type LoadProfile, runLoadProfile } from '../../load/contract';
import {
  parseShard,
  parseStartAt,
  type Shard,
  ShardError,
  shardFromEnvironment,
} from '../../load/shard';
import { readThresholdsFile } from '../../load/thresholds-file';
import { withInterruptAbort } from './load-interrupt';

/** The options every `iotc load <profile>` command has. */
export interface CommonLoadOptions {
  target: string;
  threshold: string[];
  /** A JSON file of thresholds (schemas/load-thresholds.ts), added before the --threshold ones. */
  thresholds?: string;
  /** false with --no-default-thresholds: the profile's defaults are left out. */
  defaultThresholds: boolean;
  reports: string;
  /** `i/n` */
  shard?: string;
  /** With JOB_COMPLETION_INDEX in the environment: this pod is shard JOB_COMPLETION_INDEX of n. */
  shardCount?: number;
  startAt?: string;
  rawLatencies?: boolean;
}

/**
 * The shard of this process: --shard, else JOB_COMPLETION_INDEX of --shard-count, else the whole
 * run.
 */
export function shardOf(common: CommonLoadOptions): Shard | undefined {
  if (common.shard !== undefined) {
    if (common.shardCount !== undefined)
      throw new ShardError(
        'give --shard i/n or --shard-count n (with JOB_COMPLETION_INDEX), not both',
      );
    return parseShard(common.shard);
  }
  return common.shardCount === undefined ? undefined : shardFromEnvironment(common.shardCount);
}

/** Exit code of the run: 0 PASS, 1 FAIL, 3 NOT MEASURED, 130 when stopped by Ctrl-C. */
export async function runLoadCommand<Options>(
  profile: LoadProfile<Options>,
  profileOptions: unknown,
  common: CommonLoadOptions,
): Promise<number> {
  return withInterruptAbort(async (signal) => {
    const { exitCode } = await runLoadProfile(profile, profileOptions, {
      target: common.target,
      thresholds: [
        ...(common.thresholds === undefined ? [] : readThresholdsFile(common.thresholds)),
        ...common.threshold,
      ],
      defaultThresholds: common.defaultThresholds,
      reportsDir: common.reports,
      signal,
      shard: shardOf(common),
      startAt: common.startAt === undefined ? undefined : parseStartAt(common.startAt),
      rawLatencies: common.rawLatencies,
    });
    return signal.aborted ? 130 : exitCode;
  });
}
