/** Device profiles with their provisioning strategy (docs/reference/platform-facts.md §6). */
import { BadRequestError } from '../core/errors';
import type { ProvisionType } from '../core/model';
import { page, profileView } from './views';
import type { AdminRoute } from './route';

const PROVISION_TYPES: readonly ProvisionType[] = [
  'DISABLED',
  'ALLOW_CREATE_NEW_DEVICES',
  'CHECK_PRE_PROVISIONED_DEVICES',
];

interface ProfileBody {
  id?: { id?: string };
  name?: unknown;
  provisionType?: unknown;
  provisionDeviceKey?: unknown;
  firmwareId?: { id?: string } | null;
  profileData?: { provisionConfiguration?: { type?: unknown; provisionDeviceSecret?: unknown } };
}

export const profileRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/deviceProfile',
    summary: 'Create or save a device profile (provisioning strategy, key and secret; firmware)',
    async handler({ core, bodyJson }) {
      const body = (await bodyJson()) as ProfileBody | null;
      if (!body || typeof body !== 'object' || typeof body.name !== 'string' || !body.name.trim()) {
        throw new BadRequestError('Device profile name should be specified!');
      }
      const provisionType = (body.provisionType ??
        body.profileData?.provisionConfiguration?.type ??
        'DISABLED') as ProvisionType;
      if (!PROVISION_TYPES.includes(provisionType))
        throw new BadRequestError(`Invalid provisionType: ${String(provisionType)}`);
      const secret = body.profileData?.provisionConfiguration?.provisionDeviceSecret;
      if (
        provisionType !== 'DISABLED' &&
        (typeof body.provisionDeviceKey !== 'string' ||
          typeof secret !== 'string' ||
          !body.provisionDeviceKey ||
          !secret)
      ) {
        throw new BadRequestError('Provision device key and secret should be specified!');
      }
      const firmwareId = body.firmwareId?.id ?? null;
      const profile = core.saveProfile({
        id: body.id?.id,
        name: body.name,
        provisionType,
        provisionDeviceKey:
          typeof body.provisionDeviceKey === 'string' ? body.provisionDeviceKey : null,
        provisionDeviceSecret: typeof secret === 'string' ? secret : null,
        firmwareId,
      });
      return { json: profileView(profile) };
    },
  },
  {
    method: 'GET',
    path: '/api/deviceProfile/:profileId',
    summary: 'A device profile by id',
    handler({ core, params }) {
      return { json: profileView(core.profile(params.profileId)) };
    },
  },
  {
    method: 'GET',
    path: '/api/deviceProfileInfo/default',
    summary: 'The default device profile',
    handler: ({ core }) => ({ json: profileView(core.defaultProfile()) }),
  },
  {
    method: 'GET',
    path: '/api/deviceProfiles',
    summary: 'Device profiles, paged (pageSize, page, textSearch)',
    handler({ core, query }) {
      const search = (query.get('textSearch') ?? '').toLowerCase();
      const profiles = [...core.profiles.values()]
        .filter((profile) => profile.name.toLowerCase().includes(search))
        .map(profileView);
      return { json: page(profiles, query) };
    },
  },
  {
    method: 'DELETE',
    path: '/api/deviceProfile/:profileId',
    summary: 'Delete a device profile no device uses',
    handler({ core, params }) {
      core.deleteProfile(params.profileId);
    },
  },
];
