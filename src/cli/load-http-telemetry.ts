/** `iotc load http-telemetry`: the command-line options into a run of the profile on the load contract. */
import { runLoadProfile } from '../../load/contract';
import { httpTelemetryProfile } from '../../load/http-telemetry';
import { withInterruptAbort } from './load-interrupt';

export interface HttpTelemetryCommandOptions {
  target: string;
  devices: number;
  rate: number;
  duration: number;
  concurrency?: number;
  sample?: number;
  threshold: string[];
  reports: string;
}

export async function httpTelemetryCommand(options: HttpTelemetryCommandOptions): Promise<number> {
  return withInterruptAbort(async (signal) => {
    const { exitCode } = await runLoadProfile(
      httpTelemetryProfile,
      {
        devices: options.devices,
        rate: options.rate,
        durationS: options.duration,
        ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
        ...(options.sample === undefined ? {} : { sampleDevices: options.sample }),
      },
      {
        target: options.target,
        thresholds: options.threshold,
        reportsDir: options.reports,
        signal,
      },
    );
    return signal.aborted ? 130 : exitCode;
  });
}
