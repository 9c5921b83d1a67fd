/**
 * Quirks mode: the reference reproduces the known deviations of a real platform version, so that the deviation
 * machinery (a profile declares a deviation, an alternative scenario verifies it) is itself tested here. The
 * reference's own behaviour (no quirks) is the specification's; a quirks mode never becomes the default.
 */
export interface Quirks {
  /** Status of a malformed or wrongly shaped telemetry or attributes body (ThingsBoard: 500, plain-text message). */
  malformedPayloadStatus: 400 | 500;
  /** ThingsBoard drops a null value silently instead of refusing the payload. */
  dropNullValues: boolean;
  /** ThingsBoard stores a string that parses as a number as a LONG or DOUBLE (transport.json.type_cast_enabled). */
  castNumericStrings: boolean;
}

export const NO_QUIRKS: Quirks = { malformedPayloadStatus: 400, dropNullValues: false, castNumericStrings: false };

export const QUIRKS_MODES = {
  /** ThingsBoard 4.3 (monolith or microservices): platform-facts.md §2 and §3. */
  'thingsboard-4.3': { malformedPayloadStatus: 500, dropNullValues: true, castNumericStrings: true },
} as const satisfies Record<string, Quirks>;

export type QuirksMode = keyof typeof QUIRKS_MODES;
