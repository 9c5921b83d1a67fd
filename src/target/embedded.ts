/** Starts the reference platform in this process on free loopback ports: the `embedded` target. */
import type { TargetProfile } from '../../schemas';
import { startPlatform } from '../../simulators/platform';

export async function startEmbedded(profile: TargetProfile) {
  const platform = await startPlatform({ host: '127.0.0.1', httpPort: 0, claimDurationMs: profile.platform.claimDurationMs });
  return { httpUrl: platform.httpUrl, mqttUrl: undefined as string | undefined, close: () => platform.close() };
}
