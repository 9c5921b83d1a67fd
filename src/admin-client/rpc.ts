/**
 * Server-side RPC (platform-facts.md §8, v1 endpoints `POST /api/plugins/rpc/{oneway|twoway}/{deviceId}`). The
 * answer is returned whatever its status: 200 with the device's reply, 408 timeout, 409 no active connection...
 */
import type { AdminResponse, AdminSession } from './auth';

export interface RpcCall {
  method: string;
  params?: unknown;
  /** Milliseconds the platform waits for delivery (and, two-way, the reply). */
  timeout?: number;
}

export function rpc(
  session: AdminSession,
  deviceId: string,
  kind: 'oneway' | 'twoway',
  call: RpcCall,
): Promise<AdminResponse> {
  return session.raw('POST', `/api/plugins/rpc/${kind}/${deviceId}`, call);
}
