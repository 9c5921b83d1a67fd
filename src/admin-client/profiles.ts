/**
 * Device profiles with a provisioning strategy (docs/reference/platform-facts.md §6 "Creating a
 * provisioning-enabled profile").
 */
import type { AdminSession } from './auth';
import { idOf } from './records';
import { toPlain } from '../../lib/kv/values';

export type ProvisionStrategy =
  | 'DISABLED'
  | 'ALLOW_CREATE_NEW_DEVICES'
  | 'CHECK_PRE_PROVISIONED_DEVICES';

export interface NewDeviceProfile {
  name: string;
  provisionType: ProvisionStrategy;
  provisionDeviceKey?: string;
  provisionDeviceSecret?: string;
}

export async function createDeviceProfile(
  session: AdminSession,
  profile: NewDeviceProfile,
): Promise<{ id: string; name: string }> {
  const body = {
    name: profile.name,
    type: 'DEFAULT',
    transportType: 'DEFAULT',
    provisionType: profile.provisionType,
    provisionDeviceKey: profile.provisionDeviceKey ?? null,
    profileData: {
      configuration: { type: 'DEFAULT' },
      transportConfiguration: { type: 'DEFAULT' },
      provisionConfiguration: {
        type: profile.provisionType,
        provisionDeviceSecret: profile.provisionDeviceSecret ?? null,
      },
    },
  };
  const saved = (await session.call('POST', '/api/deviceProfile', body)).json;
  return {
    id: idOf(saved, 'device profile'),
    name: String((toPlain(saved) as { name?: unknown }).name),
  };
}

export async function deleteDeviceProfile(session: AdminSession, id: string): Promise<void> {
  await session.call('DELETE', `/api/deviceProfile/${id}`);
}

/**
 * The device profile of that exact name (GET /api/deviceProfiles with textSearch), or undefined.
 */
export async function findDeviceProfileByName(
  session: AdminSession,
  name: string,
): Promise<{ id: string; name: string } | undefined> {
  const answer = (
    await session.call(
      'GET',
      `/api/deviceProfiles?pageSize=100&page=0&textSearch=${encodeURIComponent(name)}`,
    )
  ).json;
  const data =
    (toPlain(answer) as { data?: Array<{ id?: { id?: string }; name?: string }> }).data ?? [];
  const found = data.find((profile) => profile.name === name);
  return found?.id?.id ? { id: found.id.id, name } : undefined;
}

/**
 * The default tenant profile as the platform holds it (system administrator; GET
 * /api/tenantProfile/{id}).
 */
export async function defaultTenantProfile(
  session: AdminSession,
): Promise<Record<string, unknown>> {
  const info = (await session.call('GET', '/api/tenantProfileInfo/default')).json;
  const id = idOf(info, 'tenant profile');
  return toPlain((await session.call('GET', `/api/tenantProfile/${id}`)).json) as Record<
    string,
    unknown
  >;
}

/** Saves a tenant profile (system administrator; POST /api/tenantProfile). */
export async function saveTenantProfile(
  session: AdminSession,
  profile: Record<string, unknown>,
): Promise<void> {
  await session.call('POST', '/api/tenantProfile', profile);
}
