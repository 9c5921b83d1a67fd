/**
 * The reference analytics component (Trendz-like): saved table views whose data it reads from the
 * platform through the administration REST API with the caller's JWT, `POST
 * {prefix}/publicApi/buildReport`, and the report rate limiter (pool + bounded FIFO queue). No
 * report cache: every request reads the platform afresh (real Trendz caches reports by default; see
 * docs/reference/analytics-facts.md and the README of this folder).
 *
 * iotc extension (never needed by conformance features): `GET {prefix}/iotc/limiterStatus` answers
 * the limiter's live counters.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { AnalyticsError, MethodNotAllowedError, UnknownRouteError } from './errors';
import { sendError, sendJsonText } from './exchange';
import { JwtCheck } from './jwt-check';
import { Limiter } from './limiter';
import { PlatformReader } from './platform-reader';
import { handleBuildReport, type ReportContext } from './report-endpoint';
import { DEMO_VIEW, loadViews } from './views';
import { type StepFaults, withFaults } from '../../faults/steps';

interface AnalyticsOptions {
  /** Admin REST API base URL of the platform it reads from. */
  platformUrl: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Default '/apianalytics' (real Trendz: '/apiTrendz'). */
  pathPrefix?: string;
  /** Reports run in parallel; default env SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE or 10. */
  poolSize?: number;
  /**
   * Requests that may wait for a slot; default env SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY or 10.
   */
  queueCapacity?: number;
  /**
   * Extra time each report takes while holding a pool slot (default 0), so tests and load runs can
   * exercise the limiter.
   */
  reportCostMs?: number;
  /**
   * JSON file of saved table views (schemas/analytics-views.ts); the demo view is always there too.
   */
  viewsFile?: string;
  /**
   * Longest time a positive JWT check is remembered (default 1000 ms; never beyond the JWT's exp; 0
   * = ask every time).
   */
  jwtCacheMs?: number;
  /** Timeout of each platform read (default 10000 ms). */
  platformTimeoutMs?: number;
  logger?: Logger;
}

export interface RunningAnalytics {
  url: string;
  /** {url}{prefix}/publicApi/buildReport */
  reportUrl: string;
  /** iotc extension: {url}{prefix}/iotc/limiterStatus */
  limiterStatusUrl: string;
  demoViewId: string;
  close(): Promise<void>;
}

function integerOption(
  value: number | undefined,
  envName: string,
  fallback: number,
  minimum: number,
): number {
  const chosen =
    value ??
    (process.env[envName] !== undefined && process.env[envName] !== ''
      ? Number(process.env[envName])
      : fallback);
  if (!Number.isInteger(chosen) || chosen < minimum)
    throw new RangeError(`${envName} must be an integer >= ${minimum}, got ${chosen}`);
  return chosen;
}

function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** What the options and the environment settle at start (the faults below change it). */
interface Settings {
  poolSize: number;
  queueCapacity: number;
  /** The path of buildReport, under the prefix. */
  reportPath: string;
}

/** The defaults of the settings the options and environment leave open. */
const DEFAULTS: Readonly<Pick<Settings, 'poolSize' | 'queueCapacity'>> = {
  poolSize: 10,
  queueCapacity: 10,
};

interface SettingsSteps {
  /** The settings of the options, the environment and else the defaults. */
  settings(options: AnalyticsOptions, prefix: string, defaults: typeof DEFAULTS): Settings;
}

const SETTINGS_STEPS: SettingsSteps = {
  settings: (options, prefix, defaults) => ({
    poolSize: integerOption(
      options.poolSize,
      'SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE',
      defaults.poolSize,
      1,
    ),
    queueCapacity: integerOption(
      options.queueCapacity,
      'SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY',
      defaults.queueCapacity,
      0,
    ),
    reportPath: `${prefix}/publicApi/buildReport`,
  }),
};

const SETTINGS_FAULTS: StepFaults<SettingsSteps> = {
  'AN-LIM-05:pool-config-ignored': {
    settings: (step) => (options, prefix, defaults) => ({
      ...step({ ...options, poolSize: defaults.poolSize }, prefix, defaults),
      poolSize: defaults.poolSize,
    }),
  },
  'AN-LIM-02:default-capacity-5': {
    settings: (step) => (options, prefix, defaults) =>
      step(options, prefix, { ...defaults, queueCapacity: 5 }),
  },
  'AN-01:version-segment': {
    settings: (step) => (options, prefix, defaults) => ({
      ...step(options, prefix, defaults),
      reportPath: `${prefix}/v1/publicApi/buildReport`,
    }),
  },
};

export async function startAnalytics(options: AnalyticsOptions): Promise<RunningAnalytics> {
  const host = options.host ?? '127.0.0.1';
  const prefix = normalizePrefix(options.pathPrefix ?? '/apianalytics');
  const logger = options.logger ?? pino({ level: 'silent' });
  const { poolSize, queueCapacity, reportPath } = withFaults(
    SETTINGS_STEPS,
    SETTINGS_FAULTS,
  ).settings(options, prefix, DEFAULTS);
  const limiter = new Limiter(poolSize, queueCapacity);
  const reportCostMs = options.reportCostMs ?? 0;
  if (!(reportCostMs >= 0)) throw new RangeError(`reportCostMs must be >= 0, got ${reportCostMs}`);
  const views = loadViews(options.viewsFile);
  const reader = new PlatformReader(options.platformUrl, options.platformTimeoutMs ?? 10_000);
  const context: ReportContext = {
    views,
    limiter,
    jwtCheck: new JwtCheck(reader, options.jwtCacheMs ?? 1000),
    reader,
    reportCostMs,
    logger,
  };
  const statusPath = `${prefix}/iotc/limiterStatus`;

  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://analytics.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === reportPath) {
      if (request.method !== 'POST') throw new MethodNotAllowedError(request.method ?? '?', 'POST');
      return handleBuildReport(context, request, response, url);
    }
    if (path === statusPath) {
      if (request.method !== 'GET') throw new MethodNotAllowedError(request.method ?? '?', 'GET');
      return sendJsonText(response, 200, JSON.stringify(limiter.status()));
    }
    throw new UnknownRouteError(path);
  };
  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      request.resume();
      if (error instanceof AnalyticsError) {
        sendError(
          response,
          error,
          error instanceof MethodNotAllowedError ? { allow: error.allowed } : {},
        );
        return;
      }
      logger.error({ err: error }, 'request failed');
      sendJsonText(response, 500, JSON.stringify({ status: 500, message: 'Internal error' }));
    });
  });
  server.keepAliveTimeout = 65_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await reader.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info(
    { port, prefix, poolSize: limiter.poolSize, queueCapacity: limiter.queueCapacity },
    'reference analytics listening',
  );
  let closing: Promise<void> | undefined;
  return {
    url: base,
    reportUrl: base + reportPath,
    limiterStatusUrl: base + statusPath,
    demoViewId: DEMO_VIEW.id,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await reader.close();
      })()),
  };
}
