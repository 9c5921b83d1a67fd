/**
 * Server-side RPC of one device: queued until a device session takes it (QUEUED → DELIVERED),
 * answered (SUCCESSFUL), or ended by its expiry (EXPIRED when never delivered, TIMEOUT when
 * delivered but not answered). Ids are integers increasing per device, as the platform's. A
 * finished request leaves the queue. A persistent RPC also has a stored record (model.ts
 * PersistentRpc) whose status and response follow the request.
 */
import type { EventHub } from './event-hub';
import type { Device, PersistentRpc, RpcOutcome, RpcRequest } from './model';
import { parseLossless, stringifyLossless } from '../../../lib/kv/values';
import { type StepFaults, withFaults } from '../../../faults/steps';

export interface RpcCall {
  method: string;
  /** As the caller wrote it (lossless); the device gets {} when it is absent. */
  params: unknown;
  oneway: boolean;
  /**
   * The caller's timeout; the expiry is now + max(minimum, timeout) unless expirationTime is given.
   */
  timeoutMs: number;
  expirationTime?: number;
}

/** Queues an RPC for the device; resolves when it is delivered (one-way), answered, or expired. */
export function queueRpc(
  device: Device,
  hub: EventHub,
  call: RpcCall,
  minTimeoutMs: number,
): Promise<RpcOutcome> {
  return new Promise((resolve) => enqueue(device, hub, call, minTimeoutMs, resolve));
}

/**
 * What a persistent RPC adds to a call: ThingsBoard's `retries` and `additionalInfo`, kept on its
 * record.
 */
export interface PersistentRpcOptions {
  id: string;
  tenantId: string;
  retries: number | null;
  additionalInfo: unknown;
}

/**
 * Stores a persistent RPC and, unless it has expired already, queues it (QUEUED) for the next
 * device session. Its caller does not wait for the outcome: the record's status and response tell
 * it (docs/reference/platform-facts.md §8; as ThingsBoard's
 * DeviceActorMessageProcessor.processRpcRequest: an expired one is stored EXPIRED and never
 * queued).
 */
export function queuePersistentRpc(
  device: Device,
  hub: EventHub,
  call: RpcCall,
  minTimeoutMs: number,
  options: PersistentRpcOptions,
): PersistentRpc {
  const now = Date.now();
  const record: PersistentRpc = {
    id: options.id,
    createdTime: now,
    tenantId: options.tenantId,
    deviceId: device.id,
    expirationTime: expiryOf(call, minTimeoutMs, now),
    method: call.method,
    paramsText: call.params === undefined ? null : stringifyLossless(call.params),
    oneway: call.oneway,
    retries: options.retries,
    additionalInfo: options.additionalInfo,
    status: 'QUEUED',
    response: null,
  };
  device.persistentRpcs.set(record.id, record);
  if (record.expirationTime <= now) record.status = 'EXPIRED';
  else enqueue(device, hub, call, minTimeoutMs, () => {}, record);
  return record;
}

function expiryOf(call: RpcCall, minTimeoutMs: number, now: number): number {
  return call.expirationTime ?? now + Math.max(minTimeoutMs, call.timeoutMs);
}

function enqueue(
  device: Device,
  hub: EventHub,
  call: RpcCall,
  minTimeoutMs: number,
  onOutcome: (outcome: RpcOutcome) => void,
  persistent?: PersistentRpc,
): void {
  const expiresAt = persistent?.expirationTime ?? expiryOf(call, minTimeoutMs, Date.now());
  const id = device.nextRpcId++;
  const rpc: RpcRequest = {
    id,
    method: call.method,
    params: call.params ?? {},
    oneway: call.oneway,
    state: 'QUEUED',
    expiresAt,
    persistent,
    settle: (outcome) => {
      clearTimeout(rpc.timer);
      device.rpcs.delete(id);
      rpc.settle = () => {};
      onOutcome(outcome);
    },
    timer: setTimeout(() => expire(rpc), Math.max(0, expiresAt - Date.now())),
  };
  device.rpcs.set(id, rpc);
  hub.emit(device.id, 'rpc');
}

function expire(rpc: RpcRequest): void {
  // a persistent RPC ends EXPIRED whether or not it was delivered
  // (DeviceActorMessageProcessor.processServerSideRpcTimeout)
  if (rpc.persistent && (rpc.state === 'QUEUED' || rpc.state === 'DELIVERED'))
    rpc.persistent.status = 'EXPIRED';
  if (rpc.state === 'QUEUED') {
    rpc.state = 'EXPIRED';
    rpc.settle({ kind: 'NO_ACTIVE_CONNECTION' });
  } else if (rpc.state === 'DELIVERED') {
    rpc.state = 'TIMEOUT';
    rpc.settle({ kind: 'TIMEOUT' });
  }
}

/** The named steps of taking an RPC for delivery. */
const TAKE_STEPS = {
  /** Whether a queued, unexpired RPC is delivered now. */
  delivers: (_rpc: RpcRequest): boolean => true,
  /** A one-way RPC is done once delivered. */
  oneWayDelivered: (_device: Device, rpc: RpcRequest): void => {
    rpc.state = 'SUCCESSFUL';
    rpc.settle({ kind: 'DELIVERED' });
  },
};

/** The planted faults of delivery (faults/catalogue/http-device-api.ts), wrappers of its steps. */
const TAKE_FAULTS: StepFaults<typeof TAKE_STEPS> = {
  'HTTP-RPC-05:one-way-not-delivered': {
    delivers: (step) => (rpc) => !rpc.oneway && step(rpc),
  },
  'HTTP-RPC-05:one-way-delivered-twice': {
    oneWayDelivered: (step) => (device, rpc) => {
      step(device, rpc);
      rpc.state = 'QUEUED'; // back in the queue (at its end), to be delivered again
      device.rpcs.set(rpc.id, rpc);
    },
  },
};

/**
 * The oldest queued, unexpired RPC of the device, now marked delivered; undefined when there is
 * none.
 */
export function takeRpc(device: Device): RpcRequest | undefined {
  const steps = withFaults(TAKE_STEPS, TAKE_FAULTS);
  const now = Date.now();
  for (const rpc of device.rpcs.values()) {
    if (rpc.state !== 'QUEUED' || rpc.expiresAt <= now) continue;
    if (!steps.delivers(rpc)) continue;
    // delivered over HTTP or MQTT; a one-way persistent RPC stays DELIVERED
    // (processRpcResponseStatus)
    if (rpc.persistent) rpc.persistent.status = 'DELIVERED';
    if (rpc.oneway) steps.oneWayDelivered(device, rpc);
    else rpc.state = 'DELIVERED';
    return rpc;
  }
  return undefined;
}

/**
 * A device's reply to RPC `id` (raw text); replies to unknown or finished requests are ignored, as
 * the platform.
 */
export function replyRpc(device: Device, id: number, response: string): void {
  const rpc = device.rpcs.get(id);
  if (rpc?.state !== 'DELIVERED') return;
  rpc.state = 'SUCCESSFUL';
  if (rpc.persistent) {
    rpc.persistent.status = 'SUCCESSFUL';
    rpc.persistent.response = storedResponse(response);
  }
  rpc.settle({ kind: 'SUCCESSFUL', response });
}

/**
 * A reply as a persistent RPC keeps it: the JSON document, `{"error": text}` for other text, null
 * when empty.
 */
function storedResponse(response: string): unknown {
  if (response === '') return null;
  try {
    return parseLossless(response);
  } catch {
    return { error: response };
  }
}

/**
 * Ends every pending request of the device (deleted device, platform closing): delivered ones time
 * out.
 */
export function endRpcs(device: Device): void {
  for (const rpc of [...device.rpcs.values()]) {
    if (rpc.state === 'DELIVERED') {
      rpc.state = 'TIMEOUT';
      rpc.settle({ kind: 'TIMEOUT' });
    } else {
      rpc.state = 'EXPIRED';
      rpc.settle({ kind: 'NO_ACTIVE_CONNECTION' });
    }
  }
}
