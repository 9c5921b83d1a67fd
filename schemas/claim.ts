/** Claim payload (HTTP /claim, MQTT claim topics): both fields optional. */
export const claimSchema = {
  $id: 'iotc:claim',
  type: 'object',
  properties: {
    secretKey: { type: 'string' },
    durationMs: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
  },
} as const;
