/**
 * Dynamic provisioning (docs/reference/platform-facts.md §6). The outcome is always a status, never
 * an error: SUCCESS with the device's credentials, NOT_FOUND (no profile with that key and secret,
 * or provisioning disabled) or FAILURE (blank name; ALLOW_CREATE_NEW_DEVICES and the device exists;
 * CHECK_PRE_PROVISIONED_DEVICES and the device is missing, in another profile, or already
 * provisioned). Written as named steps (PROVISION_STEPS) whose planted faults
 * (faults/catalogue/http-device-api.ts) are wrappers (PROVISION_FAULTS, faults/steps.ts).
 */
import type { Device } from './model';
import type { DeviceStore } from './device-store';
import { type StepFaults, withFaults } from '../../../faults/steps';
import type { DeviceProfile } from './model';
import { randomToken } from './tokens';

export interface ProvisionRequest {
  deviceName: string;
  provisionDeviceKey: string;
  provisionDeviceSecret: string;
  /**
   * The access token to give a new device (credentialsType ACCESS_TOKEN); absent = a random one.
   */
  token?: string;
  gateway?: boolean;
}

export type ProvisionOutcome =
  | { status: 'SUCCESS'; device: Device }
  | { status: 'NOT_FOUND' | 'FAILURE' };

/** The named steps of provisioning. */
const PROVISION_STEPS = {
  /** Whether the request's secret is its profile's. */
  secretMatches: (profile: DeviceProfile | undefined, secret: string): boolean =>
    profile?.provisionDeviceSecret === secret,
  /** Whether the profile refuses provisioning. */
  disabled: (profile: DeviceProfile | undefined): boolean => profile?.provisionType === 'DISABLED',
  /** The answer to a request no profile accepts. */
  notFound: (
    _core: DeviceStore,
    _request: ProvisionRequest,
    _profile: DeviceProfile | undefined,
  ): ProvisionOutcome => ({ status: 'NOT_FOUND' }),
  /** ALLOW_CREATE_NEW_DEVICES: a new device, marked provisioned. */
  create: (
    core: DeviceStore,
    request: ProvisionRequest,
    profile: DeviceProfile,
  ): ProvisionOutcome => {
    let device: Device;
    try {
      device = core.createDevice({
        name: request.deviceName,
        profileId: profile.id,
        token: request.token,
        additionalInfo: request.gateway ? { gateway: true } : null,
      });
    } catch {
      return { status: 'FAILURE' }; // e.g. the requested token belongs to another device
    }
    markProvisioned(core, device);
    return { status: 'SUCCESS', device };
  },
  /** CHECK_PRE_PROVISIONED_DEVICES: the existing device of the profile, once. */
  preProvisioned: (
    core: DeviceStore,
    existing: Device | undefined,
    profile: DeviceProfile,
  ): ProvisionOutcome => {
    if (
      !existing ||
      existing.profileId !== profile.id ||
      existing.attributes.SERVER_SCOPE.has('provisionState')
    )
      return { status: 'FAILURE' };
    markProvisioned(core, existing);
    return { status: 'SUCCESS', device: existing };
  },
};

function markProvisioned(core: DeviceStore, device: Device): void {
  core.saveAttributes(device, 'SERVER_SCOPE', [
    ['provisionState', { type: 'STRING', value: 'provisioned' }],
  ]);
}

/** A made-up token, whatever was or was not created. */
const madeUp = (): ProvisionOutcome => ({
  status: 'SUCCESS',
  device: { token: randomToken() } as Device,
});
/** A success answered with a made-up token instead. */
const otherCredentials = (outcome: ProvisionOutcome) =>
  outcome.status === 'SUCCESS' ? madeUp() : outcome;

/** The planted faults of provisioning, wrappers of its steps. */
const PROVISION_FAULTS: StepFaults<typeof PROVISION_STEPS> = {
  'HTTP-PROV-03:secret-not-checked': { secretMatches: () => () => true },
  'HTTP-PROV-03:disabled-ignored': { disabled: () => () => false },
  'HTTP-PROV-03:refused-created-late': {
    notFound: (step) => (core, request, profile) => {
      // a refusal for a wrong secret that creates the device all the same, a moment later
      if (profile && profile.provisionDeviceSecret !== request.provisionDeviceSecret)
        setTimeout(() => {
          try {
            core.createDevice({ name: request.deviceName, profileId: profile.id });
          } catch {
            // the name is taken: nothing to create
          }
        }, 20);
      return step(core, request, profile);
    },
  },
  'HTTP-PROV-01:device-not-created': { create: () => () => madeUp() },
  'HTTP-PROV-01:other-credentials': {
    create: (step) => (core, request, profile) => otherCredentials(step(core, request, profile)),
  },
  'HTTP-PROV-02:pre-provisioned-refused': { preProvisioned: () => () => ({ status: 'FAILURE' }) },
  'HTTP-PROV-02:other-credentials': {
    preProvisioned: (step) => (core, existing, profile) =>
      otherCredentials(step(core, existing, profile)),
  },
};

export function provisionDevice(core: DeviceStore, request: ProvisionRequest): ProvisionOutcome {
  const steps = withFaults(PROVISION_STEPS, PROVISION_FAULTS);
  const { deviceName, provisionDeviceKey: key, provisionDeviceSecret: secret } = request;
  if (!key || !secret) return { status: 'NOT_FOUND' };
  const profile = core.profileByProvisionKey(key);
  if (
    !profile?.provisionDeviceSecret ||
    !steps.secretMatches(profile, secret) ||
    steps.disabled(profile)
  )
    return steps.notFound(core, request, profile);
  if (!deviceName.trim()) return { status: 'FAILURE' };
  const existing = core.deviceNamed(deviceName);
  if (profile.provisionType === 'CHECK_PRE_PROVISIONED_DEVICES')
    return steps.preProvisioned(core, existing, profile);
  if (existing) return { status: 'FAILURE' };
  return steps.create(core, request, profile);
}
