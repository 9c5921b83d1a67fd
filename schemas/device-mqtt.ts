/**
 * The MQTT device API's protocol table (docs/reference/interfaces.md "MQTT device API";
 * ThingsBoard: docs/reference/platform-facts.md §4.3): each topic by its role, with its direction
 * and the uplink payload's schema. `{id}` in a topic is the request id the topic carries. The
 * reference's dispatch (simulators/platform/mqtt/device-topics.ts, subscribe.ts), the device driver
 * (simulators/device/mqtt-device.ts) and certify read it; no device topic is written elsewhere.
 */
import { clientAttributesSchema } from './attributes';
import { claimSchema } from './claim';
import { telemetrySchema } from './telemetry';

export const DEVICE_MQTT_API = {
  telemetry: { topic: 'v1/devices/me/telemetry', direction: 'uplink', schema: telemetrySchema },
  /** Uplink: client-side attributes; downlink: a shared-attribute update. */
  attributes: {
    topic: 'v1/devices/me/attributes',
    direction: 'both',
    schema: clientAttributesSchema,
  },
  /** {"clientKeys":"a,b","sharedKeys":"c"}, answered on attributesResponse with the same id. */
  attributesRequest: {
    topic: 'v1/devices/me/attributes/request/{id}',
    direction: 'uplink',
    schema: undefined,
  },
  attributesResponse: {
    topic: 'v1/devices/me/attributes/response/{id}',
    direction: 'downlink',
    schema: undefined,
  },
  /** Downlink: a server-side RPC {method, params}; uplink: a client-side RPC of the device. */
  rpcRequest: { topic: 'v1/devices/me/rpc/request/{id}', direction: 'both', schema: undefined },
  /**
   * Uplink: the device's reply to a server-side RPC (any payload); downlink: the answer to its
   * client-side RPC.
   */
  rpcResponse: { topic: 'v1/devices/me/rpc/response/{id}', direction: 'both', schema: undefined },
  claim: { topic: 'v1/devices/me/claim', direction: 'uplink', schema: claimSchema },
} as const satisfies Record<string, DeviceTopicRule>;

/** A row of DEVICE_MQTT_API. */
export interface DeviceTopicRule {
  readonly topic: string;
  readonly direction: 'uplink' | 'downlink' | 'both';
  /** The uplink payload's schema when one JSON Schema says it; undefined otherwise. */
  readonly schema: object | undefined;
}

export type DeviceMqttRole = keyof typeof DEVICE_MQTT_API;

/** What every device topic starts with (the telemetry topic's folder). */
export const DEVICE_TOPIC_PREFIX = DEVICE_MQTT_API.telemetry.topic.slice(
  0,
  DEVICE_MQTT_API.telemetry.topic.lastIndexOf('/') + 1,
);

/** The topic of a role, its `{id}` filled in. */
export function deviceTopic(role: DeviceMqttRole, id?: number | string): string {
  return DEVICE_MQTT_API[role].topic.replace('{id}', String(id));
}

/** The subscription filter of a role: its `{id}` as the wildcard `+`. */
export function deviceTopicFilter(role: DeviceMqttRole): string {
  return DEVICE_MQTT_API[role].topic.replace('{id}', '+');
}

const MATCHERS = Object.entries(DEVICE_MQTT_API).map(([role, rule]) => ({
  role: role as DeviceMqttRole,
  pattern: new RegExp(`^${rule.topic.replace('{id}', '(\\d{1,10})')}$`),
}));

/** The role and id of a device topic; undefined when the table has no such topic. */
export function deviceTopicRole(topic: string): { role: DeviceMqttRole; id?: string } | undefined {
  for (const { role, pattern } of MATCHERS) {
    const match = pattern.exec(topic);
    if (match) return { role, id: match[1] };
  }
  return undefined;
}
