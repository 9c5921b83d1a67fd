/**
 * Device claiming (docs/reference/platform-facts.md §7): the device registers a claim, a customer
 * user claims with the secret key. Both operations are written as named steps (CLAIM_STEPS); their
 * planted faults (faults/catalogue/http-device-api.ts, mqtt-gateway-api.ts) are wrappers of those
 * steps (CLAIM_FAULTS, applied by faults/steps.ts), so the operations below hold only behaviour,
 * for HTTP and MQTT alike.
 */
import type { Device } from './model';
import { type StepFaults, withFaults } from '../../../faults/steps';

export type ClaimResult = 'SUCCESS' | 'CLAIMED' | 'FAILURE';

/** The named steps of registering and claiming. */
const CLAIM_STEPS = {
  /** Whether the device takes a registration now: only while it has no customer. */
  registers: (device: Device, _durationMs: number | undefined): boolean => !device.customerId,
  /** The window: durationMs when given (> 0), else the platform's device.claim.duration. */
  duration: (durationMs: number | undefined, defaultDurationMs: number): number =>
    durationMs !== undefined && durationMs > 0 ? durationMs : defaultDurationMs,
  /** The secret key registered when the device sent none. */
  missingSecret: (): string => '',
  /** Whether the customer's key opens the registration. */
  secretMatches: (registration: Device['claim'], secretKey: string): boolean =>
    registration?.secretKey === secretKey,
  /** Whether a failed attempt ends the registration (the mode's choice, given). */
  failureEnds: (modeSays: boolean): boolean => modeSays,
};

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const given = (durationMs: number | undefined) => durationMs !== undefined && durationMs > 0;

/** The planted faults of claiming: each wraps one step (faults/steps.ts). */
const CLAIM_FAULTS: StepFaults<typeof CLAIM_STEPS> = {
  'HTTP-CLAIM-01:not-registered': { registers: () => () => false },
  'HTTP-CLAIM-03:short-claim-not-registered': {
    registers: (step) => (device, durationMs) =>
      given(durationMs) && durationMs! < 1000 ? false : step(device, durationMs),
  },
  'HTTP-CLAIM-03:duration-ignored': {
    duration: (step) => (_durationMs, defaultDurationMs) => step(undefined, defaultDurationMs),
  },
  'HTTP-CLAIM-03:duration-as-seconds': {
    duration: (step) => (durationMs, defaultDurationMs) =>
      step(given(durationMs) ? durationMs! * 1000 : durationMs, defaultDurationMs),
  },
  'HTTP-CLAIM-04:ten-year-default': {
    duration: (step) => (durationMs) => step(durationMs, TEN_YEARS_MS),
  },
  'HTTP-CLAIM-04:no-default': { duration: (step) => (durationMs) => step(durationMs, 0) },
  'HTTP-CLAIM-02:missing-secret-is-null': { missingSecret: () => () => 'null' },
  'HTTP-CLAIM-01:secret-not-checked': { secretMatches: () => () => true },
  'GW-CLAIM-01:wrong-key-ends-registration': { failureEnds: () => () => true },
};

/**
 * Device side: stores {secretKey (default ""), expiry = now + durationMs} only when the device has
 * no customer, put-if-absent (a claim sent inside an unexpired window does not refresh it).
 * durationMs absent or ≤ 0 uses the platform's device.claim.duration.
 */
export function registerClaim(
  device: Device,
  secretKey: string | undefined,
  durationMs: number | undefined,
  defaultDurationMs: number,
): void {
  const steps = withFaults(CLAIM_STEPS, CLAIM_FAULTS);
  if (!steps.registers(device, durationMs)) return;
  const now = Date.now();
  if (device.claim && device.claim.expiresAt > now) return;
  const duration = steps.duration(durationMs, defaultDurationMs);
  device.claim = { secretKey: secretKey ?? steps.missingSecret(), expiresAt: now + duration };
}

/**
 * Customer side: CLAIMED when already owned; FAILURE when there is no registration, it expired, or
 * the key differs. A failed attempt leaves the registration as it was, unless
 * `failureEndsRegistration` (ThingsBoard's quirk: it evicts the registration,
 * ClaimDevicesServiceImpl.java:142-147).
 */
export function claimDevice(
  device: Device,
  customerId: string,
  secretKey: string,
  failureEndsRegistration = false,
): ClaimResult {
  if (device.customerId) return 'CLAIMED';
  const steps = withFaults(CLAIM_STEPS, CLAIM_FAULTS);
  const registration = device.claim;
  if (
    !registration ||
    registration.expiresAt <= Date.now() ||
    !steps.secretMatches(registration, secretKey)
  ) {
    if (steps.failureEnds(failureEndsRegistration)) device.claim = null;
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
