/**
 * The tenant profile (system administrator only), reduced to what the reference enforces:
 * maxDevices, the device limit a gateway connect runs into (docs/reference/interfaces.md Limits;
 * docs/reference/platform-facts.md §4.6). ThingsBoard's paths and shape: GET
 * /api/tenantProfileInfo/default, GET /api/tenantProfile/{id}, POST /api/tenantProfile with
 * profileData.configuration.maxDevices (0 = unlimited). The reference has one tenant and one tenant
 * profile.
 */
import { BadRequestError, NotFoundError } from '../core/errors';
import type { PlatformCore } from '../core/platform-core';
import type { AdminRoute } from './route';

const TENANT_PROFILE_ID = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';

function tenantProfileView(core: PlatformCore) {
  return {
    id: { entityType: 'TENANT_PROFILE', id: TENANT_PROFILE_ID },
    name: 'Default',
    description: 'Default tenant profile',
    isolatedTbRuleEngine: false,
    default: true,
    profileData: { configuration: { type: 'DEFAULT', maxDevices: core.maxDevices } },
  };
}

export const tenantProfileRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/api/tenantProfileInfo/default',
    summary: 'The default tenant profile (id and name)',
    handler: ({ core }) => {
      const { id, name } = tenantProfileView(core);
      return { json: { id, name } };
    },
  },
  {
    method: 'GET',
    path: '/api/tenantProfile/:tenantProfileId',
    summary: 'A tenant profile by id, with profileData.configuration.maxDevices',
    handler({ core, params }) {
      if (params.tenantProfileId !== TENANT_PROFILE_ID) throw new NotFoundError();
      return { json: tenantProfileView(core) };
    },
  },
  {
    method: 'POST',
    path: '/api/tenantProfile',
    summary: 'Save the tenant profile: profileData.configuration.maxDevices (0 = unlimited)',
    async handler({ core, bodyJson }) {
      const body = (await bodyJson()) as {
        id?: { id?: string };
        profileData?: { configuration?: { maxDevices?: unknown } };
      } | null;
      if (body?.id?.id !== TENANT_PROFILE_ID)
        throw new BadRequestError('The reference has one tenant profile: save it by its id');
      const maxDevices = body.profileData?.configuration?.maxDevices ?? 0;
      if (typeof maxDevices !== 'number' || !Number.isInteger(maxDevices) || maxDevices < 0)
        throw new BadRequestError('maxDevices is a non-negative integer');
      core.maxDevices = maxDevices;
      return { json: tenantProfileView(core) };
    },
  },
];
