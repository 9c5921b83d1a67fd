/**
 * The reference platform's server-level steps (index.ts): the defaults it starts with and what it
 * does with a request before a route's handler sees it, as named steps, and below them the planted
 * faults that wrap them (faults/catalogue/ says what each breaks), applied by faults/steps.ts: at
 * start for the defaults, per request for the rest. index.ts holds only behaviour.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StepFaults } from '../../faults/steps';
import { JWT_DEFAULTS, type TokenLifetimes } from './admin/token-lifetimes';
import { sendEmpty, sendJson } from './http/exchange';
import type { Quirks } from './quirks';

export const SERVER_STEPS = {
  /**
   * The JWT lifetimes when neither an option nor the environment sets them: ThingsBoard's
   * (thingsboard.yml).
   */
  jwtDefaults: (): TokenLifetimes => ({ ...JWT_DEFAULTS }),
  /**
   * Whether a path with a trailing slash is the path without it: no. ThingsBoard 4.3 (Spring 6
   * matches paths exactly) answers 404 to POST /api/v1/{token}/telemetry/ and GET
   * /api/tenant/devices/ (checked against CE 4.3.1.3).
   */
  trailingSlashMatches: (): boolean => false,
  /**
   * Whether a request no route matched is to be looked up again, its URL rewritten to a device API
   * path: never (a planted fault serves another path as the device API's; a path already under
   * /api/v1/{token}/ is never rewritten, so the second lookup cannot loop).
   */
  rerouted: (_request: IncomingMessage): boolean => false,
  /**
   * Answers a request no route matched: 404, empty body. Quirks mode unknownApiPathNeedsLogin: an
   * unknown path under /api/ outside the device API asks for a login when the request carries none,
   * as ThingsBoard's security filter chain does.
   */
  unknownResource: (request: IncomingMessage, response: ServerResponse, quirks: Quirks): void => {
    if (quirks.unknownApiPathNeedsLogin && needsLogin(request))
      return sendJson(response, 401, {
        status: 401,
        message: 'Authentication failed',
        errorCode: 10,
        timestamp: Date.now(),
      });
    sendEmpty(response, 404);
  },
  /** Whether the HTTPS port serves a request: every one, the device API as the admin API. */
  servedOverHttps: (_request: IncomingMessage): boolean => true,
};
export type ServerSteps = typeof SERVER_STEPS;

/**
 * An unknown path under /api/ outside the device API (/api/v1/, matched with its case), without
 * credentials.
 */
function needsLogin(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  return (
    url.startsWith('/api/') &&
    !url.startsWith('/api/v1/') &&
    !url.startsWith('/api/noauth/') &&
    request.headers['x-authorization'] === undefined &&
    request.headers.authorization === undefined
  );
}

export const SERVER_FAULTS: StepFaults<ServerSteps> = {
  'AUTH-JWT-01:default-access-1h': {
    jwtDefaults: (step) => () => ({ ...step(), accessSeconds: 3600 }),
  },
  'AUTH-JWT-01:default-refresh-1d': {
    jwtDefaults: (step) => () => ({ ...step(), refreshSeconds: 86400 }),
  },
  'HTTP-ERR-05:trailing-slash-matches': { trailingSlashMatches: () => () => true },
  'HTTP-ERR-05:unknown-resource-400': {
    unknownResource: (step) => (request, response, quirks) =>
      request.url?.startsWith('/api/v1/')
        ? sendEmpty(response, 400)
        : step(request, response, quirks),
  },
  // another version segment served as v1
  'HTTP-VER-01:any-version-served': {
    rerouted: (step) => (request) => {
      const url = request.url ?? '';
      if (!/^\/api\/v\d+\//i.test(url) || url.startsWith('/api/v1/')) return step(request);
      request.url = url.replace(/^\/api\/v\d+\//i, '/api/v1/');
      return true;
    },
  },
  // a path without the token segment served as the demo device's
  'HTTP-AUTH-01:tokenless-path-served': {
    rerouted: tokenless('A1_TEST_TOKEN'),
  },
  // a path without the token segment refused 401, as an unknown token
  'HTTP-AUTH-01:tokenless-path-401': {
    rerouted: tokenless('no-such-token'),
  },
  'HTTP-GEN-01:https-device-api-missing': {
    servedOverHttps: (step) => (request) => !request.url?.startsWith('/api/v1/') && step(request),
  },
};

/** A fault that serves /api/v1/telemetry as /api/v1/{token}/telemetry. */
function tokenless(token: string) {
  return (step: (request: IncomingMessage) => boolean) =>
    (request: IncomingMessage): boolean => {
      const url = request.url ?? '';
      if (!/^\/api\/v1\/telemetry\b/.test(url)) return step(request);
      request.url = url.replace('/api/v1/', `/api/v1/${token}/`);
      return true;
    };
}
