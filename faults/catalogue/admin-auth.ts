/** Faults that break requirements of the admin-auth interface (features/admin-auth/). */
import type { FaultDefinition } from './definition';

export const ADMIN_AUTH_FAULTS = [
  {
    id: 'AUTH-01:error-body-code-only',
    breaks:
      'a refused request is answered with {"errorCode"} alone, without the status, message and timestamp ThingsBoard documents',
  },
  {
    id: 'AUTH-01:no-refresh-token',
    breaks: 'login answers the access token without a refreshToken',
  },
  {
    id: 'AUTH-01:opaque-token',
    breaks: 'login answers an opaque random string as token instead of a JWT',
  },
  {
    id: 'AUTH-01:any-password',
    breaks: 'login accepts the right user name with any password',
  },
  {
    id: 'AUTH-02:another-user',
    breaks: 'GET /api/auth/user answers the first user of the platform, not the caller',
  },
  {
    id: 'AUTH-03:api-key-refused',
    breaks: 'the ApiKey scheme of X-Authorization is refused like an unknown scheme',
  },
  {
    id: 'AUTH-04:bearer-refused-for-device',
    // refusing Bearer everywhere would break the embedded target's own start (its connector logs in
    // with a JWT)
    breaks:
      'GET /api/device/{id} refuses a Bearer JWT in X-Authorization (API keys still work there)',
  },
  {
    id: 'AUTH-05:missing-credentials-accepted',
    breaks: 'a request without X-Authorization is served as the tenant administrator',
  },
  {
    id: 'AUTH-05:signature-unchecked',
    breaks: 'a JWT whose signature does not verify is accepted when its claims decode',
  },
  {
    id: 'AUTH-05:refresh-token-accepted',
    breaks: 'a refresh token is accepted as an access token (Bearer <refresh token>)',
  },
  {
    id: 'AUTH-05:expired-accepted',
    breaks: 'an expired access token is accepted (its exp is not checked)',
  },
  {
    id: 'AUTH-05:expired-refresh-accepted',
    breaks:
      'POST /api/auth/token exchanges an expired refresh token for a new pair (its exp is not checked)',
  },
  {
    id: 'AUTH-05:refused-403',
    breaks: 'a request without valid credentials is refused with 403 instead of 401',
  },
  {
    id: 'AUTH-KEY-01:expires-like-jwt',
    breaks:
      'an API key expires like a login: it is refused once the access token lifetime has passed since its creation',
  },
  {
    id: 'AUTH-KEY-02:disabled-accepted',
    breaks: 'a disabled API key is still accepted',
  },
  {
    id: 'AUTH-KEY-02:enable-ignored',
    breaks: 'enabling a disabled API key again answers 200 but leaves it disabled',
  },
  {
    id: 'AUTH-KEY-03:expiry-ignored',
    breaks: 'the expirationTime of an API key is ignored: it never expires',
  },
  {
    id: 'AUTH-KEY-03:expired-at-creation',
    breaks: 'an API key with an expirationTime is refused from its creation on',
  },
  {
    id: 'AUTH-KEY-04:delete-keeps-key',
    breaks: 'deleting an API key answers 200 but the key stays valid',
  },
  {
    id: 'AUTH-JWT-01:default-access-1h',
    breaks: 'without a configured lifetime the access token lives 3600 s instead of 9000 s',
  },
  {
    id: 'AUTH-JWT-01:default-refresh-1d',
    breaks: 'without a configured lifetime the refresh token lives 86400 s instead of 604800 s',
  },
  {
    id: 'AUTH-JWT-02:configured-access-ignored',
    breaks: 'the configured access token lifetime is ignored: the default 9000 s is used',
  },
  {
    id: 'AUTH-JWT-02:configured-refresh-ignored',
    breaks: 'the configured refresh token lifetime is ignored: the default 604800 s is used',
  },
  {
    id: 'AUTH-JWT-02:expiry-grace',
    breaks: 'an access token is still accepted for one more lifetime after its exp',
  },
  {
    id: 'AUTH-DOC-01:page-missing',
    breaks: '/swagger-ui.html answers 404',
  },
  {
    id: 'AUTH-DOC-01:redirect-to-missing-page',
    breaks:
      '/swagger-ui.html redirects (302) to /swagger-ui/index.html, which does not exist (404)',
  },
  {
    id: 'AUTH-DOC-01:script-missing',
    breaks: 'the Swagger UI bundle script the page loads answers 404',
  },
  {
    id: 'AUTH-DOC-02:no-api-key-scheme',
    breaks: 'the API description declares no API key authorization',
  },
  {
    id: 'AUTH-DOC-02:no-jwt-scheme',
    breaks: 'the API description declares no JWT (Bearer) authorization',
  },
  {
    id: 'AUTH-DOC-05:only-auth-endpoints',
    breaks: 'the API description lists only the login, refresh and current-user endpoints',
  },
  {
    id: 'AUTH-DOC-05:templated-literals',
    breaks:
      'the API description documents every path with its segments after /api as parameters (/api/{segment2}/{segment3}), naming no endpoint',
  },
  {
    id: 'AUTH-DOC-05:login-missing',
    breaks: 'the API description leaves out POST /api/auth/login',
  },
] as const satisfies readonly FaultDefinition[];
