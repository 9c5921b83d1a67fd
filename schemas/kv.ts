/**
 * Key-value data (docs/reference/interfaces.md "Key-value data"): a key is a string; a value is a
 * string, boolean, number (double or long, told apart by lib/kv/values.ts) or JSON (nested objects
 * and arrays). null is not a value type.
 */
export const keyValueSchema = {
  $id: 'iotc:kv-value',
  type: ['string', 'boolean', 'number', 'object', 'array'],
} as const;

export const keyValueObjectSchema = {
  $id: 'iotc:kv-object',
  type: 'object',
  additionalProperties: keyValueSchema,
} as const;
