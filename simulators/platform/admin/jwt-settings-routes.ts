/**
 * The JWT settings (system administrator only), as ThingsBoard keeps them since 3.4.2
 * (docs/reference/platform-facts.md §8: the lifetimes are persisted and edited in the UI): GET
 * /api/admin/jwtSettings and POST /api/admin/jwtSettings with tokenExpirationTime and
 * refreshTokenExpTime in seconds; tokens issued afterwards live that long. The reference keeps its
 * own signing key (a posted tokenSigningKey is ignored), and it accepts lifetimes from 1 s where
 * ThingsBoard's UI asks for 60 s, so that expiry scenarios can wait a lifetime out.
 */
import { BadRequestError } from '../core/errors';
import type { AdminRoute } from './route';

function seconds(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw new BadRequestError(`${name} must be a whole number of seconds >= 1`);
  return value;
}

export const jwtSettingsRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/api/admin/jwtSettings',
    summary: 'The JWT settings: token and refresh token lifetimes (seconds) and issuer',
    handler: ({ auth }) => ({ json: auth.settings() }),
  },
  {
    method: 'POST',
    path: '/api/admin/jwtSettings',
    summary: 'Change the token lifetimes; answers a new token pair for the caller',
    async handler({ auth, user, bodyJson }) {
      const body = (await bodyJson()) as {
        tokenExpirationTime?: unknown;
        refreshTokenExpTime?: unknown;
      } | null;
      auth.setLifetimes({
        accessSeconds: seconds(body?.tokenExpirationTime, 'tokenExpirationTime'),
        refreshSeconds: seconds(body?.refreshTokenExpTime, 'refreshTokenExpTime'),
      });
      return { json: await auth.pairFor(user) };
    },
  },
];
