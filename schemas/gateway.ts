/**
 * Payloads of the MQTT gateway API (docs/reference/interfaces.md "MQTT gateway API"), uplink (gateway → platform).
 * Device names are object keys or `device` members: a non-empty string.
 */
import { keyValueObjectSchema } from './kv';
import { acceptedTelemetryElementSchema } from './telemetry';

const deviceName = { type: 'string', minLength: 1 } as const;
const integer = { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } as const;
const keyNames = { type: 'array', items: { type: 'string' } } as const;

/** v1/gateway/connect: device (required), type (optional device profile name). */
export const gatewayConnectSchema = {
  $id: 'iotc:gateway-connect',
  type: 'object',
  required: ['device'],
  properties: { device: deviceName, type: { type: 'string', minLength: 1 } },
} as const;

/** v1/gateway/disconnect: device (required). */
export const gatewayDisconnectSchema = {
  $id: 'iotc:gateway-disconnect',
  type: 'object',
  required: ['device'],
  properties: { device: deviceName },
} as const;

/** One element of a device's telemetry array: values required, ts optional (server time when absent). */
export const gatewayTelemetryEntrySchema = {
  $id: 'iotc:gateway-telemetry-entry',
  type: 'object',
  required: ['values'],
  properties: { ts: integer, values: keyValueObjectSchema },
} as const;

/** v1/gateway/telemetry: device name → array of entries. */
export const gatewayTelemetrySchema = {
  $id: 'iotc:gateway-telemetry',
  type: 'object',
  minProperties: 1,
  propertyNames: { minLength: 1 },
  additionalProperties: { type: 'array', items: gatewayTelemetryEntrySchema },
} as const;

/**
 * v1/gateway/telemetry as ThingsBoard reads it (quirks mode): each element is a telemetry element of the device
 * API, so one without both `ts` and `values` is itself the key-value object (`gw_send_telemetry(dev, {"k": 1})`).
 */
export const gatewayTelemetryThingsboardSchema = {
  ...gatewayTelemetrySchema,
  $id: 'iotc:gateway-telemetry-thingsboard',
  additionalProperties: { type: 'array', items: acceptedTelemetryElementSchema },
} as const;

/** v1/gateway/attributes (uplink): device name → object of client-side attribute key to value. */
export const gatewayAttributesSchema = {
  $id: 'iotc:gateway-attributes',
  type: 'object',
  minProperties: 1,
  propertyNames: { minLength: 1 },
  additionalProperties: keyValueObjectSchema,
} as const;

/** docs/reference/interfaces.md's attribute request: key names per scope, both optional (neither: every client and shared key). */
export const gatewayAttributeRequestSpecSchema = {
  $id: 'iotc:gateway-attribute-request-spec',
  type: 'object',
  required: ['id', 'device'],
  properties: { id: integer, device: deviceName, client: keyNames, shared: keyNames },
} as const;

/** ThingsBoard's attribute request, which real gateways send: one scope (`client` true or false), `key` or `keys`. */
export const gatewayAttributeRequestThingsboardSchema = {
  $id: 'iotc:gateway-attribute-request-thingsboard',
  type: 'object',
  required: ['id', 'device', 'client'],
  properties: {
    id: integer,
    device: deviceName,
    client: { type: 'boolean' },
    key: { type: 'string' },
    keys: keyNames,
  },
  anyOf: [{ required: ['key'] }, { required: ['keys'] }],
} as const;

/** v1/gateway/attributes/request: either shape (the reference serves both). */
export const gatewayAttributeRequestSchema = {
  $id: 'iotc:gateway-attribute-request',
  anyOf: [gatewayAttributeRequestThingsboardSchema, gatewayAttributeRequestSpecSchema],
} as const;

/** v1/gateway/rpc (uplink): the reply to a server-side RPC. */
export const gatewayRpcReplySchema = {
  $id: 'iotc:gateway-rpc-reply',
  type: 'object',
  required: ['device', 'id', 'data'],
  properties: { device: deviceName, id: integer, data: {} },
} as const;

/** v1/gateway/claim: device name → { secretKey?, durationMs? }. */
export const gatewayClaimSchema = {
  $id: 'iotc:gateway-claim',
  type: 'object',
  minProperties: 1,
  propertyNames: { minLength: 1 },
  additionalProperties: {
    type: 'object',
    properties: { secretKey: { type: 'string' }, durationMs: integer },
  },
} as const;
