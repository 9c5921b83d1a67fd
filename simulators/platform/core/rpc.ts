/**
 * Server-side RPC of one device: queued until a device session takes it (QUEUED → DELIVERED), answered
 * (SUCCESSFUL), or ended by its expiry (EXPIRED when never delivered, TIMEOUT when delivered but not answered).
 * Ids are integers increasing per device, as the platform's. A finished request leaves the queue.
 */
import type { EventHub } from './event-hub';
import type { Device, RpcOutcome, RpcRequest } from './model';
import { faultActive } from '../../../faults';

export interface RpcCall {
  method: string;
  params: unknown;
  oneway: boolean;
  /** The caller's timeout; the expiry is now + max(minimum, timeout) unless expirationTime is given. */
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
  return new Promise((resolve) => {
    const expiresAt = call.expirationTime ?? Date.now() + Math.max(minTimeoutMs, call.timeoutMs);
    const id = device.nextRpcId++;
    const rpc: RpcRequest = {
      id,
      method: call.method,
      params: call.params,
      oneway: call.oneway,
      state: 'QUEUED',
      expiresAt,
      settle: (outcome) => {
        clearTimeout(rpc.timer);
        device.rpcs.delete(id);
        rpc.settle = () => {};
        resolve(outcome);
      },
      timer: setTimeout(() => expire(rpc), Math.max(0, expiresAt - Date.now())),
    };
    device.rpcs.set(id, rpc);
    hub.emit(device.id, 'rpc');
  });
}

function expire(rpc: RpcRequest): void {
  if (rpc.state === 'QUEUED') {
    rpc.state = 'EXPIRED';
    rpc.settle({ kind: 'NO_ACTIVE_CONNECTION' });
  } else if (rpc.state === 'DELIVERED') {
    rpc.state = 'TIMEOUT';
    rpc.settle({ kind: 'TIMEOUT' });
  }
}

/** The oldest queued, unexpired RPC of the device, now marked delivered; undefined when there is none. */
export function takeRpc(device: Device): RpcRequest | undefined {
  const now = Date.now();
  for (const rpc of device.rpcs.values()) {
    if (rpc.state !== 'QUEUED' || rpc.expiresAt <= now) continue;
    if (rpc.oneway && faultActive('HTTP-RPC-05:one-way-not-delivered')) continue;
    if (rpc.oneway) {
      rpc.state = 'SUCCESSFUL';
      rpc.settle({ kind: 'DELIVERED' });
      if (faultActive('HTTP-RPC-05:one-way-delivered-twice')) {
        rpc.state = 'QUEUED'; // back in the queue (at its end), to be delivered again
        device.rpcs.set(rpc.id, rpc);
      }
    } else {
      rpc.state = 'DELIVERED';
    }
    return rpc;
  }
  return undefined;
}

/** A device's reply to RPC `id` (raw text); replies to unknown or finished requests are ignored, as the platform. */
export function replyRpc(device: Device, id: number, response: string): void {
  const rpc = device.rpcs.get(id);
  if (rpc?.state !== 'DELIVERED') return;
  rpc.state = 'SUCCESSFUL';
  rpc.settle({ kind: 'SUCCESSFUL', response });
}

/** Ends every pending request of the device (deleted device, platform closing): delivered ones time out. */
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
