/**
 * Client of the administration REST API, with ThingsBoard's paths and shapes
 * (docs/reference/platform-facts.md §6–§8, §12), so the same steps read and drive the embedded
 * reference and a real platform. One small module per concern; this class is the one handle steps
 * hold. Reads come back typed (lib/kv/values.ts); failures are AdminApiError.
 */
import {
  AdminSession,
  type AdminCredentials,
  type AdminResponse,
  type SessionOptions,
} from './auth';
import * as devices from './devices';
import * as telemetry from './telemetry';
import * as attributes from './attributes';
import * as rpc from './rpc';
import * as profiles from './profiles';
import * as claim from './claim';
import * as firmware from './firmware';
import type { DeviceRecord } from './records';
import type { AttributeScope, StoredAttribute } from './attributes';
import type { StoredValue } from './telemetry';

export { AdminApiError } from './errors';
export { adminRequest } from './auth';
export type { AdminCredentials, AdminResponse, SessionOptions, Method } from './auth';
export type { DeviceRecord } from './records';
export type { NewDevice } from './devices';
export type { StoredValue } from './telemetry';
export type { AttributeScope, StoredAttribute } from './attributes';
export type { ProvisionStrategy } from './profiles';

export class AdminClient {
  private constructor(readonly session: AdminSession) {}

  /** Logs in with user name and password (POST /api/auth/login). */
  static async login(
    adminUrl: string,
    credentials: AdminCredentials,
    options: SessionOptions = {},
  ): Promise<AdminClient> {
    return new AdminClient(await AdminSession.login(adminUrl, credentials, options));
  }

  close(): Promise<void> {
    return this.session.close();
  }

  // devices
  createDevice(name: string, options?: devices.NewDevice): Promise<DeviceRecord> {
    return devices.createDevice(this.session, name, options);
  }
  findDeviceByName(name: string): Promise<DeviceRecord | undefined> {
    return devices.findDeviceByName(this.session, name);
  }
  getDevice(id: string): Promise<DeviceRecord> {
    return devices.getDevice(this.session, id);
  }
  saveDevice(raw: Record<string, unknown>): Promise<DeviceRecord> {
    return devices.saveDevice(this.session, raw);
  }
  /** The device's access token. */
  getDeviceCredentials(id: string): Promise<string> {
    return devices.getDeviceCredentials(this.session, id);
  }
  deleteDevice(id: string): Promise<void> {
    return devices.deleteDevice(this.session, id);
  }
  listDevices(page: number, textSearch?: string, pageSize?: number): Promise<devices.DevicePage> {
    return devices.listDevices(this.session, page, textSearch, pageSize);
  }

  // telemetry and attributes
  latestTelemetry(deviceId: string, keys?: readonly string[]): Promise<Map<string, StoredValue>> {
    return telemetry.latestTelemetry(this.session, deviceId, keys);
  }
  telemetryHistory(
    deviceId: string,
    keys: readonly string[],
    startTs: number,
    endTs: number,
    limit?: number,
  ): Promise<Map<string, StoredValue[]>> {
    return telemetry.telemetryHistory(this.session, deviceId, keys, startTs, endTs, limit);
  }
  telemetryKeys(deviceId: string): Promise<string[]> {
    return telemetry.telemetryKeys(this.session, deviceId);
  }
  attributes(
    deviceId: string,
    scope: AttributeScope,
    keys?: readonly string[],
  ): Promise<Map<string, StoredAttribute>> {
    return attributes.attributes(this.session, deviceId, scope, keys);
  }
  saveAttributes(
    deviceId: string,
    scope: 'SHARED_SCOPE' | 'SERVER_SCOPE',
    values: Record<string, unknown> | string,
  ): Promise<void> {
    return attributes.saveAttributes(this.session, deviceId, scope, values);
  }
  deleteAttributes(
    deviceId: string,
    scope: AttributeScope,
    keys: readonly string[],
  ): Promise<void> {
    return attributes.deleteAttributes(this.session, deviceId, scope, keys);
  }

  // server-side RPC
  rpc(deviceId: string, kind: 'oneway' | 'twoway', call: rpc.RpcCall): Promise<AdminResponse> {
    return rpc.rpc(this.session, deviceId, kind, call);
  }
  /** A persistent RPC: its id once the platform has stored and queued it. */
  sendPersistentRpc(
    deviceId: string,
    kind: 'oneway' | 'twoway',
    call: rpc.RpcCall,
  ): Promise<string> {
    return rpc.sendPersistentRpc(this.session, deviceId, kind, call);
  }
  getPersistentRpc(rpcId: string): Promise<rpc.PersistentRpc> {
    return rpc.getPersistentRpc(this.session, rpcId);
  }
  persistentRpcsOfDevice(
    deviceId: string,
    options?: Parameters<typeof rpc.persistentRpcsOfDevice>[2],
  ): Promise<rpc.PersistentRpcPage> {
    return rpc.persistentRpcsOfDevice(this.session, deviceId, options);
  }

  // device profiles
  createDeviceProfile(profile: profiles.NewDeviceProfile): Promise<{ id: string; name: string }> {
    return profiles.createDeviceProfile(this.session, profile);
  }
  findDeviceProfileByName(name: string): Promise<{ id: string; name: string } | undefined> {
    return profiles.findDeviceProfileByName(this.session, name);
  }

  /** The default tenant profile (system administrator only). */
  defaultTenantProfile(): Promise<Record<string, unknown>> {
    return profiles.defaultTenantProfile(this.session);
  }

  saveTenantProfile(profile: Record<string, unknown>): Promise<void> {
    return profiles.saveTenantProfile(this.session, profile);
  }

  deleteDeviceProfile(id: string): Promise<void> {
    return profiles.deleteDeviceProfile(this.session, id);
  }

  // claiming (on a client logged in as a customer user)
  claimDevice(deviceName: string, secretKey: string): Promise<AdminResponse> {
    return claim.claimDevice(this.session, deviceName, secretKey);
  }
  reclaimDevice(deviceName: string): Promise<AdminResponse> {
    return claim.reclaimDevice(this.session, deviceName);
  }

  // firmware
  createFirmware(input: firmware.NewFirmware): Promise<firmware.FirmwarePackage> {
    return firmware.createFirmware(this.session, input);
  }
  deleteFirmware(id: string): Promise<void> {
    return firmware.deleteFirmware(this.session, id);
  }
}
