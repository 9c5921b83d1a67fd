/**
 * What the core's helpers (firmware updates, provisioning) need of the platform core, which passes
 * itself: a port of its own so that those helpers and platform-core.ts do not import each other.
 */
import type { TypedValue } from '../../../lib/kv/values';
import type { AttributeScope, Device, DeviceProfile } from './model';
import type { TelemetryRecord } from './time-series';

/**
 * A device to create: the name, the profile by id or name (else the default one), optional token
 * and details.
 */
export interface NewDevice {
  name: string;
  profileId?: string;
  profileName?: string;
  label?: string | null;
  token?: string;
  additionalInfo?: Record<string, unknown> | null;
}

export interface DeviceStore {
  profileByProvisionKey(key: string): DeviceProfile | undefined;
  deviceNamed(name: string): Device | undefined;
  createDevice(input: NewDevice): Device;
  saveTelemetry(device: Device, records: TelemetryRecord[]): void;
  saveAttributes(device: Device, scope: AttributeScope, values: Array<[string, TypedValue]>): void;
  deleteAttributes(device: Device, scope: AttributeScope, keys: string[]): void;
}
