import { keyValueObjectSchema } from './kv';

/** POST /api/v1/{token}/attributes: a JSON object of client-side attribute key to value. */
export const clientAttributesSchema = {
  ...keyValueObjectSchema,
  $id: 'iotc:client-attributes',
} as const;

/**
 * GET /api/v1/{token}/attributes answer: `client` and `shared` members, each present only when it
 * has keys.
 */
export const attributesResponseSchema = {
  $id: 'iotc:attributes-response',
  type: 'object',
  properties: { client: keyValueObjectSchema, shared: keyValueObjectSchema },
  additionalProperties: false,
} as const;
