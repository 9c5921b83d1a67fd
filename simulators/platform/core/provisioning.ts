/**
 * Dynamic provisioning (docs/reference/platform-facts.md §6). The outcome is always a status, never an error: SUCCESS with the
 * device's credentials, NOT_FOUND (no profile with that key and secret, or provisioning disabled) or FAILURE
 * (blank name; ALLOW_CREATE_NEW_DEVICES and the device exists; CHECK_PRE_PROVISIONED_DEVICES and the device is
 * missing, in another profile, or already provisioned).
 */
import type { Device } from './model';
import type { DeviceStore } from './device-store';
import { faultActive } from '../../../faults';
import { randomToken } from './tokens';

export interface ProvisionRequest {
  deviceName: string;
  provisionDeviceKey: string;
  provisionDeviceSecret: string;
  /** The access token to give a new device (credentialsType ACCESS_TOKEN); absent = a random one. */
  token?: string;
  gateway?: boolean;
}

export type ProvisionOutcome =
  | { status: 'SUCCESS'; device: Device }
  | { status: 'NOT_FOUND' | 'FAILURE' };

export function provisionDevice(core: DeviceStore, request: ProvisionRequest): ProvisionOutcome {
  const { deviceName, provisionDeviceKey: key, provisionDeviceSecret: secret } = request;
  if (!key || !secret) return { status: 'NOT_FOUND' };
  const profile = core.profileByProvisionKey(key);
  const secretMatches =
    profile?.provisionDeviceSecret === secret || faultActive('HTTP-PROV-03:secret-not-checked');
  const disabled =
    profile?.provisionType === 'DISABLED' && !faultActive('HTTP-PROV-03:disabled-ignored');
  if (!profile?.provisionDeviceSecret || !secretMatches || disabled) {
    if (profile && !secretMatches && faultActive('HTTP-PROV-03:refused-created-late'))
      setTimeout(() => {
        try {
          core.createDevice({ name: deviceName, profileId: profile.id });
        } catch {
          // the name is taken: nothing to create
        }
      }, 20);
    return { status: 'NOT_FOUND' };
  }
  if (!deviceName.trim()) return { status: 'FAILURE' };
  const existing = core.deviceNamed(deviceName);
  let device: Device;
  // a planted fault (faults/) may answer a made-up token, whatever was or was not created
  const madeUp = () => ({ status: 'SUCCESS', device: { token: randomToken() } as Device }) as const;
  if (profile.provisionType !== 'CHECK_PRE_PROVISIONED_DEVICES') {
    if (existing) return { status: 'FAILURE' };
    if (faultActive('HTTP-PROV-01:device-not-created')) return madeUp();
    try {
      device = core.createDevice({
        name: deviceName,
        profileId: profile.id,
        token: request.token,
        additionalInfo: request.gateway ? { gateway: true } : null,
      });
    } catch {
      return { status: 'FAILURE' }; // e.g. the requested token belongs to another device
    }
    if (faultActive('HTTP-PROV-01:other-credentials')) return madeUp();
  } else {
    if (
      !existing ||
      existing.profileId !== profile.id ||
      existing.attributes.SERVER_SCOPE.has('provisionState') ||
      faultActive('HTTP-PROV-02:pre-provisioned-refused')
    )
      return { status: 'FAILURE' };
    device = existing;
  }
  core.saveAttributes(device, 'SERVER_SCOPE', [
    ['provisionState', { type: 'STRING', value: 'provisioned' }],
  ]);
  if (existing && faultActive('HTTP-PROV-02:other-credentials')) return madeUp();
  return { status: 'SUCCESS', device };
}
