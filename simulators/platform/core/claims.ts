/** Device claiming (docs/reference/platform-facts.md §7): the device registers a claim, a customer user claims with the secret key. */
import type { Device } from './model';
import { faultActive } from '../../../faults';

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
  if (device.customerId || faultActive('HTTP-CLAIM-01:not-registered')) return;
  const short = durationMs !== undefined && durationMs > 0 && durationMs < 1000;
  if (short && faultActive('HTTP-CLAIM-03:short-claim-not-registered')) return;
  const now = Date.now();
  if (device.claim && device.claim.expiresAt > now) return;
  const given = durationMs !== undefined && durationMs > 0;
  const duration =
    given && !faultActive('HTTP-CLAIM-03:duration-ignored')
      ? durationMs * (faultActive('HTTP-CLAIM-03:duration-as-seconds') ? 1000 : 1)
      : faultyDefaultDuration(defaultDurationMs);
  const missingSecret = faultActive('HTTP-CLAIM-02:missing-secret-is-null') ? 'null' : '';
  device.claim = { secretKey: secretKey ?? missingSecret, expiresAt: now + duration };
}

/** device.claim.duration, unless a planted fault (faults/) makes it ten years or nothing. */
function faultyDefaultDuration(defaultDurationMs: number): number {
  if (faultActive('HTTP-CLAIM-04:ten-year-default')) return 10 * 365 * 24 * 3600 * 1000;
  return faultActive('HTTP-CLAIM-04:no-default') ? 0 : defaultDurationMs;
}

/**
 * Customer side: CLAIMED when already owned; FAILURE when there is no registration, it expired, or the key differs.
 * A failed attempt leaves the registration as it was, unless `failureEndsRegistration` (ThingsBoard's quirk: it
 * evicts the registration, ClaimDevicesServiceImpl.java:142-147).
 */
export function claimDevice(
  device: Device,
  customerId: string,
  secretKey: string,
  failureEndsRegistration = false,
): ClaimResult {
  if (device.customerId) return 'CLAIMED';
  const registration = device.claim;
  const secretMatches =
    registration?.secretKey === secretKey || faultActive('HTTP-CLAIM-01:secret-not-checked');
  if (!registration || registration.expiresAt <= Date.now() || !secretMatches) {
    if (failureEndsRegistration) device.claim = null;
    return 'FAILURE';
  }
  device.customerId = customerId;
  device.claim = null;
  return 'SUCCESS';
}

/** Reclaim: the device leaves its customer. */
export function reclaimDevice(device: Device): void {
  device.customerId = null;
  device.claim = null;
}
