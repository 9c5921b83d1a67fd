/** Abusive payloads of the robustness scenarios, built to an exact size or depth. */
import { GATEWAY_API } from '../../../schemas/gateway';

/**
 * `{"<key>":[[…[1]…]]}`: arrays and objects nested exactly `depth` levels (the outer object counts
 * as one), as text: a parser with a depth limit must refuse it before it builds anything.
 */
export function nestedDocument(key: string, depth: number): string {
  if (depth < 2) throw new RangeError(`a nested document needs a depth of 2 or more, not ${depth}`);
  const arrays = depth - 1;
  return `{${JSON.stringify(key)}:${'['.repeat(arrays)}1${']'.repeat(arrays)}}`;
}

/**
 * Key-value text in the shape a topic takes: as is on a device topic, under a device name on a
 * gateway topic.
 */
export function forTopic(
  topic: string,
  values: string,
  device: string | undefined,
): { text: string; wrapping: number } {
  if (topic === GATEWAY_API.telemetry.topic || topic === GATEWAY_API.attributes.topic) {
    if (device === undefined) throw new RangeError(`a message on ${topic} needs a device name`);
    return topic === GATEWAY_API.telemetry.topic
      ? {
          text: `{${JSON.stringify(device)}:[{"ts":${Date.now()},"values":${values}}]}`,
          wrapping: 3,
        }
      : { text: `{${JSON.stringify(device)}:${values}}`, wrapping: 1 };
  }
  return { text: values, wrapping: 0 };
}

/** A message of exactly `bytes` bytes for `topic`: its one value `iotc_big` a string of x. */
export function paddedMessage(topic: string, bytes: number, device?: string): string {
  const shape = (filler: string) => forTopic(topic, `{"iotc_big":"${filler}"}`, device).text;
  const fill = bytes - Buffer.byteLength(shape(''));
  if (fill < 0) throw new RangeError(`a message of ${bytes} bytes cannot be built for ${topic}`);
  return shape('x'.repeat(fill));
}

/**
 * A message for `topic` nested exactly `depth` levels deep in all (the topic's own wrapping
 * counted).
 */
export function nestedMessage(topic: string, depth: number, device?: string): string {
  const { wrapping } = forTopic(topic, '{}', device);
  return forTopic(topic, nestedDocument('iotc_deep', depth - wrapping), device).text;
}
