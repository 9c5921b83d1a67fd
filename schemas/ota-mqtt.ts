/**
 * The MQTT firmware and software download's protocol table (docs/reference/platform-facts.md §4.3;
 * ThingsBoard: MqttTopics.java:80-88, MqttTransportHandler.getOtaPackageCallback): each topic by
 * its role, with its direction. `{kind}` is fw (firmware) or sw (software), `{id}` the request id
 * the device chooses, `{chunk}` the chunk's number from 0. The payloads are no JSON: the request
 * carries the chunk size as decimal text, the response the chunk's bytes, the error a status text.
 * The reference (simulators/platform/mqtt/firmware-topics.ts, subscribe.ts), the device driver
 * (simulators/device/mqtt-firmware.ts) and certify read it; no OTA topic is written elsewhere.
 */
import type { DeviceTopicRule } from './device-mqtt';

export const OTA_MQTT_API = {
  /**
   * The chunk size as decimal text: empty = the size given earlier for the request id, else the
   * whole file.
   */
  chunkRequest: {
    topic: 'v2/{kind}/request/{id}/chunk/{chunk}',
    direction: 'uplink',
    schema: undefined,
  },
  /** The chunk's bytes, sent whether or not the device subscribed. */
  chunkResponse: {
    topic: 'v2/{kind}/response/{id}/chunk/{chunk}',
    direction: 'downlink',
    schema: undefined,
  },
  /** The status text of a request that cannot be served (NOT_FOUND, ...); the session then ends. */
  error: { topic: 'v2/{kind}/error', direction: 'downlink', schema: undefined },
} as const satisfies Record<string, DeviceTopicRule>;

export type OtaMqttRole = keyof typeof OTA_MQTT_API;
export type OtaKind = 'fw' | 'sw';
export const OTA_KINDS: readonly OtaKind[] = ['fw', 'sw'];

/** The topic of a role, its fields filled in. */
export function otaTopic(
  role: OtaMqttRole,
  { kind = 'fw', id, chunk }: { kind?: OtaKind; id?: number | string; chunk?: number } = {},
): string {
  return OTA_MQTT_API[role].topic
    .replace('{kind}', kind)
    .replace('{id}', String(id))
    .replace('{chunk}', String(chunk));
}

/** The subscription filter of a role for one kind: its `{id}` and `{chunk}` as the wildcard `+`. */
export function otaTopicFilter(role: OtaMqttRole, kind: OtaKind = 'fw'): string {
  return OTA_MQTT_API[role].topic
    .replace('{kind}', kind)
    .replace('{id}', '+')
    .replace('{chunk}', '+');
}

/**
 * The filter ThingsBoard's SDKs subscribe to for the chunks, v2/fw/response/+ (one level short of
 * the chunk topics: ThingsBoard refuses it and sends the chunks anyway,
 * docs/reference/platform-facts.md §4.3).
 */
export const OTA_SDK_RESPONSE_FILTER = OTA_MQTT_API.chunkResponse.topic
  .replace('{kind}', 'fw')
  .replace(/\{id\}.*$/, '+');

/**
 * The pattern of a role's topics: `{kind}` fw or sw, `{id}` and `{chunk}` decimal (as ThingsBoard's
 * REQUEST_ID_PATTERN and CHUNK_PATTERN) unless `idPattern` says otherwise. Groups: kind, id, chunk.
 */
export function otaTopicPattern(role: OtaMqttRole, idPattern = '\\d+'): RegExp {
  const source = OTA_MQTT_API[role].topic
    .replace('{kind}', '(?<kind>fw|sw)')
    .replace('{id}', `(?<id>${idPattern})`)
    .replace('{chunk}', '(?<chunk>\\d+)');
  return new RegExp(`^${source}$`);
}

const CHUNK_REQUEST = otaTopicPattern('chunkRequest');

/**
 * A chunk request's kind, request id and chunk number; undefined when the topic is no chunk
 * request.
 */
export function otaChunkRequest(
  topic: string,
): { kind: OtaKind; id: string; chunk: number } | undefined {
  const groups = CHUNK_REQUEST.exec(topic)?.groups;
  if (!groups) return undefined;
  return { kind: groups.kind as OtaKind, id: groups.id, chunk: Number(groups.chunk) };
}
