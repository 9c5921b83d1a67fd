/**
 * The target's answers as the steps read them (read through steps/support/answer-of.ts): only the
 * members a step reads are required, every other member is allowed (a real platform's answers carry
 * many more). A target that answers another shape fails the scenario with the member named, not
 * with a TypeError deep in a step.
 */

/** ThingsBoard's entity id: `{"entityType": ..., "id": uuid}`; the steps read only the uuid. */
const entityIdSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

/**
 * POST /api/auth/login and POST /api/auth/token, 200: a token pair
 * (docs/reference/platform-facts.md, administration authentication).
 */
export const loginAnswerSchema = {
  type: 'object',
  required: ['token', 'refreshToken'],
  properties: { token: { type: 'string' }, refreshToken: { type: 'string' } },
} as const;

/**
 * GET /api/admin/jwtSettings (the system administrator's): the token lifetimes in seconds, among
 * other members.
 */
export const jwtSettingsSchema = {
  type: 'object',
  required: ['tokenExpirationTime', 'refreshTokenExpTime'],
  properties: {
    tokenExpirationTime: { type: 'integer' },
    refreshTokenExpTime: { type: 'integer' },
  },
} as const;

/** GET /api/auth/user: the logged-in user. */
export const currentUserSchema = {
  type: 'object',
  required: ['id', 'email'],
  properties: { id: entityIdSchema, email: { type: 'string' }, authority: { type: 'string' } },
} as const;

/**
 * A refused request's body as ThingsBoard documents it (ThingsboardErrorResponseHandler;
 * docs/reference/platform-facts.md §8): `{"status", "message", "errorCode", "timestamp"}`, the
 * status that of the answer, the message null when Spring ended the request (its async timeout).
 */
export const refusalAnswerSchema = {
  type: 'object',
  required: ['status', 'message', 'errorCode', 'timestamp'],
  properties: {
    status: { type: 'integer' },
    message: { type: ['string', 'null'] },
    errorCode: { type: 'integer' },
    timestamp: { type: 'integer' },
  },
} as const;

/** POST /api/apiKey: the created key, the only answer that shows its value. */
export const createdApiKeySchema = {
  type: 'object',
  required: ['id', 'value'],
  properties: { id: entityIdSchema, value: { type: 'string' } },
} as const;

/** GET /api/apiKeys/{userId}: a page of keys; `value` is read only to prove it is absent. */
export const apiKeyPageSchema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: entityIdSchema, value: {} } },
    },
  },
} as const;

/**
 * GET /api/tenantProfile/{id}: the device limit lives in profileData.configuration (absent =
 * unlimited).
 */
export const tenantProfileSchema = {
  type: 'object',
  required: ['id', 'profileData'],
  properties: {
    id: entityIdSchema,
    profileData: {
      type: 'object',
      required: ['configuration'],
      properties: {
        configuration: {
          type: 'object',
          properties: { maxDevices: { type: 'integer' } },
        },
      },
    },
  },
} as const;

/**
 * A device record (POST /api/device, GET /api/tenant/devices?deviceName=): the id of its device
 * profile.
 */
export const deviceProfileOfDeviceSchema = {
  type: 'object',
  required: ['deviceProfileId'],
  properties: { deviceProfileId: entityIdSchema },
} as const;

/**
 * GET /api/v1/{token}/attributes?sharedKeys=...: `shared` is absent when none of the keys is set.
 */
export const sharedAttributesAnswerSchema = {
  type: 'object',
  properties: { shared: { type: 'object' } },
} as const;

/**
 * v1/gateway/attributes/response: an object (`{"id", "device", "value"}` or `"values"`), read
 * member by member.
 */
export const gatewayAttributeAnswerSchema = { type: 'object' } as const;

/**
 * A two-way RPC's reply when the device (here the REST connector) answered with an error:
 * `{"error": "..."}`.
 */
export const rpcErrorReplySchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' } },
} as const;

/** POST /api/device/claim (customer): `{"response": "SUCCESS"}` when claimed. */
export const claimAnswerSchema = {
  type: 'object',
  required: ['response'],
  properties: { response: { type: 'string' } },
} as const;

/** The analytics buildReport answer's column labels (docs/reference/analytics-facts.md). */
export const reportColumnLabelsSchema = {
  type: 'object',
  required: ['columnLabels'],
  properties: { columnLabels: { type: 'array' } },
} as const;

/** The analytics buildReport answer's rows: one object per row, by column label. */
export const reportDataTableSchema = {
  type: 'object',
  required: ['dataTable'],
  properties: { dataTable: { type: 'array', items: { type: 'object' } } },
} as const;

/** GET /v3/api-docs: the OpenAPI description; the steps read the paths and the security schemes. */
export const apiDescriptionSchema = {
  type: 'object',
  required: ['paths'],
  properties: {
    paths: { type: 'object', additionalProperties: { type: 'object' } },
    components: {
      type: 'object',
      properties: {
        securitySchemes: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['type'],
            properties: {
              type: { type: 'string' },
              in: { type: 'string' },
              name: { type: 'string' },
              description: { type: 'string' },
              flows: {},
            },
          },
        },
      },
    },
  },
} as const;
