/**
 * Deleting what a scenario journaled, by name or by id, for the kinds another party may create
 * (steps/world.ts).
 */
import type { AdminClient } from '../../src/admin-client';

/**
 * What the platform, the REST connector or a provisioning request creates on a scenario's behalf.
 */
export type PlatformCreatedKind = 'device' | 'deviceProfile';

/** Deletes the entity of that name if it exists; returns the id it had. */
export async function removeNamed(
  admin: AdminClient,
  kind: PlatformCreatedKind,
  name: string,
): Promise<string | undefined> {
  const found =
    kind === 'device'
      ? await admin.findDeviceByName(name)
      : await admin.findDeviceProfileByName(name);
  if (found) await removeById(admin, kind, found.id);
  return found?.id;
}

export function removeById(
  admin: AdminClient,
  kind: PlatformCreatedKind,
  id: string,
): Promise<void> {
  return kind === 'device' ? admin.deleteDevice(id) : admin.deleteDeviceProfile(id);
}
