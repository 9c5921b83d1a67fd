/**
 * The reference platform's state and rules, with no HTTP in it: transports (the HTTP device API now, MQTT later)
 * and the admin API call these operations and subscribe to device events.
 */
import { EventEmitter } from 'node:events';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { TypedValue } from '../../../src/kv/values';
import { BadRequestError, NotFoundError } from './errors';
import type {
  ApiKey,
  Attribute,
  AttributeScope,
  Device,
  DeviceProfile,
  OtaPackage,
  ProvisionType,
  RpcOutcome,
  RpcRequest,
  TimeseriesEntry,
  User,
} from './model';

export interface CoreOptions {
  claimDurationMs: number;
  minServerRpcTimeoutMs: number;
}

/** Events of one device: what its transport sessions listen to. */
export interface DeviceEvents {
  /** Shared attributes changed: the changed keys with their values, or deleted keys. */
  shared: (change: { updated: Map<string, Attribute>; deleted: string[] }) => void;
  /** A server-side RPC was queued for the device. */
  rpc: () => void;
  deleted: () => void;
}

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length = 20): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += TOKEN_ALPHABET[bytes[i] % TOKEN_ALPHABET.length];
  return out;
}

/** History kept per key: the newest entries, so that a long `iotc simulate` session under load stays bounded. */
export const MAX_HISTORY_PER_KEY = 100_000;

/**
 * Keeps a series sorted by ts, one entry per ts (a later value at the same ts replaces the earlier one, as the
 * platform's time series). Appending in time order, the common case, is O(1); anything else is a binary search.
 */
function insertByTs(series: TimeseriesEntry[], entry: TimeseriesEntry): void {
  const last = series[series.length - 1];
  if (!last || last.ts < entry.ts) {
    series.push(entry);
    return;
  }
  let low = 0;
  let high = series.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (series[middle].ts < entry.ts) low = middle + 1;
    else high = middle;
  }
  if (series[low]?.ts === entry.ts) series[low] = entry;
  else series.splice(low, 0, entry);
}

export const FIRMWARE_ATTRIBUTES = ['fw_title', 'fw_version', 'fw_size', 'fw_checksum_algorithm', 'fw_checksum'];

export class PlatformCore {
  readonly tenantId = randomUUID();
  readonly customerId = randomUUID();
  readonly users: User[];
  readonly profiles = new Map<string, DeviceProfile>();
  readonly devices = new Map<string, Device>();
  readonly otaPackages = new Map<string, OtaPackage>();
  readonly apiKeys = new Map<string, ApiKey>();
  private readonly deviceByName = new Map<string, Device>();
  private readonly deviceByToken = new Map<string, Device>();
  private readonly events = new Map<string, EventEmitter>();

  constructor(readonly options: CoreOptions) {
    const user = (email: string, password: string, authority: User['authority'], firstName: string): User => ({
      id: randomUUID(),
      email,
      password,
      authority,
      tenantId: authority === 'SYS_ADMIN' ? '13814000-1dd2-11b2-8080-808080808080' : this.tenantId,
      customerId: authority === 'CUSTOMER_USER' ? this.customerId : '13814000-1dd2-11b2-8080-808080808080',
      firstName,
      lastName: 'Demo',
    });
    this.users = [
      user('sysadmin@thingsboard.org', 'sysadmin', 'SYS_ADMIN', 'System'),
      user('tenant@thingsboard.org', 'tenant', 'TENANT_ADMIN', 'Tenant'),
      user('customer@thingsboard.org', 'customer', 'CUSTOMER_USER', 'Customer'),
    ];
    this.saveProfile({ name: 'default', isDefault: true });
  }

  // ---- device profiles ----------------------------------------------------------------------------------------

  defaultProfile(): DeviceProfile {
    for (const profile of this.profiles.values()) if (profile.isDefault) return profile;
    throw new Error('the default device profile is missing');
  }

  profileByName(name: string): DeviceProfile | undefined {
    for (const profile of this.profiles.values()) if (profile.name === name) return profile;
    return undefined;
  }

  saveProfile(input: {
    id?: string;
    name: string;
    isDefault?: boolean;
    provisionType?: ProvisionType;
    provisionDeviceKey?: string | null;
    provisionDeviceSecret?: string | null;
    firmwareId?: string | null;
  }): DeviceProfile {
    const existing = input.id ? this.profiles.get(input.id) : undefined;
    if (input.id && !existing) throw new NotFoundError();
    const sameName = this.profileByName(input.name);
    if (sameName && sameName.id !== input.id) throw new BadRequestError('Device profile with such name already exists!');
    const key = input.provisionDeviceKey ?? null;
    if (key) {
      for (const profile of this.profiles.values()) {
        if (profile.provisionDeviceKey === key && profile.id !== input.id) {
          throw new BadRequestError('Device profile with such provision device key already exists!');
        }
      }
    }
    const profile: DeviceProfile = {
      id: existing?.id ?? randomUUID(),
      name: input.name,
      isDefault: input.isDefault ?? existing?.isDefault ?? false,
      createdTime: existing?.createdTime ?? Date.now(),
      provisionType: input.provisionType ?? 'DISABLED',
      provisionDeviceKey: key,
      provisionDeviceSecret: input.provisionDeviceSecret ?? null,
      firmwareId: input.firmwareId ?? null,
    };
    this.profiles.set(profile.id, profile);
    return profile;
  }

  deleteProfile(id: string): void {
    const profile = this.profiles.get(id);
    if (!profile) throw new NotFoundError();
    if (profile.isDefault) throw new BadRequestError("Default device profile can't be deleted!");
    for (const device of this.devices.values()) {
      if (device.profileId === id) throw new BadRequestError("The device profile referenced by the devices cannot be deleted!");
    }
    this.profiles.delete(id);
  }

  // ---- devices ------------------------------------------------------------------------------------------------

  deviceByTokenValue(token: string): Device | undefined {
    return this.deviceByToken.get(token);
  }

  deviceNamed(name: string): Device | undefined {
    return this.deviceByName.get(name);
  }

  device(id: string): Device {
    const device = this.devices.get(id);
    if (!device) throw new NotFoundError();
    return device;
  }

  createDevice(input: {
    name: string;
    profileId?: string;
    profileName?: string;
    label?: string | null;
    token?: string;
    additionalInfo?: Record<string, unknown> | null;
  }): Device {
    const name = input.name;
    if (!name || !name.trim()) throw new BadRequestError('Device name should be specified!');
    if (this.deviceByName.has(name)) throw new BadRequestError('Device with such name already exists!');
    const token = input.token ?? randomToken();
    if (this.deviceByToken.has(token)) throw new BadRequestError('Device credentials are already assigned to another device!');
    let profile: DeviceProfile;
    if (input.profileId) {
      profile = this.profiles.get(input.profileId) ?? (() => { throw new BadRequestError('Device profile is not found!'); })();
    } else if (input.profileName) {
      profile = this.profileByName(input.profileName) ?? this.saveProfile({ name: input.profileName });
    } else {
      profile = this.defaultProfile();
    }
    const device: Device = {
      id: randomUUID(),
      name,
      label: input.label ?? null,
      profileId: profile.id,
      token,
      tenantId: this.tenantId,
      customerId: null,
      additionalInfo: input.additionalInfo ?? null,
      firmwareId: null,
      createdTime: Date.now(),
      attributes: { CLIENT_SCOPE: new Map(), SHARED_SCOPE: new Map(), SERVER_SCOPE: new Map() },
      latest: new Map(),
      history: new Map(),
      nextRpcId: 1,
      rpcs: new Map(),
      claim: null,
      deleted: false,
    };
    this.devices.set(device.id, device);
    this.deviceByName.set(name, device);
    this.deviceByToken.set(token, device);
    if (profile.firmwareId) this.assignFirmware(device, profile.firmwareId);
    return device;
  }

  updateDevice(device: Device, input: { name?: string; label?: string | null; profileId?: string; additionalInfo?: Record<string, unknown> | null }): void {
    if (input.name !== undefined && input.name !== device.name) {
      if (this.deviceByName.has(input.name)) throw new BadRequestError('Device with such name already exists!');
      this.deviceByName.delete(device.name);
      device.name = input.name;
      this.deviceByName.set(device.name, device);
    }
    if (input.label !== undefined) device.label = input.label;
    if (input.additionalInfo !== undefined) device.additionalInfo = input.additionalInfo;
    if (input.profileId !== undefined) {
      if (!this.profiles.has(input.profileId)) throw new BadRequestError('Device profile is not found!');
      device.profileId = input.profileId;
    }
  }

  deleteDevice(id: string): void {
    const device = this.device(id);
    device.deleted = true;
    this.devices.delete(id);
    this.deviceByName.delete(device.name);
    this.deviceByToken.delete(device.token);
    for (const rpc of device.rpcs.values()) clearTimeout(rpc.timer);
    this.emitter(device).emit('deleted');
    this.events.delete(device.id);
  }

  profileOf(device: Device): DeviceProfile {
    return this.profiles.get(device.profileId) ?? this.defaultProfile();
  }

  // ---- events -------------------------------------------------------------------------------------------------

  private emitter(device: Device): EventEmitter {
    let emitter = this.events.get(device.id);
    if (!emitter) {
      emitter = new EventEmitter();
      emitter.setMaxListeners(0);
      this.events.set(device.id, emitter);
    }
    return emitter;
  }

  /** Subscribes to a device's events; returns the unsubscribe function. */
  on<E extends keyof DeviceEvents>(device: Device, event: E, listener: DeviceEvents[E]): () => void {
    const emitter = this.emitter(device);
    emitter.on(event, listener);
    return () => emitter.off(event, listener);
  }

  // ---- telemetry and attributes -------------------------------------------------------------------------------

  saveTelemetry(device: Device, entries: Array<{ ts: number; values: Array<[string, TypedValue]> }>): void {
    for (const { ts, values } of entries) {
      for (const [key, value] of values) {
        const entry = { ts, value };
        let series = device.history.get(key);
        if (!series) device.history.set(key, (series = []));
        insertByTs(series, entry);
        if (series.length > MAX_HISTORY_PER_KEY) series.splice(0, series.length - MAX_HISTORY_PER_KEY);
        const latest = device.latest.get(key);
        if (!latest || latest.ts <= ts) device.latest.set(key, entry);
      }
    }
  }

  saveAttributes(device: Device, scope: AttributeScope, values: Array<[string, TypedValue]>): void {
    const now = Date.now();
    const updated = new Map<string, Attribute>();
    const map = device.attributes[scope];
    for (const [key, value] of values) {
      const attribute = { value, lastUpdateTs: now };
      map.set(key, attribute);
      updated.set(key, attribute);
    }
    if (scope === 'SHARED_SCOPE' && updated.size > 0) this.emitter(device).emit('shared', { updated, deleted: [] });
  }

  deleteAttributes(device: Device, scope: AttributeScope, keys: string[]): void {
    const map = device.attributes[scope];
    const deleted = keys.filter((key) => map.delete(key));
    if (scope === 'SHARED_SCOPE' && deleted.length > 0) this.emitter(device).emit('shared', { updated: new Map(), deleted });
  }

  // ---- server-side RPC ----------------------------------------------------------------------------------------

  /** Queues an RPC for the device; resolves when it is delivered (one-way), answered, or expired. */
  sendRpc(device: Device, input: { method: string; params: unknown; oneway: boolean; timeoutMs: number; expirationTime?: number }): Promise<RpcOutcome> {
    return new Promise((resolve) => {
      const expiresAt = input.expirationTime ?? Date.now() + Math.max(this.options.minServerRpcTimeoutMs, input.timeoutMs);
      const id = device.nextRpcId++;
      const rpc: RpcRequest = {
        id,
        method: input.method,
        params: input.params,
        oneway: input.oneway,
        state: 'QUEUED',
        expiresAt,
        settle: (outcome) => {
          clearTimeout(rpc.timer);
          rpc.settle = () => {};
          resolve(outcome);
        },
        timer: setTimeout(() => {
          if (rpc.state === 'QUEUED') {
            rpc.state = 'EXPIRED';
            rpc.settle({ kind: 'NO_ACTIVE_CONNECTION' });
          } else if (rpc.state === 'DELIVERED') {
            rpc.state = 'TIMEOUT';
            rpc.settle({ kind: 'TIMEOUT' });
          }
        }, Math.max(0, expiresAt - Date.now())),
      };
      device.rpcs.set(id, rpc);
      this.emitter(device).emit('rpc');
    });
  }

  /** The oldest queued, unexpired RPC of the device, now marked delivered; undefined when there is none. */
  takeRpc(device: Device): RpcRequest | undefined {
    const now = Date.now();
    for (const rpc of device.rpcs.values()) {
      if (rpc.state !== 'QUEUED' || rpc.expiresAt <= now) continue;
      if (rpc.oneway) {
        rpc.state = 'SUCCESSFUL';
        rpc.settle({ kind: 'DELIVERED' });
      } else {
        rpc.state = 'DELIVERED';
      }
      return rpc;
    }
    return undefined;
  }

  /** A device's reply to RPC `id` (raw JSON text); replies to unknown or finished requests are ignored. */
  replyRpc(device: Device, id: number, response: string): void {
    const rpc = device.rpcs.get(id);
    if (!rpc || rpc.state !== 'DELIVERED') return;
    rpc.state = 'SUCCESSFUL';
    rpc.settle({ kind: 'SUCCESSFUL', response });
  }

  // ---- claiming -----------------------------------------------------------------------------------------------

  /** Device side: registers a claim unless the device is owned or an unexpired registration exists (put-if-absent). */
  registerClaim(device: Device, secretKey: string | undefined, durationMs: number | undefined): void {
    if (device.customerId) return;
    const now = Date.now();
    if (device.claim && device.claim.expiresAt > now) return;
    const duration = durationMs !== undefined && durationMs > 0 ? durationMs : this.options.claimDurationMs;
    device.claim = { secretKey: secretKey ?? '', expiresAt: now + duration };
  }

  /** Customer side: 'SUCCESS', 'CLAIMED' (already owned) or 'FAILURE' (no, expired or other-key registration). */
  claim(device: Device, customerId: string, secretKey: string): 'SUCCESS' | 'CLAIMED' | 'FAILURE' {
    if (device.customerId) return 'CLAIMED';
    const registration = device.claim;
    if (!registration || registration.expiresAt <= Date.now() || registration.secretKey !== secretKey) return 'FAILURE';
    device.customerId = customerId;
    device.claim = null;
    return 'SUCCESS';
  }

  reclaim(device: Device): void {
    device.customerId = null;
  }

  // ---- firmware -----------------------------------------------------------------------------------------------

  package(id: string): OtaPackage {
    const found = this.otaPackages.get(id);
    if (!found) throw new NotFoundError();
    return found;
  }

  /** The firmware package in force for a device: its own, else its profile's. */
  firmwareOf(device: Device): OtaPackage | undefined {
    const id = device.firmwareId ?? this.profileOf(device).firmwareId;
    return id ? this.otaPackages.get(id) : undefined;
  }

  /** Starts (or, with null, stops) a firmware update: the shared fw_* attributes and the fw_state telemetry. */
  assignFirmware(device: Device, packageId: string | null): void {
    if (packageId === null) {
      device.firmwareId = null;
      this.deleteAttributes(device, 'SHARED_SCOPE', FIRMWARE_ATTRIBUTES.filter((key) => device.attributes.SHARED_SCOPE.has(key)));
      return;
    }
    const ota = this.package(packageId);
    device.firmwareId = ota.id;
    const values: Array<[string, TypedValue]> = [
      ['fw_title', { type: 'STRING', value: ota.title }],
      ['fw_version', { type: 'STRING', value: ota.version }],
    ];
    if (ota.data) {
      values.push(['fw_size', { type: 'LONG', value: BigInt(ota.data.length) }]);
      values.push(['fw_checksum_algorithm', { type: 'STRING', value: ota.checksumAlgorithm ?? 'SHA256' }]);
      values.push(['fw_checksum', { type: 'STRING', value: ota.checksum ?? '' }]);
    } else if (ota.url) {
      values.push(['fw_url', { type: 'STRING', value: ota.url }]);
    }
    this.saveAttributes(device, 'SHARED_SCOPE', values);
    const now = Date.now();
    this.saveTelemetry(device, [
      {
        ts: now,
        values: [
          ['target_fw_title', { type: 'STRING', value: ota.title }],
          ['target_fw_version', { type: 'STRING', value: ota.version }],
          ['target_fw_ts', { type: 'LONG', value: BigInt(now) }],
          ['fw_state', { type: 'STRING', value: 'QUEUED' }],
        ],
      },
    ]);
  }

  // ---- provisioning -------------------------------------------------------------------------------------------

  provision(request: { deviceName: string; provisionDeviceKey: string; provisionDeviceSecret: string; token?: string; gateway?: boolean }):
    | { status: 'SUCCESS'; device: Device }
    | { status: 'NOT_FOUND' | 'FAILURE' } {
    const { deviceName, provisionDeviceKey: key, provisionDeviceSecret: secret } = request;
    if (!key || !secret) return { status: 'NOT_FOUND' };
    const profile = [...this.profiles.values()].find((candidate) => candidate.provisionDeviceKey === key);
    if (!profile || !profile.provisionDeviceSecret || profile.provisionDeviceSecret !== secret || profile.provisionType === 'DISABLED') {
      return { status: 'NOT_FOUND' };
    }
    if (!deviceName.trim()) return { status: 'FAILURE' };
    const existing = this.deviceByName.get(deviceName);
    let device: Device;
    if (profile.provisionType === 'ALLOW_CREATE_NEW_DEVICES') {
      if (existing) return { status: 'FAILURE' };
      try {
        device = this.createDevice({
          name: deviceName,
          profileId: profile.id,
          token: request.token,
          additionalInfo: request.gateway ? { gateway: true } : null,
        });
      } catch {
        return { status: 'FAILURE' };
      }
    } else {
      if (!existing || existing.profileId !== profile.id || existing.attributes.SERVER_SCOPE.has('provisionState')) return { status: 'FAILURE' };
      device = existing;
    }
    this.saveAttributes(device, 'SERVER_SCOPE', [['provisionState', { type: 'STRING', value: 'provisioned' }]]);
    return { status: 'SUCCESS', device };
  }

  // ---- API keys -----------------------------------------------------------------------------------------------

  createApiKey(userId: string, description: string, expirationTime: number, enabled: boolean): ApiKey {
    const key: ApiKey = {
      id: randomUUID(),
      userId,
      value: `tb_${randomBytes(48).toString('base64url')}`,
      description,
      expirationTime,
      enabled,
      createdTime: Date.now(),
    };
    this.apiKeys.set(key.id, key);
    return key;
  }

  apiKeyByValue(value: string): ApiKey | undefined {
    for (const key of this.apiKeys.values()) if (key.value === value) return key;
    return undefined;
  }

  /** Ends every pending RPC timer: the platform is closing. */
  close(): void {
    for (const device of this.devices.values()) for (const rpc of device.rpcs.values()) clearTimeout(rpc.timer);
    for (const emitter of this.events.values()) emitter.removeAllListeners();
  }
}

export function checksum(algorithm: string, data: Buffer): string {
  const names: Record<string, string> = { MD5: 'md5', SHA256: 'sha256', SHA384: 'sha384', SHA512: 'sha512' };
  const name = names[algorithm.toUpperCase()];
  if (!name) throw new BadRequestError(`Unsupported checksum algorithm: ${algorithm}`);
  return createHash(name).update(data).digest('hex');
}
