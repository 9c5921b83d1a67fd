/** RPC request delivered to a device (server to device): id, method, params. */
export const rpcRequestSchema = {
  $id: 'iotc:rpc-request',
  type: 'object',
  required: ['id', 'method'],
  properties: {
    id: { type: 'integer' },
    method: { type: 'string' },
    params: {},
  },
} as const;

/**
 * Body of an admin server-side RPC call (POST /api/plugins/rpc/{oneway|twoway}/{deviceId},
 * /api/rpc/...): docs/reference/platform-facts.md §8. `retries` and `additionalInfo` are kept on a
 * persistent RPC's record.
 */
export const serverRpcCallSchema = {
  $id: 'iotc:server-rpc-call',
  type: 'object',
  required: ['method'],
  properties: {
    method: { type: 'string', minLength: 1 },
    params: {},
    timeout: { type: 'integer', minimum: 0 },
    expirationTime: { type: 'integer' },
    persistent: { type: 'boolean' },
    retries: { type: 'integer', minimum: 0 },
    additionalInfo: {},
  },
} as const;

/** The answer to a persistent RPC call: 200 once the RPC is stored and queued. */
export const persistentRpcAcceptedSchema = {
  $id: 'iotc:persistent-rpc-accepted',
  type: 'object',
  required: ['rpcId'],
  properties: { rpcId: { type: 'string', format: 'uuid' } },
} as const;

/** ThingsBoard's RpcStatus (Rpc.java, RpcStatus.java); DELETED is never read back. */
export const PERSISTENT_RPC_STATUSES = [
  'QUEUED',
  'SENT',
  'DELIVERED',
  'SUCCESSFUL',
  'TIMEOUT',
  'EXPIRED',
  'FAILED',
] as const;

const entityReference = (entityType: string) =>
  ({
    type: 'object',
    required: ['entityType', 'id'],
    properties: { entityType: { const: entityType }, id: { type: 'string', format: 'uuid' } },
  }) as const;

/**
 * A persistent RPC as GET /api/rpc/persistent/{rpcId} answers it (ThingsBoard's Rpc entity): its
 * id, device, expiry, the request it carries, the device's `response` (any JSON, null before the
 * reply) and its `status`.
 */
export const persistentRpcSchema = {
  $id: 'iotc:persistent-rpc',
  type: 'object',
  required: ['id', 'createdTime', 'deviceId', 'expirationTime', 'request', 'response', 'status'],
  properties: {
    id: entityReference('RPC'),
    createdTime: { type: 'integer' },
    tenantId: entityReference('TENANT'),
    deviceId: entityReference('DEVICE'),
    expirationTime: { type: 'integer' },
    request: {
      type: 'object',
      required: ['oneway', 'body'],
      properties: {
        oneway: { type: 'boolean' },
        body: {
          type: 'object',
          required: ['method'],
          properties: { method: { type: 'string' }, params: { type: ['string', 'null'] } },
        },
      },
    },
    response: {},
    status: { enum: PERSISTENT_RPC_STATUSES },
    additionalInfo: {},
  },
} as const;

/**
 * One page of a device's persistent RPCs (GET /api/rpc/persistent/device/{deviceId}?pageSize&page).
 */
export const persistentRpcPageSchema = {
  $id: 'iotc:persistent-rpc-page',
  type: 'object',
  required: ['data', 'totalPages', 'totalElements', 'hasNext'],
  properties: {
    data: { type: 'array', items: persistentRpcSchema },
    totalPages: { type: 'integer', minimum: 0 },
    totalElements: { type: 'integer', minimum: 0 },
    hasNext: { type: 'boolean' },
  },
} as const;
