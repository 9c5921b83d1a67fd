/**
 * Query of GET /api/v1/{token}/firmware: title and version required; size and chunk select a part.
 */
export const firmwareQuerySchema = {
  $id: 'iotc:firmware-query',
  type: 'object',
  required: ['title', 'version'],
  properties: {
    title: { type: 'string', minLength: 1 },
    version: { type: 'string', minLength: 1 },
    size: { type: 'string', pattern: '^[0-9]{1,15}$' },
    chunk: { type: 'string', pattern: '^[0-9]{1,15}$' },
  },
} as const;

/** Query of the long-polls (attributes/updates, rpc): timeout in milliseconds. */
export const longPollQuerySchema = {
  $id: 'iotc:long-poll-query',
  type: 'object',
  properties: { timeout: { type: 'string', pattern: '^[0-9]{1,15}$' } },
} as const;
