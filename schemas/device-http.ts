/**
 * The HTTP device API's protocol table (docs/reference/interfaces.md "HTTP device API"): each route
 * by its role, with its method, its path (`{token}` the device's access token, `{id}` an RPC's id)
 * and the schema of its request body or query where one JSON Schema says it. The reference's route
 * table (simulators/platform/http/index.ts) and the HTTP device driver
 * (simulators/device/http-device.ts) read it.
 */
import { clientAttributesSchema } from './attributes';
import { claimSchema } from './claim';
import { firmwareQuerySchema, longPollQuerySchema } from './firmware';
import { provisionRequestSchema } from './provision';
import { telemetrySchema } from './telemetry';

export const DEVICE_HTTP_API = {
  telemetry: {
    method: 'POST',
    path: '/api/v1/{token}/telemetry',
    schema: telemetrySchema,
  },
  postAttributes: {
    method: 'POST',
    path: '/api/v1/{token}/attributes',
    schema: clientAttributesSchema,
  },
  /** ?clientKeys=a,b&sharedKeys=c */
  getAttributes: { method: 'GET', path: '/api/v1/{token}/attributes', schema: undefined },
  /** Long-poll: ?timeout=ms. */
  attributeUpdates: {
    method: 'GET',
    path: '/api/v1/{token}/attributes/updates',
    schema: longPollQuerySchema,
  },
  /** Long-poll for a server-side RPC: ?timeout=ms. */
  rpcPoll: { method: 'GET', path: '/api/v1/{token}/rpc', schema: longPollQuerySchema },
  /** The device's reply to a server-side RPC (any JSON document). */
  rpcReply: { method: 'POST', path: '/api/v1/{token}/rpc/{id}', schema: undefined },
  /** A client-side RPC (any JSON document). */
  clientRpc: { method: 'POST', path: '/api/v1/{token}/rpc', schema: undefined },
  claim: { method: 'POST', path: '/api/v1/{token}/claim', schema: claimSchema },
  /** No token: the provisioning key and secret are in the body. */
  provision: { method: 'POST', path: '/api/v1/provision', schema: provisionRequestSchema },
  /** ?title=&version=[&size=&chunk=] */
  firmware: { method: 'GET', path: '/api/v1/{token}/firmware', schema: firmwareQuerySchema },
} as const satisfies Record<string, DeviceHttpRoute>;

/** A row of DEVICE_HTTP_API. */
export interface DeviceHttpRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /**
   * The request body's schema (for a GET: its query's) when one JSON Schema says it; undefined
   * otherwise.
   */
  readonly schema: object | undefined;
}

export type DeviceHttpRole = keyof typeof DEVICE_HTTP_API;

/** The path of a role for a device, `{token}` (URL-encoded) and `{id}` filled in. */
export function deviceHttpPath(role: DeviceHttpRole, token: string, id?: number | string): string {
  return DEVICE_HTTP_API[role].path
    .replace('{token}', encodeURIComponent(token))
    .replace('{id}', String(id));
}
