/** Starts the reference platform in this process on free loopback ports: the `embedded` target. */
import type { TargetProfile } from '../../schemas';
import { startPlatform } from '../../simulators/platform';
import { generateSelfSignedCertificate } from '../tls/certificate';

export async function startEmbedded(profile: TargetProfile) {
  const tls = await generateSelfSignedCertificate();
  const platform = await startPlatform({
    host: '127.0.0.1',
    httpPort: 0,
    httpsPort: 0,
    tls,
    claimDurationMs: profile.platform.claimDurationMs,
    quirks: profile.quirks,
    jwtExpirationSec: profile.platform.accessTokenLifetimeSec,
    refreshTokenExpirationSec: profile.platform.refreshTokenLifetimeSec,
  });
  return {
    httpUrl: platform.httpUrl,
    httpsUrl: platform.httpsUrl,
    ca: tls.cert,
    mqttUrl: undefined as string | undefined,
    close: () => platform.close(),
  };
}
