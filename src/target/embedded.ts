/** Starts the reference platform in this process on free loopback ports: the `embedded` target. */
import type { TargetProfile } from '../../schemas';
import { startPlatform } from '../../simulators/platform';
import { MAX_HISTORY_PER_KEY } from '../../simulators/platform/core/time-series';
import { join } from 'node:path';
import { startAnalytics } from '../../simulators/analytics';
import { embeddedCertificates } from './embedded-certificates';
import { startEmbeddedConnector } from './embedded-connector';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { embeddedAsynchrony } from './twin-asynchrony';

/** The saved views of the embedded analytics: the conformance view the analytics features use. */
const EMBEDDED_VIEWS_FILE = join(PACKAGE_ROOT, 'src', 'target', 'embedded-analytics-views.json');
const CONFORMANCE_VIEW_ID = '5f0c7a4e-2b1d-4c3e-9f8a-6b7c8d9e0f1a';

export async function startEmbedded(profile: TargetProfile, runId?: string) {
  const certificates = await embeddedCertificates();
  const tls = certificates.platform;
  const platform = await startPlatform({
    host: '127.0.0.1',
    httpPort: 0,
    httpsPort: 0,
    mqttPort: 0,
    mqttTlsPort: 0,
    tls,
    claimDurationMs: profile.platform.claimDurationMs,
    mqttConnectTimeoutMs: profile.platform.mqttConnectTimeoutMs,
    // undelivered RPCs end after 1 s instead of ThingsBoard's 5 s minimum: scenarios that check
    // non-delivery wait less
    minServerRpcTimeoutMs: 1000,
    quirks: profile.quirks,
    asynchrony: embeddedAsynchrony(profile),
    jwtExpirationSec: profile.platform.accessTokenLifetimeSec,
    refreshTokenExpirationSec: profile.platform.refreshTokenLifetimeSec,
  });
  // SIMPLE_API_RATE_LIMITER_* in the environment configure the embedded analytics as they configure
  // Trendz. What the profile leaves out is left to the analytics' own default, so that default runs
  // (and is checked)
  const limits = declaredLimits(profile.analytics?.limits);
  const analytics = await startAnalytics({
    platformUrl: platform.httpUrl,
    pathPrefix: profile.analytics?.pathPrefix,
    // the environment overrides the profile, as it overrides Trendz's configuration
    poolSize:
      envInteger('SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE') ?? profile.analytics?.limits?.poolSize,
    queueCapacity:
      envInteger('SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY') ??
      profile.analytics?.limits?.queueCapacity,
    reportCostMs: profile.analytics?.reportCostMs,
    viewsFile: EMBEDDED_VIEWS_FILE,
  }).catch(async (error: unknown) => {
    await platform.close();
    throw error;
  });
  const connector = platform.mqttUrl
    ? await startEmbeddedConnector({
        httpUrl: platform.httpUrl,
        mqttUrl: platform.mqttUrl,
        tenantAdmin: profile.platform.tenantAdmin!,
        quirks: profile.connectorQuirks,
        runId,
        namePrefix: profile.namePrefix,
        serverTls: certificates.connectorServer,
        externalTls: certificates.externalApi,
      }).catch(async (error: unknown) => {
        await analytics.close();
        await platform.close();
        throw error;
      })
    : undefined;
  return {
    historyPerKey: MAX_HISTORY_PER_KEY,
    connector: connector?.connector,
    analyticsUrl: analytics.url,
    analyticsLimits: limits,
    viewConfigId: CONFORMANCE_VIEW_ID,
    httpUrl: platform.httpUrl,
    httpsUrl: platform.httpsUrl,
    ca: tls.cert,
    mqttUrl: platform.mqttUrl,
    mqttsUrl: platform.mqttsUrl,
    close: async () => {
      await connector?.close();
      await analytics.close();
      await platform.close();
    },
  };
}

/**
 * The limits a target is declared to run with: the environment's SIMPLE_API_RATE_LIMITER_* (as they
 * configure the embedded analytics), else the profile's, else the default
 * docs/reference/interfaces.md gives (10 and 10).
 */
function declaredLimits(
  limits: { poolSize?: number; queueCapacity?: number } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { poolSize: number; queueCapacity: number } {
  return {
    poolSize: envInteger('SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE', env) ?? limits?.poolSize ?? 10,
    queueCapacity:
      envInteger('SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY', env) ?? limits?.queueCapacity ?? 10,
  };
}

function envInteger(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : Number(value);
}
