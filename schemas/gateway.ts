/**
 * Payloads of the MQTT gateway API (docs/reference/interfaces.md "MQTT gateway API"), uplink
 * (gateway → platform). Device names are object keys or `device` members: a non-empty string.
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

/**
 * One element of a device's telemetry array: values required, ts optional (server time when
 * absent).
 */
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
 * v1/gateway/telemetry as ThingsBoard reads it (quirks mode): each element is a telemetry element
 * of the device API, so one without both `ts` and `values` is itself the key-value object
 * (`gw_send_telemetry(dev, {"k": 1})`).
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

/**
 * docs/reference/interfaces.md's attribute request: key names per scope, both optional (neither:
 * every client and shared key).
 */
export const gatewayAttributeRequestSpecSchema = {
  $id: 'iotc:gateway-attribute-request-spec',
  type: 'object',
  required: ['id', 'device'],
  properties: { id: integer, device: deviceName, client: keyNames, shared: keyNames },
} as const;

/**
 * ThingsBoard's attribute request, which real gateways send: one scope (`client` true or false),
 * `key` or `keys`.
 */
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

/**
 * The MQTT gateway API's protocol table (docs/reference/interfaces.md "MQTT gateway API"): each row
 * a topic, by the role it plays, with its direction (uplink: the gateway publishes and the platform
 * handles it; downlink: the platform publishes to a gateway subscribed to it; both), the schema of
 * its uplink payload (the specification's shape) and where its payload names the devices (object
 * keys, or a `device` member). Read by the reference platform (its topic handlers and the topics it
 * lets a gateway subscribe to), the gateway driver (GATEWAY_TOPICS) and certify (the payload shapes
 * it judges a gateway's publishes by): a new topic is a row here and its handler there.
 */
export const GATEWAY_API = {
  connect: {
    topic: 'v1/gateway/connect',
    direction: 'uplink',
    schema: gatewayConnectSchema,
    devices: 'member',
  },
  disconnect: {
    topic: 'v1/gateway/disconnect',
    direction: 'uplink',
    schema: gatewayDisconnectSchema,
    devices: 'member',
  },
  telemetry: {
    topic: 'v1/gateway/telemetry',
    direction: 'uplink',
    schema: gatewayTelemetrySchema,
    devices: 'keys',
  },
  /**
   * Uplink: client-side attributes by device; downlink: a shared-attribute update { device, data }.
   */
  attributes: {
    topic: 'v1/gateway/attributes',
    direction: 'both',
    schema: gatewayAttributesSchema,
    devices: 'keys',
  },
  attributesRequest: {
    topic: 'v1/gateway/attributes/request',
    direction: 'uplink',
    schema: gatewayAttributeRequestSpecSchema,
    devices: 'member',
  },
  /**
   * The answer to an attribute request: { id, device, ... } (its shape is not fixed by the
   * specification).
   */
  attributesResponse: {
    topic: 'v1/gateway/attributes/response',
    direction: 'downlink',
    schema: undefined,
    devices: 'member',
  },
  /** Downlink: a server-side RPC { device, data: { id, method, params } }; uplink: its reply. */
  rpc: {
    topic: 'v1/gateway/rpc',
    direction: 'both',
    schema: gatewayRpcReplySchema,
    devices: 'member',
  },
  claim: {
    topic: 'v1/gateway/claim',
    direction: 'uplink',
    schema: gatewayClaimSchema,
    devices: 'keys',
  },
} as const satisfies Record<string, GatewayTopicRule>;

/** A row of GATEWAY_API. */
export interface GatewayTopicRule {
  readonly topic: string;
  readonly direction: 'uplink' | 'downlink' | 'both';
  /** The uplink payload's schema; undefined for a downlink-only topic. */
  readonly schema: object | undefined;
  /** Where the payload names its devices: its object keys, or its `device` member. */
  readonly devices: 'keys' | 'member';
}

export type GatewayRole = keyof typeof GATEWAY_API;
/**
 * The roles a gateway publishes on (direction uplink or both): each has a handler in the reference
 * platform.
 */
export type GatewayUplinkRole = {
  [Role in GatewayRole]: (typeof GATEWAY_API)[Role]['direction'] extends 'downlink' ? never : Role;
}[GatewayRole];

/** The rows of the gateway API, each with its role. */
export function gatewayTopicRules(): Array<GatewayTopicRule & { role: GatewayRole }> {
  return Object.entries(GATEWAY_API).map(([role, rule]) => ({
    ...rule,
    role: role as GatewayRole,
  }));
}

/** What every gateway topic starts with (the connect topic's folder). */
export const GATEWAY_TOPIC_PREFIX = GATEWAY_API.connect.topic.slice(
  0,
  GATEWAY_API.connect.topic.lastIndexOf('/') + 1,
);

const GATEWAY_ROLES = new Map<string, GatewayRole>(
  Object.entries(GATEWAY_API).map(([role, rule]) => [rule.topic, role as GatewayRole]),
);

/** The role of a gateway topic; undefined when the table has no such topic. */
export function gatewayTopicRole(topic: string): GatewayRole | undefined {
  return GATEWAY_ROLES.get(topic);
}
