/**
 * The reference platform's domain records. In memory: a run or a `simulate` session is their whole
 * lifetime.
 */
import type { TypedValue } from '../../../lib/kv/values';

export type Authority = 'SYS_ADMIN' | 'TENANT_ADMIN' | 'CUSTOMER_USER';
export type AttributeScope = 'CLIENT_SCOPE' | 'SHARED_SCOPE' | 'SERVER_SCOPE';
export const ATTRIBUTE_SCOPES: readonly AttributeScope[] = [
  'CLIENT_SCOPE',
  'SHARED_SCOPE',
  'SERVER_SCOPE',
];
export type ProvisionType =
  | 'DISABLED'
  | 'ALLOW_CREATE_NEW_DEVICES'
  | 'CHECK_PRE_PROVISIONED_DEVICES';

export interface User {
  id: string;
  email: string;
  password: string;
  authority: Authority;
  tenantId: string;
  customerId: string;
  firstName: string;
  lastName: string;
}

export interface DeviceProfile {
  id: string;
  name: string;
  isDefault: boolean;
  createdTime: number;
  provisionType: ProvisionType;
  provisionDeviceKey: string | null;
  provisionDeviceSecret: string | null;
  firmwareId: string | null;
}

export interface Attribute {
  value: TypedValue;
  lastUpdateTs: number;
}

export interface TimeseriesEntry {
  ts: number;
  value: TypedValue;
}

export type RpcState = 'QUEUED' | 'DELIVERED' | 'SUCCESSFUL' | 'TIMEOUT' | 'EXPIRED';

/** How a server-side RPC ended, as its admin caller sees it. */
export type RpcOutcome =
  | { kind: 'DELIVERED' } // one-way, taken by a device session
  | { kind: 'SUCCESSFUL'; response: string } // two-way, the device replied (raw JSON text)
  | { kind: 'TIMEOUT' } // two-way, delivered but not answered before expiry
  | { kind: 'NO_ACTIVE_CONNECTION' }; // never delivered before expiry

export interface RpcRequest {
  id: number;
  method: string;
  /** As the caller wrote it, numbers as LosslessNumber (render with stringifyLossless). */
  params: unknown;
  oneway: boolean;
  state: RpcState;
  expiresAt: number;
  settle: (outcome: RpcOutcome) => void;
  timer: NodeJS.Timeout;
  /** The stored record of a persistent RPC, whose status follows the request's life. */
  persistent?: PersistentRpc;
}

/**
 * ThingsBoard's RpcStatus. The reference reaches QUEUED, DELIVERED, SUCCESSFUL and EXPIRED; SENT,
 * TIMEOUT and FAILED come from transport acknowledgements and retries it does not model (an MQTT
 * PUBACK that never comes).
 */
export type PersistentRpcStatus =
  | 'QUEUED'
  | 'SENT'
  | 'DELIVERED'
  | 'SUCCESSFUL'
  | 'TIMEOUT'
  | 'EXPIRED'
  | 'FAILED';

/**
 * A persistent server-side RPC (`"persistent": true`): kept with its status and reply until its
 * device is deleted.
 */
export interface PersistentRpc {
  id: string;
  createdTime: number;
  tenantId: string;
  deviceId: string;
  expirationTime: number;
  method: string;
  /** The params member as the caller wrote it (JSON text), null when absent. */
  paramsText: string | null;
  oneway: boolean;
  retries: number | null;
  /** As the caller wrote it (lossless), null when absent. */
  additionalInfo: unknown;
  status: PersistentRpcStatus;
  /**
   * The device's reply (lossless JSON), `{"error": text}` when it is not JSON, null before it or
   * when empty.
   */
  response: unknown;
}

interface ClaimRegistration {
  secretKey: string;
  expiresAt: number;
}

/**
 * A device record whose collections (attributes, latest values, history, RPCs, persistent RPCs) are
 * created on first use: most sub-devices of a large gateway fleet never get some of them, and six
 * empty Maps per device were half of its memory (bench: resident memory per sub-device).
 */
export class DeviceRecord {
  id: string;
  name: string;
  label: string | null;
  profileId: string;
  token: string;
  tenantId: string;
  customerId: string | null;
  additionalInfo: Record<string, unknown> | null;
  firmwareId: string | null;
  createdTime: number;
  // ThingsBoard numbers a device's RPCs from 0 (DeviceActorMessageProcessor.java 132 rpcSeq = 0,
  // 284 rpcSeq++)
  nextRpcId = 0;
  claim: ClaimRegistration | null = null;
  deleted = false;
  private attributeMaps?: Record<AttributeScope, Map<string, Attribute>>;
  private latestMap?: Map<string, TimeseriesEntry>;
  private historyMap?: Map<string, TimeseriesEntry[]>;
  private rpcMap?: Map<number, RpcRequest>;
  private persistentRpcMap?: Map<string, PersistentRpc>;

  constructor(fields: NewDeviceFields) {
    this.id = fields.id;
    this.name = fields.name;
    this.label = fields.label;
    this.profileId = fields.profileId;
    this.token = fields.token;
    this.tenantId = fields.tenantId;
    this.customerId = fields.customerId;
    this.additionalInfo = fields.additionalInfo;
    this.firmwareId = fields.firmwareId;
    this.createdTime = fields.createdTime;
  }

  get attributes(): Record<AttributeScope, Map<string, Attribute>> {
    return (this.attributeMaps ??= {
      CLIENT_SCOPE: new Map(),
      SHARED_SCOPE: new Map(),
      SERVER_SCOPE: new Map(),
    });
  }

  get latest(): Map<string, TimeseriesEntry> {
    return (this.latestMap ??= new Map());
  }

  get history(): Map<string, TimeseriesEntry[]> {
    return (this.historyMap ??= new Map());
  }

  get rpcs(): Map<number, RpcRequest> {
    return (this.rpcMap ??= new Map());
  }

  /** Persistent RPCs by id, oldest first. */
  get persistentRpcs(): Map<string, PersistentRpc> {
    return (this.persistentRpcMap ??= new Map());
  }
}

export type Device = DeviceRecord;

/**
 * What a new device record is made of; its collections, RPC counter, claim and deleted flag start
 * empty.
 */
type NewDeviceFields = Pick<
  Device,
  | 'id'
  | 'name'
  | 'label'
  | 'profileId'
  | 'token'
  | 'tenantId'
  | 'customerId'
  | 'additionalInfo'
  | 'firmwareId'
  | 'createdTime'
>;

export interface OtaPackage {
  id: string;
  title: string;
  version: string;
  type: 'FIRMWARE' | 'SOFTWARE';
  deviceProfileId: string | null;
  createdTime: number;
  url: string | null;
  data: Buffer | null;
  fileName: string | null;
  contentType: string | null;
  checksumAlgorithm: string | null;
  checksum: string | null;
}

export interface ApiKey {
  id: string;
  userId: string;
  value: string;
  description: string;
  expirationTime: number;
  enabled: boolean;
  createdTime: number;
}
