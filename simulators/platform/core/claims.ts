/** Device claiming (platform-facts.md §7): the device registers a claim, a customer user claims with the secret key. */
import type { Device } from './model';

export type ClaimResult = 'SUCCESS' | 'CLAIMED' | 'FAILURE';

/**
 * Device side: stores {secretKey (default ""), expiry = now + durationMs} only when the device has no customer,
 * put-if-absent (a claim sent inside an unexpired window does not refresh it). durationMs absent or ≤ 0 uses the
 * platform's device.claim.duration.
 */
export function registerClaim(
  device: Device,
  secretKey: string | undefined,
  durationMs: number | undefined,
  defaultDurationMs: number,
): void {
  if (device.customerId) return;
  const now = Date.now();
  if (device.claim && device.claim.expiresAt > now) return;
  const duration = durationMs !== undefined && durationMs > 0 ? durationMs : defaultDurationMs;
  device.claim = { secretKey: secretKey ?? '', expiresAt: now + duration };
}

/** Customer side: CLAIMED when already owned; FAILURE when there is no registration, it expired, or the key differs. */
export function claimDevice(device: Device, customerId: string, secretKey: string): ClaimResult {
  if (device.customerId) return 'CLAIMED';
  const registration = device.claim;
  if (!registration || registration.expiresAt <= Date.now() || registration.secretKey !== secretKey)
    return 'FAILURE';
  device.customerId = customerId;
  device.claim = null;
  return 'SUCCESS';
}

/** Reclaim: the device leaves its customer. */
export function reclaimDevice(device: Device): void {
  device.customerId = null;
  device.claim = null;
}
