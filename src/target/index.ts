/**
 * The one target abstraction: a validated profile with its URLs and credentials resolved. Steps, load profiles and
 * the CLI see only this; they reach the platform over sockets at these URLs.
 */
import { readFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { targetProfileSchema, type TargetProfile } from '../../schemas';
import { validate } from '../../schemas/validate';

export type Capability = NonNullable<TargetProfile['capabilities']>[number];

export interface Credentials {
  username: string;
  password: string;
}

export interface Target {
  name: string;
  /** Base URL of the HTTP device API ({base_url}), without a trailing slash. */
  httpUrl: string;
  /** Base URL of the administration REST API. */
  adminUrl: string;
  mqttUrl?: string;
  /** mqtts:// URL of the MQTT transport over TLS, when the target serves it (trusted through `tls`). */
  mqttsUrl?: string;
  /** HTTPS base URL of the HTTP device API, when the target serves both (interfaces.md: HTTP and HTTPS). */
  httpsUrl?: string;
  /** Trust for TLS endpoints: a CA certificate (PEM), or no verification when the profile says so explicitly. */
  tls: { ca?: string; insecureSkipVerify: boolean };
  tenantAdmin: Credentials;
  customerUser?: Credentials;
  /** The system administrator, for the tenant-limits capability only. */
  sysAdmin?: Credentials;
  /** The analytics report API, when the target has one. */
  analytics?: {
    reportUrl: string;
    viewConfigId?: string;
    limits?: { poolSize: number; queueCapacity: number };
  };
  /** The REST connector under test, when the target has one. */
  connector?: ConnectorTarget;
  /** JWT lifetimes the target is configured with (seconds), when the profile states them. */
  tokenLifetimes: { accessSec?: number; refreshSec?: number };
  /** device.claim.duration of the target, in milliseconds. */
  claimDurationMs: number;
  capabilities: ReadonlySet<Capability>;
  deviations: Readonly<Record<string, { observed: string; reason: string }>>;
  namePrefix: string;
  timeouts: { eventuallyMs: number; pollIntervalMs: number; requestMs: number };
  /** Time series entries the target keeps per key, when it keeps only the newest (the embedded reference). */
  historyPerKey?: number;
  /** Stops what opening the target started (the embedded reference); a no-op for remote targets. */
  close(): Promise<void>;
}

export interface ConnectorTarget {
  /** Base URL of the connector endpoints. */
  url: string;
  /** The rest.json the connector runs with. */
  configFile: string;
  /** Control URL of the external-API simulator that its outgoing calls reach. */
  externalApiUrl?: string;
  /** Trust for an https connector: the CA (PEM), or no verification. */
  tls: { ca?: string; insecureSkipVerify: boolean };
}

export class TargetProfileError extends Error {
  readonly code = 'IOTC_TARGET_PROFILE';
}

const BUILT_IN_DIR = join(__dirname, 'profiles');

/** Reads a profile by built-in name (`embedded`) or file path, validates it and resolves `${env:NAME}` references. */
export function loadProfile(
  nameOrPath: string,
  env: NodeJS.ProcessEnv = process.env,
): TargetProfile {
  const raw = readProfile(nameOrPath);
  const resolved = resolveEnvReferences(raw, env, nameOrPath);
  const check = validate(targetProfileSchema, resolved);
  if (!check.ok)
    throw new TargetProfileError(
      `target profile ${nameOrPath} is invalid: ${check.errors.join('; ')}`,
    );
  const profile = resolved as TargetProfile;
  if (profile.deviationsFrom)
    profile.deviations = {
      ...deviationsOf(profile.deviationsFrom, [nameOrPath]),
      ...profile.deviations,
    };
  return profile;
}

/** The declared deviations of a profile, following deviationsFrom; its credentials are not resolved (not needed). */
function deviationsOf(
  nameOrPath: string,
  seen: string[],
): NonNullable<TargetProfile['deviations']> {
  if (seen.includes(nameOrPath))
    throw new TargetProfileError(
      `target profiles take deviations from each other in a circle: ${[...seen, nameOrPath].join(' -> ')}`,
    );
  const raw = readProfile(nameOrPath) as Pick<TargetProfile, 'deviations' | 'deviationsFrom'>;
  const inherited = raw.deviationsFrom
    ? deviationsOf(raw.deviationsFrom, [...seen, nameOrPath])
    : {};
  return { ...inherited, ...raw.deviations };
}

function readProfile(nameOrPath: string): unknown {
  const path =
    /^[\w.-]+$/.test(nameOrPath) && !nameOrPath.endsWith('.json')
      ? join(BUILT_IN_DIR, `${nameOrPath}.json`)
      : resolve(nameOrPath);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TargetProfileError(
      `cannot read target profile ${nameOrPath}: ${(error as Error).message}`,
    );
  }
}

const ENV_REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

function resolveEnvReferences(value: unknown, env: NodeJS.ProcessEnv, source: string): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (_match, name: string) => {
      const found = env[name];
      if (found === undefined)
        throw new TargetProfileError(
          `target profile ${source} needs the environment variable ${name}`,
        );
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item) => resolveEnvReferences(item, env, source));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, resolveEnvReferences(inner, env, source)]),
    );
  }
  return value;
}

/** Opens a target: `embedded` (default) starts the reference platform in this process. */
export async function openTarget(
  nameOrPath: string = process.env.IOTC_TARGET || 'embedded',
): Promise<Target> {
  const profile = loadProfile(nameOrPath);
  let urls = {
    httpUrl: profile.platform.http,
    adminUrl: profile.platform.adminUrl,
    mqttUrl: profile.platform.mqtt,
    mqttsUrl: profile.platform.mqtts,
    httpsUrl: profile.platform.https,
    analyticsUrl: profile.analytics?.url,
  };
  let viewConfigId = profile.analytics?.viewConfigId;
  let analyticsLimits = profile.analytics?.limits;
  let ca = profile.platform.tls?.caFile
    ? readCaFile(profile.platform.tls.caFile, nameOrPath)
    : undefined;
  let connector: ConnectorTarget | undefined = profile.connector && {
    url: trimSlash(profile.connector.url),
    configFile: resolve(profile.connector.configFile),
    externalApiUrl: profile.connector.externalApiUrl && trimSlash(profile.connector.externalApiUrl),
    tls: {
      ca: profile.connector.tls?.caFile
        ? readCaFile(profile.connector.tls.caFile, nameOrPath)
        : undefined,
      insecureSkipVerify: profile.connector.tls?.insecureSkipVerify ?? false,
    },
  };
  let close = async () => {};
  let historyPerKey: number | undefined;
  if (profile.embedded) {
    // Loaded lazily so that a run against a remote target never loads the reference platform.
    const { startEmbedded } = require('./embedded') as typeof import('./embedded');
    const embedded = await startEmbedded(profile);
    urls = {
      httpUrl: embedded.httpUrl,
      adminUrl: embedded.httpUrl,
      mqttUrl: embedded.mqttUrl,
      mqttsUrl: embedded.mqttsUrl,
      httpsUrl: embedded.httpsUrl,
      analyticsUrl: embedded.analyticsUrl,
    };
    viewConfigId ??= embedded.viewConfigId;
    analyticsLimits = embedded.analyticsLimits;
    ca = embedded.ca;
    connector = embedded.connector;
    close = embedded.close;
    historyPerKey = embedded.historyPerKey;
  }
  if (!urls.httpUrl)
    throw new TargetProfileError(`target profile ${nameOrPath} has no platform.http URL`);
  if (!profile.platform.tenantAdmin)
    throw new TargetProfileError(`target profile ${nameOrPath} has no platform.tenantAdmin`);
  return {
    name: profile.name,
    historyPerKey,
    httpUrl: trimSlash(urls.httpUrl),
    adminUrl: trimSlash(urls.adminUrl ?? urls.httpUrl),
    mqttUrl: urls.mqttUrl,
    mqttsUrl: urls.mqttsUrl,
    httpsUrl: urls.httpsUrl && trimSlash(urls.httpsUrl),
    tls: { ca, insecureSkipVerify: profile.platform.tls?.insecureSkipVerify ?? false },
    tenantAdmin: profile.platform.tenantAdmin,
    customerUser: profile.platform.customerUser,
    sysAdmin: profile.platform.sysAdmin,
    claimDurationMs: profile.platform.claimDurationMs ?? 86_400_000,
    analytics: urls.analyticsUrl
      ? {
          reportUrl: `${trimSlash(urls.analyticsUrl)}${profile.analytics?.pathPrefix ?? '/apianalytics'}/publicApi/buildReport`,
          viewConfigId,
          limits: analyticsLimits,
        }
      : undefined,
    connector,
    tokenLifetimes: {
      accessSec: profile.platform.accessTokenLifetimeSec,
      refreshSec: profile.platform.refreshTokenLifetimeSec,
    },
    capabilities: new Set(profile.capabilities ?? []),
    deviations: profile.deviations ?? {},
    namePrefix: profile.namePrefix ?? 'iotc-',
    timeouts: { eventuallyMs: 5000, pollIntervalMs: 50, requestMs: 10000, ...profile.timeouts },
    close,
  };
}

function readCaFile(path: string, source: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new TargetProfileError(
      `target profile ${source}: cannot read tls.caFile ${path}: ${(error as Error).message}`,
    );
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
