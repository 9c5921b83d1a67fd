/**
 * POST /api/v1/provision request. The three fields are required (docs/reference/interfaces.md); the
 * rest are the platform's options.
 */
export const provisionRequestSchema = {
  $id: 'iotc:provision-request',
  type: 'object',
  required: ['deviceName', 'provisionDeviceKey', 'provisionDeviceSecret'],
  properties: {
    deviceName: { type: 'string' },
    provisionDeviceKey: { type: 'string' },
    provisionDeviceSecret: { type: 'string' },
    credentialsType: { enum: ['ACCESS_TOKEN', 'MQTT_BASIC', 'X509_CERTIFICATE'] },
    token: { type: 'string' },
    clientId: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    hash: { type: 'string' },
    gateway: { type: 'boolean' },
  },
} as const;

/**
 * The provisioning answer (docs/reference/platform-facts.md §6): always HTTP 200, the outcome in
 * `status`.
 */
export const provisionResponseSchema = {
  $id: 'iotc:provision-response',
  type: 'object',
  required: ['status'],
  properties: {
    status: { enum: ['SUCCESS', 'NOT_FOUND', 'FAILURE'] },
    credentialsType: { type: 'string' },
    credentialsValue: {},
    errorMsg: { type: 'string' },
  },
} as const;
