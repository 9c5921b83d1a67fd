/**
 * Deleting what a scenario journaled, by name or by id, for the kinds another party may create
 * (steps/world.ts).
 */
import { AdminApiError, type AdminClient } from '../../src/admin-client';

/**
 * What the platform, the REST connector or a provisioning request creates on a scenario's behalf.
 */
export type PlatformCreatedKind = 'device' | 'deviceProfile';

/**
 * Deletes the entity of that name if it exists; returns the id it had. `knownId`, the id a step
 * found it under, is deleted without a lookup; when that id is gone (the scenario deleted it, the
 * platform may have made another of that name since), the name is looked up as without it. A
 * delete by id that succeeds removed the entity holding the name (names are unique in a tenant).
 */
export async function removeNamed(
  admin: AdminClient,
  kind: PlatformCreatedKind,
  name: string,
  knownId?: string,
): Promise<string | undefined> {
  if (knownId !== undefined) {
    try {
      await removeById(admin, kind, knownId);
      return knownId;
    } catch (error) {
      if (!notFound(error)) throw error;
    }
  }
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

/** The platform's answer that an id names nothing (404; 400 "... not found" on some versions). */
function notFound(error: unknown): boolean {
  return (
    error instanceof AdminApiError &&
    (error.status === 404 || (error.status === 400 && /not found/i.test(error.serverMessage)))
  );
}
