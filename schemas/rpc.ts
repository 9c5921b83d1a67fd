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

/** Body of an admin server-side RPC call (POST /api/plugins/rpc/{oneway|twoway}/{deviceId}). */
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
  },
} as const;
