/** Runs a load profile for the CLI: the common options into the contract's run, Ctrl-C into its abort signal. */
import { type LoadProfile, runLoadProfile } from '../../load/contract';
import { withInterruptAbort } from './load-interrupt';

/** The options every `iotc load <profile>` command has. */
export interface CommonLoadOptions {
  target: string;
  threshold: string[];
  reports: string;
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
      thresholds: common.threshold,
      reportsDir: common.reports,
      signal,
    });
    return signal.aborted ? 130 : exitCode;
  });
}
