/**
 * Login, refresh and the current user (docs/reference/interfaces.md "Administration REST API";
 * docs/reference/platform-facts.md §8).
 */
import { userView } from './views';
import type { User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import { type AdminRoute, routeWithSteps } from './route';

export const authRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/auth/login',
    summary: 'Exchange user name and password for a JWT access token and refresh token',
    async handler({ auth, bodyJson }) {
      const body = (await bodyJson()) as { username?: unknown; password?: unknown } | null;
      return { json: await auth.login(body?.username, body?.password) };
    },
  },
  {
    method: 'POST',
    path: '/api/auth/token',
    summary: 'Exchange a refresh token for a new token pair',
    async handler({ auth, bodyJson }) {
      const body = (await bodyJson()) as { refreshToken?: unknown } | null;
      return { json: await auth.refresh(body?.refreshToken) };
    },
  },
  routeWithSteps({
    method: 'GET',
    path: '/api/auth/user',
    summary: 'The current user',
    steps: { current: (_core: PlatformCore, user: User): User => user },
    faults: {
      'AUTH-02:another-user': { current: () => (core) => core.users[0]! },
    },
    handler: ({ core, user }, steps) => ({ json: userView(steps.current(core, user)) }),
  }),
];
