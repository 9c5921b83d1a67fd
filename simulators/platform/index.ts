/**
 * The reference platform: the HTTP device API and the administration REST API on one port (as
 * ThingsBoard's 8080), optionally also over HTTPS, and the MQTT transport (mqtt/, optionally also
 * mqtts), over one in-memory core. Started in-process for the embedded target and standalone by
 * `iotc simulate`.
 *
 * node:http with find-my-way rather than a framework: the device API is the load-test hot path, and
 * a benchmark holds it to at least half the throughput of a bare node:http server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as TlsServer } from 'node:tls';
import { withHandshakeTimeout } from '../../lib/tls/handshake';
import { OpeningConnections } from './core/opening-connections';
import { observeHttp, type TrafficListener } from './traffic';
import { serveLandingPage, type LandingFacts } from './landing-page';
import type { AddressInfo } from 'node:net';
import Router from 'find-my-way';
import pino from 'pino';
import { PlatformCore } from './core/platform-core';
import { sendEmpty } from './http/exchange';
import { echoClientRpcHandler, registerDeviceApi, type ClientRpcHandler } from './http';
import { AdminAuth } from './admin/auth';
import { AUTH_FAULTS } from './admin/auth-faults';
import type { BodyAdmission } from './admin/body-admission';
import { registerAdminRoutes, type AdminRoute } from './admin/route';
import { authRoutes } from './admin/auth-routes';
import { deviceRoutes } from './admin/device-routes';
import { telemetryRoutes } from './admin/telemetry-routes';
import { rpcRoutes } from './admin/rpc-routes';
import { persistentRpcRoutes } from './admin/persistent-rpc-routes';
import { profileRoutes } from './admin/profile-routes';
import { claimRoutes } from './admin/claim-routes';
import { firmwareRoutes } from './admin/firmware-routes';
import { apiKeyRoutes } from './admin/api-key-routes';
import { tenantProfileRoutes } from './admin/tenant-profile-routes';
import { jwtSettingsRoutes } from './admin/jwt-settings-routes';
import { customerRoutes } from './admin/customer-routes';
import { registerDocs } from './admin/docs-routes';
import { NO_QUIRKS, QUIRKS_MODES, type QuirksMode } from './quirks';
import type { AsynchronyOptions } from './core/scheduler';
import { type MqttIntercept, startMqttTransport, type RunningMqttTransport } from './mqtt';
import { withFaults } from '../../faults/steps';
import { SERVER_FAULTS, SERVER_STEPS } from './server-steps';

type FoundRoute = Router.FindResult<Router.HTTPVersion.V1>;
/** The most URLs whose route the server keeps (each a device's token in its path). */
const ROUTE_CACHE_SIZE = 1024;
/** The longest URL whose route the server keeps (a token is 20 characters; node allows 16 KiB). */
const ROUTE_CACHE_URL_LENGTH = 256;

export type { ClientRpcHandler } from './http';
/** What certify reads of the traffic the platform observed (src/certify/). */
export type { ObservedExchange } from './traffic';
export type { MqttIntercept } from './mqtt';

export interface PlatformOptions {
  host?: string;
  /** Port of the HTTP device API and admin API; 0 (default) takes a free one. */
  httpPort?: number;
  /** Also serve HTTPS on this port (0 = a free one) with `tls`; absent = no HTTPS. */
  httpsPort?: number;
  tls?: { cert: string; key: string };
  /**
   * device.claim.duration: the claim window when a claim gives no durationMs (default 24 h, as
   * ThingsBoard).
   */
  claimDurationMs?: number;
  /**
   * Answers client-side RPC (POST /api/v1/{token}/rpc) with a JSON value. Default: echo the request
   * document back (its exact text, so 1.0 stays 1.0). An undefined answer is 200 with an empty
   * body; a throw is 500.
   */
  clientRpcHandler?: ClientRpcHandler;
  /**
   * Reproduce a real platform's known deviations (for testing deviation profiles); default: none.
   */
  quirks?: QuirksMode;
  /**
   * Acknowledge first, act later, as ThingsBoard (core/scheduler.ts): subscriptions, gateway device
   * sessions, claims and saves take effect after their SUBACK / PUBACK / 200, attribute updates are
   * delivered late and reordered, all through one scheduler seeded by `seed`. Absent (the default):
   * every effect is in place before the answer.
   */
  asynchrony?: AsynchronyOptions;
  /** Access token lifetime; default JWT_TOKEN_EXPIRATION_TIME or 9000 s. */
  jwtExpirationSec?: number;
  /** Refresh token lifetime; default JWT_REFRESH_TOKEN_EXPIRATION_TIME or 604800 s. */
  refreshTokenExpirationSec?: number;
  /** MQTT port (0 = a free one); absent = no MQTT transport. */
  mqttPort?: number;
  /** Also serve MQTT over TLS (mqtts) on this port with `tls`. */
  mqttTlsPort?: number;
  /**
   * The largest admin API body, multipart uploads included (default 16 MiB, as ThingsBoard's
   * /api/**).
   */
  adminMaxBodyBytes?: number;
  /**
   * The bound on admin bodies in work at once (admin/body-admission.ts); default 40 MiB, 8 of them
   * kept for small bodies.
   */
  adminBodyAdmission?: BodyAdmission;
  /** Output an MQTT session may have waiting for a client that does not read (default 4 MiB). */
  mqttMaxPendingOutputBytes?: number;
  /** Time a new MQTT connection has to send its CONNECT, from its start (default 10 s). */
  mqttConnectTimeoutMs?: number;
  /**
   * MQTT connections without an accepted CONNECT at most, TLS handshakes included (default 1000).
   */
  mqttMaxUnconnected?: number;
  /**
   * HTTPS connections whose TLS handshake has not finished, at most (default 1000; beyond it the
   * oldest is closed).
   */
  maxOpeningConnections?: number;
  /**
   * Time a TLS connection (HTTPS, mqtts) has to complete its handshake (default
   * lib/tls/handshake.ts, 10 s).
   */
  tlsHandshakeTimeoutMs?: number;
  /** The tenant's device limit (tenant profile maxDevices); absent or 0 = unlimited. */
  maxDevices?: number;
  /**
   * Shortest server-side RPC timeout (ThingsBoard's MIN_SERVER_SIDE_RPC_TIMEOUT, default 5000 ms).
   */
  minServerRpcTimeoutMs?: number;
  logger?: pino.Logger;
  /**
   * Sees every HTTP exchange and MQTT packet (`iotc simulate --log`,
   * simulators/platform/traffic.ts).
   */
  traffic?: TrafficListener;
  /**
   * Holds the PUBACK of every v1/gateway/connect until the client has sent nothing for this long
   * (`iotc certify gateway`; MqttSession.holdUntilQuiet): a gateway that publishes for the device
   * without waiting for the PUBACK then does so where the trace shows it, in every run
   * (docs/reference/interfaces.md rule 4 recommends the wait). ThingsBoard acknowledges once the
   * connect is processed, which may take as long; default 0 (at once).
   */
  gatewayConnectAckDelayMs?: number;
  /**
   * Told of every HTTP request as it arrives, before it is answered (`iotc certify` starts its
   * steps then).
   */
  requestArrived?: (request: IncomingMessage) => void;
  /**
   * Told of every TLS server (HTTPS, mqtts) once it listens: `iotc certify --tls` presents other
   * certificates on it (setSecureContext) and watches its handshakes.
   */
  tlsServer?: (server: TlsServer, protocol: 'https' | 'mqtts') => void;
  /**
   * Sees every MQTT packet of a client before it is handled, and may withhold it or end its
   * connection.
   */
  mqttIntercept?: MqttIntercept;
  /** Told when an MQTT connection has ended (its number, as in the traffic events). */
  mqttConnectionClosed?: (connection: number) => void;
}

export interface RunningPlatform {
  httpUrl: string;
  httpsUrl?: string;
  mqttUrl?: string;
  mqttsUrl?: string;
  demo: {
    deviceName: string;
    deviceToken: string;
    gatewayName: string;
    gatewayToken: string;
    users: Array<{ username: string; password: string; authority: string }>;
  };
  close(): Promise<void>;
}

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...authRoutes,
  ...deviceRoutes,
  ...telemetryRoutes,
  ...rpcRoutes,
  ...persistentRpcRoutes,
  ...profileRoutes,
  ...claimRoutes,
  ...firmwareRoutes,
  ...apiKeyRoutes,
  ...tenantProfileRoutes,
  ...jwtSettingsRoutes,
  ...customerRoutes,
];

function secondsFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

export async function startPlatform(options: PlatformOptions = {}): Promise<RunningPlatform> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? pino({ level: 'silent' });
  const quirks = options.quirks ? QUIRKS_MODES[options.quirks] : NO_QUIRKS;
  const core = new PlatformCore({
    claimDurationMs: options.claimDurationMs ?? 86_400_000,
    minServerRpcTimeoutMs: options.minServerRpcTimeoutMs ?? 5000,
    maxDevices: options.maxDevices,
    asynchrony: options.asynchrony,
    onEffectError: (error, kind) => logger.error({ err: error, kind }, 'deferred effect failed'),
    claimFailureEndsRegistration: quirks.wrongClaimKeyEndsRegistration,
  });
  const clientRpc = options.clientRpcHandler ?? echoClientRpcHandler;
  // the server's steps with the planted faults that are on (server-steps.ts): the defaults at
  // start, the rest per request
  const steps = () => withFaults(SERVER_STEPS, SERVER_FAULTS);
  const jwtDefaults = steps().jwtDefaults();
  const auth = new AdminAuth(
    core,
    {
      accessSeconds:
        options.jwtExpirationSec ??
        secondsFromEnv('JWT_TOKEN_EXPIRATION_TIME', jwtDefaults.accessSeconds),
      refreshSeconds:
        options.refreshTokenExpirationSec ??
        secondsFromEnv('JWT_REFRESH_TOKEN_EXPIRATION_TIME', jwtDefaults.refreshSeconds),
    },
    quirks,
    AUTH_FAULTS,
  );
  const router = Router({
    ignoreTrailingSlash: steps().trailingSlashMatches(),
    // no practical limit (node caps the request line at 16 KiB): an over-long unknown access token
    // is 401 as on ThingsBoard, not find-my-way's 404 for a parameter over its default 100
    // characters
    maxParamLength: 16_384,
    defaultRoute: (request, response) => {
      const now = steps();
      if (now.rerouted(request)) return router.lookup(request, response);
      request.resume();
      now.unknownResource(request, response, quirks);
    },
  });
  registerDeviceApi(router, core, clientRpc, logger, quirks);
  registerAdminRoutes(
    router,
    core,
    auth,
    [...ADMIN_ROUTES],
    options.adminMaxBodyBytes,
    options.adminBodyAdmission,
  );
  registerDocs(router, ADMIN_ROUTES);
  const demo = core.createDevice({ name: 'Demo Device', token: 'A1_TEST_TOKEN' });
  const demoGateway = core.createDevice({
    name: 'Demo Gateway',
    token: 'A1_GATEWAY_TOKEN',
    additionalInfo: { gateway: true },
  });

  // the page at / (simulators/platform/landing-page.ts); the MQTT ports are filled in once it
  // listens
  const landing: LandingFacts = {
    deviceToken: demo.token,
    gatewayToken: demoGateway.token,
    users: core.users.map((user) => ({
      username: user.email,
      password: user.password,
      authority: user.authority,
    })),
  };
  router.on('GET', '/', (request, response) => serveLandingPage(request, response, landing));
  // the router's answer for the URLs asked again (a device posts its telemetry to one URL): found
  // once by find-my-way, then taken from here (its path decoding and tree walk were about 1 µs of
  // the platform's 8-10 µs of own work per telemetry request, bench/README.md "The HTTP headroom's
  // gap"). A URL no route serves goes to the router each time (its default route and the faults'
  // rerouting); the routes are all registered above and none has constraints, so a URL's route
  // never changes; at most ROUTE_CACHE_SIZE URLs of at most ROUTE_CACHE_URL_LENGTH characters are
  // kept, forgotten all at once when full.
  const foundRoutes = new Map<string, Map<string, FoundRoute>>();
  const routeRequest = (request: IncomingMessage, response: ServerResponse): void => {
    const method = request.method as string;
    const url = request.url as string;
    let byUrl = foundRoutes.get(method);
    let found = byUrl?.get(url);
    if (!found) {
      const result = router.find(method as Router.HTTPMethod, url);
      if (!result) return void router.lookup(request, response);
      // frozen: every request of the URL is handed the same params
      found = { ...result, params: Object.freeze(result.params) };
      if (url.length > ROUTE_CACHE_URL_LENGTH)
        return void found.handler(request, response, found.params, found.store, found.searchParams);
      if (!byUrl) foundRoutes.set(method, (byUrl = new Map()));
      if (byUrl.size >= ROUTE_CACHE_SIZE) byUrl.clear();
      byUrl.set(url, found);
    }
    found.handler(request, response, found.params, found.store, found.searchParams);
  };
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    if (options.traffic) observeHttp(request, response, options.traffic);
    options.requestArrived?.(request);
    // HEAD answers as GET without a body, as Spring does for every GET mapping (ThingsBoard); it
    // answered 404 on every route. Node already sends no body for a HEAD request's response,
    // whatever the route writes.
    if (request.method === 'HEAD') request.method = 'GET';
    try {
      routeRequest(request, response);
    } catch (error) {
      logger.error({ err: error }, 'request failed');
      if (!response.headersSent) sendEmpty(response, 500);
    }
  };
  const servers: Server[] = [];
  const listen = async (server: Server, port: number): Promise<number> => {
    servers.push(server);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  };
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let mqtt: RunningMqttTransport | undefined;
  try {
    const httpPort = await listen(createServer(handler), options.httpPort ?? 0);
    let httpsUrl: string | undefined;
    if (options.httpsPort !== undefined) {
      if (!options.tls) throw new Error('httpsPort needs tls (cert and key)');
      const httpsHandler = (request: IncomingMessage, response: ServerResponse) => {
        if (!steps().servedOverHttps(request)) {
          request.resume();
          return sendEmpty(response, 404);
        }
        handler(request, response);
      };
      const https = createHttpsServer(
        withHandshakeTimeout(options.tls, options.tlsHandshakeTimeoutMs),
        httpsHandler,
      );
      // connections whose TLS handshake has not finished, bounded as the MQTT transport's (oldest
      // closed beyond)
      const opening = new OpeningConnections(options.maxOpeningConnections);
      https.on('connection', opening.admit);
      https.on('secureConnection', (socket) => opening.opened(socket));
      const httpsPort = await listen(https, options.httpsPort);
      options.tlsServer?.(https, 'https');
      httpsUrl = `https://${urlHost}:${httpsPort}`;
    }
    if (options.mqttPort !== undefined) {
      if (options.mqttTlsPort !== undefined && !options.tls)
        throw new Error('mqttTlsPort needs tls (cert and key)');
      mqtt = await startMqttTransport({
        core,
        quirks,
        logger,
        clientRpc,
        host,
        port: options.mqttPort,
        tlsPort: options.mqttTlsPort,
        connectTimeoutMs: options.mqttConnectTimeoutMs,
        maxUnconnected: options.mqttMaxUnconnected,
        tlsHandshakeTimeoutMs: options.tlsHandshakeTimeoutMs,
        maxPendingOutputBytes: options.mqttMaxPendingOutputBytes,
        tls: options.tls,
        traffic: options.traffic,
        gatewayConnectAckDelayMs: options.gatewayConnectAckDelayMs,
        ...(options.tlsServer ? { tlsServer: options.tlsServer } : {}),
        ...(options.mqttIntercept ? { intercept: options.mqttIntercept } : {}),
        ...(options.mqttConnectionClosed ? { connectionClosed: options.mqttConnectionClosed } : {}),
      });
      landing.mqttPort = Number(new URL(mqtt.url).port);
      if (mqtt.tlsUrl) landing.mqttsPort = Number(new URL(mqtt.tlsUrl).port);
    }
    logger.info({ httpPort }, 'reference platform listening');
    let closing: Promise<void> | undefined;
    return {
      httpUrl: `http://${urlHost}:${httpPort}`,
      httpsUrl,
      mqttUrl: mqtt?.url,
      mqttsUrl: mqtt?.tlsUrl,
      demo: {
        deviceName: demo.name,
        deviceToken: demo.token,
        gatewayName: demoGateway.name,
        gatewayToken: demoGateway.token,
        users: landing.users,
      },
      close: () =>
        (closing ??= (async () => {
          await mqtt?.close();
          core.close();
          await Promise.all(
            servers.map(
              (server) =>
                new Promise<void>((resolve) => {
                  server.close(() => resolve());
                  server.closeAllConnections();
                }),
            ),
          );
        })()),
    };
  } catch (error) {
    await mqtt?.close();
    for (const server of servers) server.close();
    core.close();
    throw error;
  }
}
