/**
 * The reference platform's state and rules, with no HTTP in it: transports (the HTTP device API,
 * MQTT) and the admin API call these operations and subscribe to device events through `events`
 * (event-hub.ts). The rules of each concept live in their own file (rpc.ts, claims.ts,
 * provisioning.ts, firmware.ts, time-series.ts, api-keys.ts, demo-users.ts); this class holds the
 * records, their indexes, and calls them.
 */
import { randomUUID } from 'node:crypto';
import type { TypedValue } from '../../../lib/kv/values';
import { BadRequestError, NotFoundError, QuotaExceededError } from './errors';
import { EventHub, type DeviceEvents } from './event-hub';
import { claimDevice, reclaimDevice, registerClaim, type ClaimResult } from './claims';
import type { DeviceStore, NewDevice } from './device-store';
import { startFirmwareUpdate, stopFirmwareUpdate } from './firmware';
import { provisionDevice, type ProvisionOutcome, type ProvisionRequest } from './provisioning';
import {
  endRpcs,
  queuePersistentRpc,
  queueRpc,
  replyRpc,
  takeRpc,
  type PersistentRpcOptions,
  type RpcCall,
} from './rpc';
import { appendTelemetry, deleteTelemetry, type TelemetryRecord } from './time-series';
import { flatCopy, randomId, randomToken } from './tokens';
import { ApiKeys } from './api-keys';
import { demoUsers } from './demo-users';
import { type StepFaults, withFaults } from '../../../faults/steps';
import {
  DeviceRecord,
  type Attribute,
  type AttributeScope,
  type Device,
  type DeviceProfile,
  type OtaPackage,
  type PersistentRpc,
  type ProvisionType,
  type RpcOutcome,
  type RpcRequest,
  type User,
} from './model';

import { Scheduler, type AsynchronyOptions, type EffectErrorListener } from './scheduler';

export { checksum } from './checksum';
export type { TelemetryRecord } from './time-series';

interface CoreOptions {
  /** device.claim.duration: the claim window when the device gives none (ms). */
  claimDurationMs: number;
  /** MIN_SERVER_SIDE_RPC_TIMEOUT (ms). */
  minServerRpcTimeoutMs: number;
  /** The tenant's device limit (tenant profile maxDevices); absent or 0 = unlimited. */
  maxDevices?: number;
  /**
   * Acknowledge first, act later (ThingsBoard's asynchrony, core/scheduler.ts); absent =
   * synchronous.
   */
  asynchrony?: AsynchronyOptions;
  /** Told of a deferred effect that threw. */
  onEffectError?: EffectErrorListener;
  /**
   * A failed customer claim evicts the device's claim registration (quirks:
   * wrongClaimKeyEndsRegistration).
   */
  claimFailureEndsRegistration?: boolean;
}

/** The named step of saving attributes: one key's attribute stored in its scope (true = stored). */
const ATTRIBUTE_STEPS = {
  store: (device: Device, scope: AttributeScope, key: string, attribute: Attribute): boolean => {
    device.attributes[scope].set(key, attribute);
    return true;
  },
};

/**
 * The planted faults of saving attributes (faults/catalogue/http-device-api.ts), wrappers of its
 * step.
 */
const ATTRIBUTE_FAULTS: StepFaults<typeof ATTRIBUTE_STEPS> = {
  'HTTP-ATTR-05:server-write-dropped': {
    store: (step) => (device, scope, key, attribute) =>
      scope !== 'SERVER_SCOPE' && step(device, scope, key, attribute),
  },
  'HTTP-ATTR-05:shared-overwrites-client': {
    store: (step) => (device, scope, key, attribute) => {
      const stored = step(device, scope, key, attribute);
      if (scope === 'SHARED_SCOPE' && device.attributes.CLIENT_SCOPE.has(key))
        device.attributes.CLIENT_SCOPE.set(key, attribute);
      return stored;
    },
  },
};

export class PlatformCore implements DeviceStore {
  readonly tenantId = randomUUID();
  readonly customerId = randomUUID();
  readonly users: User[];
  readonly profiles = new Map<string, DeviceProfile>();
  readonly devices = new Map<string, Device>();
  readonly otaPackages = new Map<string, OtaPackage>();
  readonly apiKeys = new ApiKeys();
  /** Device events for transport sessions (HTTP long-polls, MQTT sessions). */
  readonly events = new EventHub();
  /**
   * The tenant's device limit (tenant profile maxDevices, 0 = unlimited); the admin API can change
   * it.
   */
  maxDevices: number;
  /**
   * Every deferred effect of the transports goes through it (core/scheduler.ts); synchronous by
   * default.
   */
  readonly scheduler: Scheduler;
  private readonly deviceByName = new Map<string, Device>();
  private readonly deviceByToken = new Map<string, Device>();
  /**
   * Every device's persistent RPCs by id (they live in their device's record; this is the index by
   * id).
   */
  private readonly persistentRpcIndex = new Map<string, PersistentRpc>();

  constructor(readonly options: CoreOptions) {
    this.maxDevices = options.maxDevices ?? 0;
    this.scheduler = new Scheduler(options.asynchrony, options.onEffectError);
    this.users = demoUsers(this.tenantId, this.customerId);
    this.saveProfile({ name: 'default', isDefault: true });
  }

  // ---- device profiles
  // ----------------------------------------------------------------------------------------

  defaultProfile(): DeviceProfile {
    for (const profile of this.profiles.values()) if (profile.isDefault) return profile;
    throw new Error('the default device profile is missing');
  }

  profile(id: string): DeviceProfile {
    const profile = this.profiles.get(id);
    if (!profile) throw new NotFoundError();
    return profile;
  }

  profileByName(name: string): DeviceProfile | undefined {
    for (const profile of this.profiles.values()) if (profile.name === name) return profile;
    return undefined;
  }

  profileByProvisionKey(key: string): DeviceProfile | undefined {
    for (const profile of this.profiles.values())
      if (profile.provisionDeviceKey === key) return profile;
    return undefined;
  }

  /** Creates (no id) or saves a profile; names and provision keys are unique. */
  saveProfile(input: {
    id?: string;
    name: string;
    isDefault?: boolean;
    provisionType?: ProvisionType;
    provisionDeviceKey?: string | null;
    provisionDeviceSecret?: string | null;
    firmwareId?: string | null;
  }): DeviceProfile {
    const existing = input.id ? this.profile(input.id) : undefined;
    const sameName = this.profileByName(input.name);
    if (sameName && sameName.id !== input.id)
      throw new BadRequestError('Device profile with such name already exists!');
    const key = input.provisionDeviceKey || null;
    const sameKey = key ? this.profileByProvisionKey(key) : undefined;
    if (sameKey && sameKey.id !== input.id)
      throw new BadRequestError('Device profile with such provision device key already exists!');
    if (input.firmwareId) this.package(input.firmwareId);
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
    const profile = this.profile(id);
    if (profile.isDefault) throw new BadRequestError("Default device profile can't be deleted!");
    for (const device of this.devices.values()) {
      if (device.profileId === id)
        throw new BadRequestError(
          'The device profile referenced by the devices cannot be deleted!',
        );
    }
    this.profiles.delete(id);
  }

  profileOf(device: Device): DeviceProfile {
    return this.profiles.get(device.profileId) ?? this.defaultProfile();
  }

  // ---- devices
  // ------------------------------------------------------------------------------------------------

  deviceByTokenValue(token: string): Device | undefined {
    return this.deviceByToken.get(token);
  }

  /** Throws QuotaExceededError unless `count` more devices fit under the tenant's device limit. */
  checkRoomForDevices(count: number): void {
    if (count > 0 && this.maxDevices > 0 && this.devices.size + count > this.maxDevices)
      throw new QuotaExceededError();
  }

  deviceNamed(name: string): Device | undefined {
    return this.deviceByName.get(name);
  }

  device(id: string): Device {
    const device = this.devices.get(id);
    if (!device) throw new NotFoundError();
    return device;
  }

  /**
   * Creates a device: name unique in the tenant, a random 20-character token unless given, the
   * profile by id, else by name (created when missing), else the default one; type is always the
   * profile's name.
   */
  createDevice(input: NewDevice): Device {
    // a name read from a payload may be a slice of the payload's text, which it would keep alive
    // as long as the device lives (about 100 bytes of each gateway sub-device): kept as a copy
    const name = typeof input.name === 'string' ? flatCopy(input.name) : input.name;
    if (!name?.trim()) throw new BadRequestError('Device name should be specified!');
    if (this.deviceByName.has(name))
      throw new BadRequestError('Device with such name already exists!');
    if (this.maxDevices > 0 && this.devices.size >= this.maxDevices) throw new QuotaExceededError();
    const token = input.token ?? randomToken();
    if (!token.trim()) throw new BadRequestError('Device credentials id should be specified!');
    if (this.deviceByToken.has(token))
      throw new BadRequestError('Device credentials are already assigned to another device!');
    let profile: DeviceProfile;
    if (input.profileId) {
      profile =
        this.profiles.get(input.profileId) ??
        throwError(new BadRequestError('Device profile is not found!'));
    } else if (input.profileName) {
      profile =
        this.profileByName(input.profileName) ?? this.saveProfile({ name: input.profileName });
    } else {
      profile = this.defaultProfile();
    }
    const device: Device = new DeviceRecord({
      id: randomId(),
      name,
      label: input.label ?? null,
      profileId: profile.id,
      token,
      tenantId: this.tenantId,
      customerId: null,
      additionalInfo: input.additionalInfo ?? null,
      firmwareId: null,
      createdTime: Date.now(),
    });
    this.devices.set(device.id, device);
    this.deviceByName.set(name, device);
    this.deviceByToken.set(token, device);
    if (profile.firmwareId) startFirmwareUpdate(this, device, this.package(profile.firmwareId));
    return device;
  }

  updateDevice(
    device: Device,
    input: {
      name?: string;
      label?: string | null;
      profileId?: string;
      additionalInfo?: Record<string, unknown> | null;
    },
  ): void {
    if (input.name !== undefined && input.name !== device.name) {
      if (!input.name.trim()) throw new BadRequestError('Device name should be specified!');
      if (this.deviceByName.has(input.name))
        throw new BadRequestError('Device with such name already exists!');
      this.deviceByName.delete(device.name);
      device.name = input.name;
      this.deviceByName.set(device.name, device);
    }
    if (input.profileId !== undefined && !this.profiles.has(input.profileId))
      throw new BadRequestError('Device profile is not found!');
    if (input.label !== undefined) device.label = input.label;
    if (input.additionalInfo !== undefined) device.additionalInfo = input.additionalInfo;
    if (input.profileId !== undefined) device.profileId = input.profileId;
  }

  /**
   * Deletes a device: its pending RPCs end, its sessions get the `deleted` event, its token stops
   * working.
   */
  deleteDevice(id: string): void {
    const device = this.device(id);
    device.deleted = true;
    this.devices.delete(id);
    this.deviceByName.delete(device.name);
    this.deviceByToken.delete(device.token);
    endRpcs(device);
    for (const id of device.persistentRpcs.keys()) this.persistentRpcIndex.delete(id);
    this.events.emit(device.id, 'deleted');
    this.events.forget(device.id);
  }

  /** Subscribes to a device's events; returns the unsubscribe function. */
  on<E extends keyof DeviceEvents>(
    device: Device,
    event: E,
    listener: DeviceEvents[E],
  ): () => void {
    return this.events.on(device.id, event, listener);
  }

  // ---- telemetry and attributes
  // -------------------------------------------------------------------------------

  /** Stores validated telemetry records (the transports validate the whole payload first). */
  saveTelemetry(device: Device, records: TelemetryRecord[]): void {
    appendTelemetry(device, records);
  }

  /** Deletes time series of keys in [startTs, endTs) (time-series.ts deleteTelemetry). */
  deleteTimeseries(
    device: Device,
    keys: readonly string[],
    range: Parameters<typeof deleteTelemetry>[2],
  ): void {
    deleteTelemetry(device, keys, range);
  }

  saveAttributes(device: Device, scope: AttributeScope, values: Array<[string, TypedValue]>): void {
    if (values.length === 0) return;
    const { store } = withFaults(ATTRIBUTE_STEPS, ATTRIBUTE_FAULTS);
    const now = Date.now();
    const shared = scope === 'SHARED_SCOPE';
    const updated = shared ? new Map<string, Attribute>() : undefined;
    for (const [key, value] of values) {
      const attribute = { value, lastUpdateTs: now };
      if (store(device, scope, key, attribute)) updated?.set(key, attribute);
    }
    if (updated) this.events.emit(device.id, 'shared', { updated, deleted: [] });
  }

  deleteAttributes(device: Device, scope: AttributeScope, keys: string[]): void {
    const map = device.attributes[scope];
    const deleted = keys.filter((key) => map.delete(key));
    if (scope === 'SHARED_SCOPE' && deleted.length > 0)
      this.events.emit(device.id, 'shared', { updated: new Map(), deleted });
  }

  // ---- server-side RPC
  // ----------------------------------------------------------------------------------------

  sendRpc(device: Device, call: RpcCall): Promise<RpcOutcome> {
    return queueRpc(device, this.events, call, this.options.minServerRpcTimeoutMs);
  }

  /**
   * Stores and queues a persistent RPC; its caller reads the outcome from the record
   * (persistentRpc).
   */
  sendPersistentRpc(
    device: Device,
    call: RpcCall,
    options: Omit<PersistentRpcOptions, 'id' | 'tenantId'>,
  ): PersistentRpc {
    const record = queuePersistentRpc(
      device,
      this.events,
      call,
      this.options.minServerRpcTimeoutMs,
      { ...options, id: randomUUID(), tenantId: device.tenantId },
    );
    this.persistentRpcIndex.set(record.id, record);
    return record;
  }

  /** A persistent RPC by id; NotFoundError with ThingsBoard's message when there is none. */
  persistentRpc(id: string): PersistentRpc {
    const record = this.persistentRpcIndex.get(id);
    if (!record) throw new NotFoundError(`Rpc with id [${id}] is not found`);
    return record;
  }

  takeRpc(device: Device): RpcRequest | undefined {
    return takeRpc(device);
  }

  replyRpc(device: Device, id: number, response: string): void {
    replyRpc(device, id, response);
  }

  // ---- claiming
  // -----------------------------------------------------------------------------------------------

  registerClaim(
    device: Device,
    secretKey: string | undefined,
    durationMs: number | undefined,
  ): void {
    registerClaim(device, secretKey, durationMs, this.options.claimDurationMs);
  }

  claim(device: Device, customerId: string, secretKey: string): ClaimResult {
    return claimDevice(device, customerId, secretKey, this.options.claimFailureEndsRegistration);
  }

  reclaim(device: Device): void {
    reclaimDevice(device);
  }

  // ---- firmware
  // -----------------------------------------------------------------------------------------------

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

  /** Starts (or, with null, stops) a firmware update of the device. */
  assignFirmware(device: Device, packageId: string | null): void {
    if (packageId === null) stopFirmwareUpdate(this, device);
    else startFirmwareUpdate(this, device, this.package(packageId));
  }

  // ---- provisioning
  // -------------------------------------------------------------------------------------------

  provision(request: ProvisionRequest): ProvisionOutcome {
    return provisionDevice(this, request);
  }

  /** The platform is closing: pending RPCs end, listeners go. */
  close(): void {
    this.scheduler.close();
    for (const device of this.devices.values()) endRpcs(device);
    this.events.close();
  }
}

function throwError(error: Error): never {
  throw error;
}
