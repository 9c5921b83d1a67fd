/** Abusive payloads of the robustness scenarios, built to an exact size or depth. */

/**
 * `{"<key>":[[…[1]…]]}`: arrays and objects nested exactly `depth` levels (the outer object counts as one), as
 * text: a parser with a depth limit must refuse it before it builds anything.
 */
export function nestedDocument(key: string, depth: number): string {
  if (depth < 2) throw new RangeError(`a nested document needs a depth of 2 or more, not ${depth}`);
  const arrays = depth - 1;
  return `{${JSON.stringify(key)}:${'['.repeat(arrays)}1${']'.repeat(arrays)}}`;
}

/**
 * Telemetry of exactly `bytes` bytes: `{"iotc_big":"xxx…"}` for a device topic, or for a gateway topic (when a
 * device name is given) `{"<device>":[{"ts":…,"values":{"iotc_big":"xxx…"}}]}`.
 */
export function paddedTelemetry(bytes: number, device?: string): string {
  const shape = (filler: string) =>
    device === undefined
      ? `{"iotc_big":"${filler}"}`
      : `{${JSON.stringify(device)}:[{"ts":${Date.now()},"values":{"iotc_big":"${filler}"}}]}`;
  const fill = bytes - Buffer.byteLength(shape(''));
  if (fill < 0) throw new RangeError(`telemetry of ${bytes} bytes cannot be built`);
  return shape('x'.repeat(fill));
}
