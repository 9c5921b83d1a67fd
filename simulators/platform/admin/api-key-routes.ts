/**
 * API keys (since platform 4.3; docs/reference/platform-facts.md §8): the value is shown once, at
 * creation.
 */
import { BadRequestError, NotFoundError } from '../core/errors';
import type { ApiKey, User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import { checkUser } from './permissions';
import { apiKeyView, page } from './views';
import { type AdminRoute, routeWithSteps } from './route';

/** A key the caller may change: its owner must be a user the caller may write (permissions.ts). */
function writableKey(core: PlatformCore, user: User, id: string) {
  const key = core.apiKeys.get(id);
  if (!key) throw new NotFoundError();
  const owner = core.users.find((candidate) => candidate.id === key.userId);
  if (!owner) throw new NotFoundError();
  checkUser(user, owner, 'WRITE');
  return key;
}

export const apiKeyRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/apiKey',
    summary: 'Create an API key for a user (the answer holds its value, shown this once)',
    async handler({ core, user, bodyJson }) {
      const body = (await bodyJson()) as {
        userId?: { id?: string };
        description?: unknown;
        expirationTime?: unknown;
        enabled?: unknown;
      } | null;
      const userId = body?.userId?.id ?? user.id;
      const owner = core.users.find((candidate) => candidate.id === userId);
      if (!owner) throw new BadRequestError('User is not found!');
      checkUser(user, owner, 'WRITE');
      const expirationTime = typeof body?.expirationTime === 'number' ? body.expirationTime : 0;
      const key = core.apiKeys.create(
        userId,
        typeof body?.description === 'string' ? body.description : '',
        expirationTime,
        // a key is enabled only when the body says so: ThingsBoard's ApiKeyInfo.enabled is a
        // primitive boolean, false when absent (common/data/.../pat/ApiKeyInfo.java:57; measured on
        // 4.3.1.3: 401 with such a key)
        body?.enabled === true,
      );
      return { json: apiKeyView(key, true) };
    },
  },
  {
    method: 'GET',
    path: '/api/apiKeys/:userId',
    summary: "A user's API keys, paged (values are not shown)",
    handler({ core, user, params, query }) {
      const owner = core.users.find((candidate) => candidate.id === params.userId);
      if (!owner) throw new NotFoundError();
      checkUser(user, owner, 'READ');
      const keys = [...core.apiKeys.values()]
        .filter((key) => key.userId === params.userId)
        .map((key) => apiKeyView(key, false));
      return { json: page(keys, query) };
    },
  },
  {
    method: 'PUT',
    path: '/api/apiKey/:keyId/description',
    summary: 'Change the description of an API key',
    async handler({ core, user, params, bodyText }) {
      const key = writableKey(core, user, params.keyId);
      const text = await bodyText();
      try {
        const parsed = JSON.parse(text) as unknown;
        key.description = typeof parsed === 'string' ? parsed : text;
      } catch {
        key.description = text;
      }
      return { json: apiKeyView(key, false) };
    },
  },
  routeWithSteps({
    method: 'PUT',
    path: '/api/apiKey/:keyId/enabled/:enabled',
    summary: 'Enable or disable an API key',
    steps: {
      enable: (key: ApiKey, enabled: boolean): void => {
        key.enabled = enabled;
      },
    },
    faults: {
      'AUTH-KEY-02:enable-ignored': {
        enable: (step) => (key, enabled) => (enabled ? undefined : step(key, enabled)),
      },
    },
    handler({ core, user, params }, steps) {
      if (params.enabled !== 'true' && params.enabled !== 'false')
        throw new BadRequestError('enabled must be true or false');
      const key = writableKey(core, user, params.keyId);
      steps.enable(key, params.enabled === 'true');
      return { json: apiKeyView(key, false) };
    },
  }),
  routeWithSteps({
    method: 'DELETE',
    path: '/api/apiKey/:keyId',
    summary: 'Delete (revoke) an API key',
    steps: { revoke: (core: PlatformCore, keyId: string): unknown => core.apiKeys.delete(keyId) },
    faults: {
      'AUTH-KEY-04:delete-keeps-key': { revoke: () => () => undefined },
    },
    handler({ core, user, params }, steps) {
      writableKey(core, user, params.keyId);
      steps.revoke(core, params.keyId);
    },
  }),
];
