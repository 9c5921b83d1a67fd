/** Device profiles with a provisioning strategy (platform-facts.md §6 "Creating a provisioning-enabled profile"). */
import type { AdminSession } from './auth';
import { idOf } from './records';
import { toPlain } from '../kv/values';

export type ProvisionStrategy = 'DISABLED' | 'ALLOW_CREATE_NEW_DEVICES' | 'CHECK_PRE_PROVISIONED_DEVICES';

export interface NewDeviceProfile {
  name: string;
  provisionType: ProvisionStrategy;
  provisionDeviceKey?: string;
  provisionDeviceSecret?: string;
}

export async function createDeviceProfile(session: AdminSession, profile: NewDeviceProfile): Promise<{ id: string; name: string }> {
  const body = {
    name: profile.name,
    type: 'DEFAULT',
    transportType: 'DEFAULT',
    provisionType: profile.provisionType,
    provisionDeviceKey: profile.provisionDeviceKey ?? null,
    profileData: {
      configuration: { type: 'DEFAULT' },
      transportConfiguration: { type: 'DEFAULT' },
      provisionConfiguration: { type: profile.provisionType, provisionDeviceSecret: profile.provisionDeviceSecret ?? null },
    },
  };
  const saved = (await session.call('POST', '/api/deviceProfile', body)).json;
  return { id: idOf(saved, 'device profile'), name: String((toPlain(saved) as { name?: unknown }).name) };
}

export async function deleteDeviceProfile(session: AdminSession, id: string): Promise<void> {
  await session.call('DELETE', `/api/deviceProfile/${id}`);
}
