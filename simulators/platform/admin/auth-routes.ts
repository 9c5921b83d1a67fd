/** Login, refresh and the current user (docs/reference/interfaces.md "Administration REST API"; docs/reference/platform-facts.md §8). */
import { faultActive } from '../../../faults';
import { userView } from './views';
import type { AdminRoute } from './route';

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
  {
    method: 'GET',
    path: '/api/auth/user',
    summary: 'The current user',
    handler: ({ core, user }) => ({
      json: userView(faultActive('AUTH-02:another-user') ? core.users[0] : user),
    }),
  },
];
