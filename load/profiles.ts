/** Every load profile by name, for what needs one from a report (iotc load merge). */
import type { LoadProfile } from './contract';
import { httpTelemetryProfile } from './http-telemetry';
import { mqttConnectProfile } from './mqtt-connect';
import { mqttGatewayProfile } from './mqtt-gateway';
import { reportRateLimitProfile } from './report-rate-limit';

export const LOAD_PROFILES: ReadonlyArray<LoadProfile<never>> = [
  reportRateLimitProfile,
  mqttGatewayProfile,
  httpTelemetryProfile,
  mqttConnectProfile,
] as ReadonlyArray<LoadProfile<never>>;

export function loadProfileNamed(name: string): LoadProfile<unknown> | undefined {
  return LOAD_PROFILES.find((profile) => profile.name === name) as LoadProfile<unknown> | undefined;
}
