/**
 * The REST connector configuration file rest.json (docs/reference/interfaces.md, "REST connector
 * configuration"). Defaults are those of docs/reference/interfaces.md; where it is silent the
 * comment says whose default applies. Every timeout is in SECONDS, as in the real gateway
 * (docs/reference/rest-connector-facts.md §11). This file is the ONE place the defaults are
 * written: the reference connector reads them from here (simulators/connector/defaults.ts); `iotc
 * validate` checks a file against this schema and the semantic rules there.
 */

const nonEmpty = { type: 'string', minLength: 1 } as const;
const httpMethod = { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] } as const;
/** A regular expression (semantic check: it compiles). */
const regularExpression = { type: 'string' } as const;
/** A `${...}` expression (semantic check: lib/expressions parses it). */
const expression = { type: 'string' } as const;
const seconds = { type: 'number', exclusiveMinimum: 0 } as const;
const headers = { type: 'object', additionalProperties: { type: 'string' } } as const;

const basicOrAnonymous = {
  type: 'object',
  properties: {
    type: { enum: ['basic', 'anonymous'], default: 'basic' },
    username: { type: 'string', default: '<USERNAME>' },
    password: { type: 'string', default: '<PASSWORD>' },
  },
  additionalProperties: false,
} as const;

/**
 * A security section whose type defaults to anonymous (server-side RPC rules,
 * docs/reference/interfaces.md).
 */
const anonymousOrBasic = {
  ...basicOrAnonymous,
  properties: {
    ...basicOrAnonymous.properties,
    type: { ...basicOrAnonymous.properties.type, default: 'anonymous' },
  },
} as const;

const deviceInfoSchema = {
  type: 'object',
  properties: {
    deviceNameExpression: { ...expression, default: 'Device ${name}' },
    deviceNameExpressionSource: { enum: ['request', 'constant'], default: 'request' },
    deviceProfileExpression: { ...expression, default: 'default' },
    deviceProfileExpressionSource: { enum: ['request', 'constant'], default: 'request' },
  },
  additionalProperties: false,
} as const;

/**
 * A custom converter's deviceInfo: constant sources and a fixed name by default
 * (docs/reference/interfaces.md).
 */
const customDeviceInfoSchema = {
  ...deviceInfoSchema,
  properties: {
    deviceNameExpression: { ...expression, default: 'Custom device' },
    deviceNameExpressionSource: { enum: ['request', 'constant'], default: 'constant' },
    deviceProfileExpression: { ...expression, default: 'default' },
    deviceProfileExpressionSource: { enum: ['request', 'constant'], default: 'constant' },
  },
} as const;

/**
 * Types an entry may declare; multipart strings are converted by them (docs/reference/interfaces.md
 * rule 3).
 */
const ENTRY_TYPES = [
  'string',
  'str',
  'double',
  'float',
  'integer',
  'int',
  'long',
  'boolean',
  'bool',
  'json',
] as const;

const entrySchema = {
  type: 'object',
  required: ['key', 'type', 'value'],
  properties: {
    key: { ...expression, minLength: 1 },
    type: { enum: ENTRY_TYPES },
    value: { type: ['string', 'number', 'boolean'] },
  },
  additionalProperties: false,
} as const;

const timeseriesEntrySchema = {
  ...entrySchema,
  properties: {
    ...entrySchema.properties,
    tsField: expression,
    dayfirst: { type: 'boolean', default: false },
    yearfirst: { type: 'boolean', default: false },
  },
} as const;

const responseSchema = {
  type: 'object',
  properties: {
    successResponse: { type: 'string', default: 'OK' },
    unsuccessfulResponse: { type: 'string', default: 'Error' },
    responseExpected: { type: 'boolean', default: true },
    timeout: { ...seconds, default: 120, description: 'seconds' },
    responseAttribute: { ...nonEmpty, default: 'result' },
  },
  additionalProperties: false,
} as const;

const jsonConverterSchema = {
  type: 'object',
  properties: {
    type: { const: 'json' },
    deviceInfo: deviceInfoSchema,
    attributes: { type: 'array', items: entrySchema },
    timeseries: { type: 'array', items: timeseriesEntrySchema },
  },
  additionalProperties: false,
} as const;

/**
 * Everything in a custom converter's section is passed to it (docs/reference/interfaces.md); only
 * these members are checked.
 */
const customConverterSchema = {
  type: 'object',
  required: ['type', 'extension'],
  properties: {
    type: { const: 'custom' },
    deviceInfo: customDeviceInfoSchema,
    extension: nonEmpty,
    extensionConfig: {},
  },
} as const;

const mappingSchema = {
  type: 'object',
  properties: {
    endpoint: { type: 'string', pattern: '^/', default: '/test_device' },
    HTTPMethods: {
      type: 'array',
      items: httpMethod,
      minItems: 1,
      uniqueItems: true,
      default: ['GET'],
    },
    security: basicOrAnonymous,
    converter: { type: 'object', required: [], properties: { type: { enum: ['json', 'custom'] } } },
    response: responseSchema,
    /**
     * Read by the real gateway (which values to send when); the reference sends every value it
     * receives.
     */
    reportStrategy: { type: 'object' },
  },
  additionalProperties: false,
} as const;

const attributeRequestSchema = {
  type: 'object',
  properties: {
    endpoint: { type: 'string', pattern: '^/', default: '/sharedAttributes' },
    type: { enum: ['shared', 'client'], default: 'shared' },
    HTTPMethods: {
      type: 'array',
      items: httpMethod,
      minItems: 1,
      uniqueItems: true,
      default: ['POST'],
    },
    security: basicOrAnonymous,
    timeout: { ...seconds, default: 10, description: 'seconds' },
    deviceNameExpression: { ...expression, default: '${deviceName}' },
    attributeNameExpression: { ...expression, default: '${attribute}' },
  },
  additionalProperties: false,
} as const;

/**
 * Members of an outgoing call (attribute updates and server-side RPC); each rule kind adds its own
 * defaults.
 */
const outgoingProperties = {
  httpMethod: httpMethod,
  /** The spelling of the examples and of the real gateway; the same as httpMethod. */
  HTTPMethod: httpMethod,
  SSLVerify: { type: 'boolean', default: false },
  httpHeaders: { ...headers, default: { 'CONTENT-TYPE': 'application/json' } },
  security: basicOrAnonymous,
  timeout: { ...seconds, default: 0.5, description: 'seconds, per attempt' },
  tries: { type: 'integer', minimum: 1, default: 3 },
  allowRedirects: { type: 'boolean', default: true },
  requestUrlExpression: { ...expression, minLength: 1 },
  valueExpression: { type: ['string', 'object', 'array', 'number', 'boolean'] },
  deviceNameFilter: regularExpression,
} as const;

const attributeUpdateSchema = {
  type: 'object',
  properties: {
    ...outgoingProperties,
    httpMethod: { ...httpMethod, default: 'POST' },
    requestUrlExpression: {
      ...outgoingProperties.requestUrlExpression,
      default: 'sensor/${deviceName}/${attributeKey}',
    },
    valueExpression: {
      ...outgoingProperties.valueExpression,
      default: '{"${attributeKey}":"${attributeValue}"}',
    },
    deviceNameFilter: { ...regularExpression, default: '.*REST$' },
    attributeFilter: { ...regularExpression, default: 'data' },
  },
  additionalProperties: false,
} as const;

const serverSideRpcSchema = {
  type: 'object',
  properties: {
    ...outgoingProperties,
    httpMethod: { ...httpMethod, default: 'GET' },
    security: anonymousOrBasic,
    requestUrlExpression: {
      ...outgoingProperties.requestUrlExpression,
      default: 'http://127.0.0.1:5001/${deviceName}',
    },
    valueExpression: { ...outgoingProperties.valueExpression, default: '${params}' },
    deviceNameFilter: { ...regularExpression, default: '.*' },
    methodFilter: { ...regularExpression, default: 'echo' },
    responseTimeout: {
      ...seconds,
      default: 1,
      description: 'seconds: the whole wait for the reply, every try included',
    },
  },
  additionalProperties: false,
} as const;

export const restConnectorConfigSchema = {
  $id: 'iotc:rest-connector-config',
  type: 'object',
  required: ['server', 'mapping'],
  properties: {
    // members the real gateway reads or writes at the root (docs/reference/rest-connector-facts.md
    // §1)
    name: { type: 'string' },
    id: { type: 'string' },
    logLevel: { type: 'string' },
    enableRemoteLogging: { type: 'boolean' },
    debugMode: { type: 'boolean' },
    reportStrategy: { type: 'object' },
    server: {
      type: 'object',
      properties: {
        host: { ...nonEmpty, default: '127.0.0.1' },
        /** A number, or its digits as a string (the gateway's own example files write "5000"). */
        port: {
          anyOf: [
            { type: 'integer', minimum: 0, maximum: 65535 },
            { type: 'string', pattern: '^\\d{1,5}$' },
          ],
          default: 5000,
        },
        SSL: { type: 'boolean', default: false },
        security: {
          type: 'object',
          properties: { cert: nonEmpty, key: nonEmpty },
          required: ['cert', 'key'],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    mapping: { type: 'array', items: mappingSchema },
    requestsMapping: {
      type: 'object',
      properties: {
        attributeRequests: { type: 'array', items: attributeRequestSchema },
        attributeUpdates: { type: 'array', items: attributeUpdateSchema },
        serverSideRpc: { type: 'array', items: serverSideRpcSchema },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** The json converter and custom converter sections, checked once the converter type is known. */
export const jsonConverterSectionSchema = jsonConverterSchema;
export const customConverterSectionSchema = customConverterSchema;
