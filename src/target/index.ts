/**
 * The one target abstraction: a validated profile with its URLs and credentials resolved. Steps,
 * load profiles and the CLI see only this; they reach the platform over sockets at these URLs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { targetProfileSchema, type TargetProfile } from '../../schemas';
import { describeJsonSyntaxError, validate } from '../../schemas/validate';
import { PACKAGE_ROOT } from '../../lib/package-root';
import type { ConnectorTarget } from './connector-target';
import { IotcError } from '../../lib/errors';

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
  /**
   * mqtts:// URL of the MQTT transport over TLS, when the target serves it (trusted through `tls`).
   */
  mqttsUrl?: string;
  /**
   * HTTPS base URL of the HTTP device API, when the target serves both
   * (docs/reference/interfaces.md: HTTP and HTTPS).
   */
  httpsUrl?: string;
  /**
   * Trust for TLS endpoints: a CA certificate (PEM), or no verification when the profile says so
   * explicitly.
   */
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
  /**
   * The shortest lifetimes (seconds) the target's JWT settings accept (capability jwt-settings).
   */
  shortestTokenLifetimes: { accessSec: number; refreshSec: number };
  /** device.claim.duration of the target, in milliseconds. */
  claimDurationMs: number;
  /**
   * How long the MQTT transport waits for a new connection's CONNECT (10000 by default).
   * ThingsBoard has none: its profiles declare the deviation ROB-CONN-02 (MQTT_TIMEOUT is its RPC
   * delivery timeout).
   */
  mqttConnectTimeoutMs: number;
  capabilities: ReadonlySet<Capability>;
  deviations: Readonly<Record<string, { observed: string; reason: string }>>;
  namePrefix: string;
  /**
   * The profile's timeouts; on a remote target, once the run has measured the network, those of
   * steps/support/timing.ts networkTimeouts (the profile's as floors, plus the round trip
   * `roundTripMs`).
   */
  timeouts: {
    eventuallyMs: number;
    pollIntervalMs: number;
    requestMs: number;
    roundTripMs?: number;
  };
  /**
   * Time series entries the target keeps per key, when it keeps only the newest (the embedded
   * reference).
   */
  historyPerKey?: number;
  /**
   * The target reads this process's clock (the embedded reference): a moment it stamps (a token's
   * iat) is never later than the same moment read here, so a scenario can wait for it without a
   * margin for clock skew.
   */
  sharesClock: boolean;
  /** Stops what opening the target started (the embedded reference); a no-op for remote targets. */
  close(): Promise<void>;
}

export type { ConnectorTarget } from './connector-target';

/**
 * A target profile that does not load: unknown name, not valid against schemas/target.ts, or an
 * `${env:NAME}` that is not set (exit 2).
 */
export class TargetProfileError extends IotcError {
  readonly code = 'IOTC_TARGET_PROFILE';
}

const BUILT_IN_DIR = join(PACKAGE_ROOT, 'src', 'target', 'profiles');

/**
 * Reads a profile by built-in name (`embedded`) or file path, validates it and resolves
 * `${env:NAME}` references.
 */
export function loadProfile(
  nameOrPath: string,
  env: NodeJS.ProcessEnv = process.env,
): TargetProfile {
  const raw = readProfile(nameOrPath, env);
  const missing = missingEnvReferences(raw, env);
  if (missing.length)
    throw new TargetProfileError(
      `target profile ${nameOrPath} needs the environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    );
  const resolved = resolveEnvReferences(raw, env, nameOrPath);
  const check = validate(targetProfileSchema, resolved);
  if (!check.ok)
    throw new TargetProfileError(
      `target profile ${nameOrPath} is invalid:\n  ${check.errors.join('\n  ')}`,
    );
  const profile = resolved as TargetProfile;
  if (profile.deviationsFrom)
    profile.deviations = {
      ...deviationsOf(profile.deviationsFrom, [nameOrPath]),
      ...profile.deviations,
    };
  return profile;
}

/**
 * A profile for reading what it declares (iotc profile check), without its secrets: the environment
 * variables it references and that are not set are filled with a placeholder, and named, so a check
 * needs no credentials.
 */
export function loadProfileUnresolved(
  nameOrPath: string,
  env: NodeJS.ProcessEnv = process.env,
): { profile: TargetProfile; unset: string[] } {
  const unset = missingEnvReferences(readProfile(nameOrPath, env), env);
  const filled = { ...env, ...Object.fromEntries(unset.map((name) => [name, `unset-${name}`])) };
  return { profile: loadProfile(nameOrPath, filled), unset };
}

/**
 * The declared deviations of a profile, following deviationsFrom; its credentials are not resolved
 * (not needed).
 */
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

/** The names of the built-in profiles (src/target/profiles/), for `--target <name>`. */
export function builtInProfiles(): string[] {
  return readdirSync(BUILT_IN_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

function readProfile(nameOrPath: string, env: NodeJS.ProcessEnv = process.env): unknown {
  if (/^https?:\/\//i.test(nameOrPath)) return urlProfile(nameOrPath, env);
  const builtIn = /^[\w.-]+$/.test(nameOrPath) && !nameOrPath.endsWith('.json');
  const path = builtIn ? join(BUILT_IN_DIR, `${nameOrPath}.json`) : resolve(nameOrPath);
  if (builtIn && !existsSync(path))
    throw new TargetProfileError(
      `no built-in target profile "${nameOrPath}"; the built-in profiles are ${builtInProfiles().join(', ')}, or give the path of a profile file`,
    );
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TargetProfileError(
      `cannot read target profile ${nameOrPath}: ${(error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TargetProfileError(
      `target profile ${nameOrPath} is not valid JSON: ${describeJsonSyntaxError(text, error as Error)}`,
    );
  }
}

/**
 * `--target http://host:8080`: a profile made from the platform's URL and environment variables
 * (docs/reference/target-url.md). The tenant administrator is required (IOTC_ADMIN_USER,
 * IOTC_ADMIN_PASSWORD, as `${env:...}` references, so a missing one is named like a profile's); the
 * rest is optional: IOTC_MQTT_URL (default mqtt://<host>:1883), IOTC_HTTPS_URL, IOTC_MQTTS_URL,
 * IOTC_CA_FILE, IOTC_CUSTOMER_USER/_PASSWORD, IOTC_SYSADMIN_USER/_PASSWORD, IOTC_CAPABILITIES
 * (comma-separated), IOTC_CLAIM_DURATION_MS.
 */
function urlProfile(url: string, env: NodeJS.ProcessEnv = process.env): unknown {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetProfileError(`--target ${url} is not a URL`);
  }
  const base = url.replace(/\/+$/, '');
  const user = (prefix: string) =>
    env[`IOTC_${prefix}_USER`] !== undefined || env[`IOTC_${prefix}_PASSWORD`] !== undefined
      ? { username: `\${env:IOTC_${prefix}_USER}`, password: `\${env:IOTC_${prefix}_PASSWORD}` }
      : undefined;
  const capabilities = (env.IOTC_CAPABILITIES ?? '')
    .split(',')
    .map((capability) => capability.trim())
    .filter(Boolean);
  const claim = env.IOTC_CLAIM_DURATION_MS;
  return {
    name: parsed.host,
    description: `made from --target ${base} and IOTC_* environment variables`,
    platform: {
      http: base,
      mqtt: env.IOTC_MQTT_URL ?? `mqtt://${parsed.hostname}:1883`,
      ...(env.IOTC_HTTPS_URL ? { https: env.IOTC_HTTPS_URL } : {}),
      ...(env.IOTC_MQTTS_URL ? { mqtts: env.IOTC_MQTTS_URL } : {}),
      ...(env.IOTC_CA_FILE ? { tls: { caFile: env.IOTC_CA_FILE } } : {}),
      tenantAdmin: { username: '${env:IOTC_ADMIN_USER}', password: '${env:IOTC_ADMIN_PASSWORD}' },
      ...(user('CUSTOMER') ? { customerUser: user('CUSTOMER') } : {}),
      ...(user('SYSADMIN') ? { sysAdmin: user('SYSADMIN') } : {}),
      ...(claim !== undefined ? { claimDurationMs: Number(claim) } : {}),
    },
    capabilities,
    namePrefix: 'iotc-',
  };
}

/**
 * Every `${env:NAME}` of a profile whose variable is not set, each named once, so one run reports
 * them all.
 */
function missingEnvReferences(value: unknown, env: NodeJS.ProcessEnv): string[] {
  const missing = new Set<string>();
  const visit = (inner: unknown): void => {
    if (typeof inner === 'string') {
      for (const [, optional, name] of inner.matchAll(ENV_REFERENCE))
        if (!optional && env[name!] === undefined) missing.add(name!);
    } else if (Array.isArray(inner)) inner.forEach(visit);
    else if (inner !== null && typeof inner === 'object') Object.values(inner).forEach(visit);
  };
  visit(value);
  return [...missing];
}

const ENV_REFERENCE = /\$\{env(\?)?:([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** A member whose whole value is an optional reference to an unset variable is left out. */
const OPTIONAL_UNSET = Symbol('optional environment variable not set');

/**
 * `${env:NAME}` must be set; `${env?:NAME}` is optional: unset, the member it is the whole value of
 * is left out (the tb-gateway-3.8 profile's CA file, needed only for an HTTPS connector).
 */
function resolveEnvReferences(value: unknown, env: NodeJS.ProcessEnv, source: string): unknown {
  if (typeof value === 'string') {
    let unsetOptional = false;
    const resolved = value.replace(
      ENV_REFERENCE,
      (_match, optional: string | undefined, name: string) => {
        const found = env[name];
        if (found !== undefined) return found;
        if (optional) {
          unsetOptional = true;
          return '';
        }
        throw new TargetProfileError(
          `target profile ${source} needs the environment variable ${name}`,
        );
      },
    );
    return unsetOptional && resolved === '' ? OPTIONAL_UNSET : resolved;
  }
  if (Array.isArray(value))
    return value
      .map((item) => resolveEnvReferences(item, env, source))
      .filter((item) => item !== OPTIONAL_UNSET);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .map(([key, inner]) => [key, resolveEnvReferences(inner, env, source)] as const)
        .filter(([, inner]) => inner !== OPTIONAL_UNSET),
    );
  }
  return value;
}

/** Opens a target: `embedded` (default) starts the reference platform in this process. */
export async function openTarget(
  nameOrPath: string = process.env.IOTC_TARGET || 'embedded',
  /**
   * The run the target is opened for: the embedded connector's constant device names carry its id.
   */
  runId?: string,
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
  // a limit the profile leaves out is declared to be the default of docs/reference/interfaces.md
  // (10)
  let analyticsLimits = profile.analytics?.limits && {
    poolSize: profile.analytics.limits.poolSize ?? 10,
    queueCapacity: profile.analytics.limits.queueCapacity ?? 10,
  };
  let ca = profile.platform.tls?.caFile
    ? readCaFile(profile.platform.tls.caFile, nameOrPath)
    : undefined;
  let connector: ConnectorTarget | undefined = profile.connector && {
    url: trimSlash(profile.connector.url),
    configFile: resolve(profile.connector.configFile),
    externalApiUrl: profile.connector.externalApiUrl && trimSlash(profile.connector.externalApiUrl),
    publishedPorts: profile.connector.publishedPorts,
    routedDestinations: profile.connector.routedDestinations,
    sparse:
      profile.connector.sparse?.url && profile.connector.sparse.configFile
        ? {
            url: trimSlash(profile.connector.sparse.url),
            configFile: resolve(profile.connector.sparse.configFile),
          }
        : undefined,
    tls: {
      ca: profile.connector.tls?.caFile
        ? readCaFile(profile.connector.tls.caFile, nameOrPath)
        : undefined,
      insecureSkipVerify: profile.connector.tls?.insecureSkipVerify ?? false,
    },
  };
  if (connector?.url.startsWith('https:') && !connector.tls.ca && !connector.tls.insecureSkipVerify)
    throw new TargetProfileError(
      `target profile ${nameOrPath}: the connector ${connector.url} is HTTPS; its connector.tls needs a caFile (or insecureSkipVerify)`,
    );
  let close = async () => {};
  let historyPerKey: number | undefined;
  if (profile.embedded) {
    // Loaded lazily so that a run against a remote target never loads the reference platform.
    const { startEmbedded } = require('./embedded') as typeof import('./embedded');
    const embedded = await startEmbedded(profile, runId);
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
    sharesClock: profile.embedded === true,
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
    mqttConnectTimeoutMs: profile.platform.mqttConnectTimeoutMs ?? 10_000,
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
    shortestTokenLifetimes: {
      accessSec: profile.platform.shortestTokenLifetimesSec?.access ?? 2,
      // the reference accepts 1 s; 3 s leaves the refresh token's positive control (offered right
      // after the login, exp from a whole-second iat) more than a second before its exp
      // (steps/token-lifetimes.steps.ts)
      refreshSec: profile.platform.shortestTokenLifetimesSec?.refresh ?? 3,
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
