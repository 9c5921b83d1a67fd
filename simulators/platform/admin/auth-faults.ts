/**
 * The planted faults of the admin API's authentication (faults/catalogue/admin-auth.ts says what
 * each breaks), as data: each names the steps of auth.ts AUTH_STEPS it wraps or replaces
 * (faults/steps.ts). index.ts hands the table to AdminAuth, which applies it per call, so
 * AdminAuth's methods hold only behaviour. (A fault of one admin route is at that route's entry of
 * the route table, `faults` of an AdminRoute.)
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt, errors as joseErrors } from 'jose';
import type { StepFaults } from '../../../faults/steps';
import type { AuthSteps } from './auth';
import { JWT_DEFAULTS } from './token-lifetimes';

/**
 * Fault AUTH-01:opaque-token: the opaque tokens handed out, each standing for the JWT it replaced.
 */
const opaqueTokens = new Map<string, string>();

export const AUTH_FAULTS: StepFaults<AuthSteps> = {
  'AUTH-01:any-password': { passwordMatches: () => () => true },
  'AUTH-01:opaque-token': {
    // a token that is not a JWT but still works: only its shape is wrong
    issued: (step) => (pair) => {
      const opaque = randomBytes(32).toString('hex');
      opaqueTokens.set(opaque, pair.token);
      return step({ ...pair, token: opaque });
    },
    jwtOf: (step) => (credential) => opaqueTokens.get(credential) ?? step(credential),
  },
  'AUTH-01:no-refresh-token': {
    issued: (step) => (pair) => {
      const { refreshToken: _withheld, ...answer } = step(pair);
      return answer;
    },
  },
  'AUTH-03:api-key-refused': {
    // an ApiKey header is taken as no scheme at all: refused 401 "Authentication failed"
    credentials: (step) => (request, value) => {
      const credentials = step(request, value);
      return credentials.scheme === 'ApiKey' ? { ...credentials, scheme: undefined } : credentials;
    },
  },
  'AUTH-04:bearer-refused-for-device': {
    // a JWT is refused on GET /api/device/{id}, as if the request carried no known scheme
    credentials: (step) => (request, value) => {
      const credentials = step(request, value);
      const deviceRead =
        request.method === 'GET' && /^\/api\/device\/[^/?]+(\?|$)/.test(request.url ?? '');
      return credentials.scheme === 'Bearer' && deviceRead
        ? { ...credentials, scheme: undefined }
        : credentials;
    },
  },
  'AUTH-05:missing-credentials-accepted': {
    anonymous: () => (users) => users.find((user) => user.authority === 'TENANT_ADMIN')!,
  },
  'AUTH-05:refresh-token-accepted': { isRefreshToken: () => () => false },
  'AUTH-05:expired-accepted': { clockTolerance: () => () => Number.MAX_SAFE_INTEGER },
  'AUTH-05:expired-refresh-accepted': {
    clockTolerance: (step) => (kind, lifetimes) =>
      kind === 'refresh' ? Number.MAX_SAFE_INTEGER : step(kind, lifetimes),
  },
  'AUTH-05:signature-unchecked': {
    refusedToken: (step) => (token, error) =>
      error instanceof joseErrors.JWSSignatureVerificationFailed
        ? decodeJwt(token)
        : step(token, error),
  },
  'AUTH-JWT-02:expiry-grace': {
    // one more access-token lifetime of grace after exp
    clockTolerance: (step) => (kind, lifetimes) =>
      Math.max(step(kind, lifetimes), lifetimes.accessSeconds),
  },
  // the lifetimes set by POST /api/admin/jwtSettings ignored: the defaults kept
  'AUTH-JWT-02:configured-access-ignored': {
    accessSeconds: () => () => JWT_DEFAULTS.accessSeconds,
  },
  'AUTH-JWT-02:configured-refresh-ignored': {
    refreshSeconds: () => () => JWT_DEFAULTS.refreshSeconds,
  },
  'AUTH-KEY-02:disabled-accepted': { keyEnabled: () => () => true },
  'AUTH-KEY-01:expires-like-jwt': {
    // an API key expires an access-token lifetime after its creation, like a JWT
    apiKeyExpired: (step) => (key, now, lifetimes) =>
      key.createdTime + lifetimes.accessSeconds * 1000 <= now || step(key, now, lifetimes),
  },
  'AUTH-KEY-03:expiry-ignored': { apiKeyExpired: () => () => false },
  'AUTH-KEY-03:expired-at-creation': { apiKeyExpired: () => (key) => key.expirationTime > 0 },
};
