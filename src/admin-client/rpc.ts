/**
 * Server-side RPC (docs/reference/platform-facts.md §8). `rpc` is the v1 endpoint `POST
 * /api/plugins/rpc/{oneway|twoway}/{deviceId}`; its answer is returned whatever its status: 200
 * with the device's reply, 408 timeout, 409 no active connection... Persistent RPC is v2 (`POST
 * /api/rpc/...` with `"persistent": true`, answered 200 {"rpcId"} once the RPC is stored and
 * queued), read back with `GET /api/rpc/persistent/{rpcId}` and `GET
 * /api/rpc/persistent/device/{deviceId}`.
 */
import type { AdminResponse, AdminSession } from './auth';
import { AdminResponseShapeError } from './errors';
import { toPlain } from '../../lib/kv/values';
import { validate } from '../../schemas/validate';
import {
  persistentRpcAcceptedSchema,
  persistentRpcPageSchema,
  persistentRpcSchema,
  type PersistentRpcAccepted,
  type PersistentRpcRecord,
} from '../../schemas';

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

/**
 * A persistent RPC as read back: its status, the device's response (lossless JSON, null before it)
 * and the rest.
 */
export interface PersistentRpc {
  id: string;
  status: PersistentRpcRecord['status'];
  /** As the platform sent it, numbers lossless (compare with jsonEqual / sameJson). */
  response: unknown;
  /** The whole record, numbers as JS numbers. */
  record: PersistentRpcRecord;
}

export interface PersistentRpcPage {
  data: PersistentRpc[];
  totalElements: number;
  hasNext: boolean;
}

/**
 * Sends a persistent RPC and returns its id once the platform has stored and queued it; throws on
 * any other answer.
 */
export async function sendPersistentRpc(
  session: AdminSession,
  deviceId: string,
  kind: 'oneway' | 'twoway',
  call: RpcCall,
): Promise<string> {
  const path = `/api/rpc/${kind}/${deviceId}`;
  const answer = await session.call('POST', path, { ...call, persistent: true });
  return checked<PersistentRpcAccepted>(persistentRpcAcceptedSchema, answer, `POST ${path}`).rpcId;
}

export async function getPersistentRpc(
  session: AdminSession,
  rpcId: string,
): Promise<PersistentRpc> {
  const path = `/api/rpc/persistent/${rpcId}`;
  const answer = await session.call('GET', path);
  checked(persistentRpcSchema, answer, `GET ${path}`);
  return persistentRpcOf(answer.json);
}

/** One page of the device's persistent RPCs, optionally only those with `status`. */
export async function persistentRpcsOfDevice(
  session: AdminSession,
  deviceId: string,
  options: { page?: number; pageSize?: number; status?: PersistentRpc['status'] } = {},
): Promise<PersistentRpcPage> {
  const status = options.status ? `&rpcStatus=${options.status}` : '';
  const path = `/api/rpc/persistent/device/${deviceId}?pageSize=${options.pageSize ?? 100}&page=${options.page ?? 0}${status}`;
  const answer = await session.call('GET', path);
  const page = checked<{ totalElements: number; hasNext: boolean }>(
    persistentRpcPageSchema,
    answer,
    `GET ${path}`,
  );
  const data = (answer.json as { data: unknown[] }).data.map(persistentRpcOf);
  return { data, totalElements: page.totalElements, hasNext: page.hasNext };
}

function persistentRpcOf(json: unknown): PersistentRpc {
  const record = toPlain(json) as PersistentRpcRecord;
  const lossless = json as { response: unknown };
  return { id: record.id.id, status: record.status, response: lossless.response, record };
}

/**
 * The answer's body, numbers as JS numbers, when it has the documented shape;
 * AdminResponseShapeError otherwise.
 */
function checked<T>(schema: object, answer: AdminResponse, what: string): T {
  const plain = toPlain(answer.json);
  const check = validate(schema, plain);
  if (answer.json === undefined || !check.ok)
    throw new AdminResponseShapeError(
      `${what} (${check.errors.join('; ') || 'not JSON'})`,
      answer.text,
    );
  return plain as T;
}
