/**
 * Claiming as a customer user (docs/reference/platform-facts.md §7): `POST
 * /api/customer/device/{deviceName}/claim` with `{"secretKey"}`. The answer is returned whatever
 * its status: 200 `{"response":"SUCCESS",...}`, 400 "FAILURE"...
 */
import type { AdminResponse, AdminSession } from './auth';

export function claimDevice(
  session: AdminSession,
  deviceName: string,
  secretKey: string,
): Promise<AdminResponse> {
  return session.raw('POST', `/api/customer/device/${encodeURIComponent(deviceName)}/claim`, {
    secretKey,
  });
}

/** Gives a claimed device back (unassigns it from the customer). */
export function reclaimDevice(session: AdminSession, deviceName: string): Promise<AdminResponse> {
  return session.raw('DELETE', `/api/customer/device/${encodeURIComponent(deviceName)}/claim`);
}
