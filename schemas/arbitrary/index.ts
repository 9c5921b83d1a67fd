/**
 * fast-check arbitraries derived from the JSON Schemas of this folder: schemas/ is the single
 * source of truth, so the shapes the fuzzers produce are the shapes the validators accept, and a
 * schema change moves both.
 *
 * Why hand-written: the npm registry has no maintained JSON-Schema → fast-check 4 deriver. The only
 * candidate, `json-schema-fast-check` 0.0.6, pins fast-check ^1 and faker 4; `json-schema-faker`
 * draws from its own random source, so its samples neither shrink nor replay from a fast-check
 * seed. Our schemas use a small subset of JSON Schema, and the deriver (derive.ts) covers exactly
 * that subset (and throws on anything else rather than guessing):
 *   type (one or an array of types), enum, const, object (properties / required /
 *   additionalProperties / propertyNames / minProperties / maxProperties), array (items / minItems
 *   / maxItems), anyOf, oneOf, `not` (any schema, applied as a filter; `not: {required: [...]}` is
 *   the case our telemetry schema needs), integer and number with minimum / maximum / exclusive
 *   bounds, string with minLength / maxLength / simple patterns, and `{}` = any JSON.
 *
 * Key-value values need more than the shape: the TYPE of a value (LONG `42` versus DOUBLE `42.0`)
 * is invisible in plain JS numbers. So the payload arbitraries replace the value schema
 * (`keyValueSchema`, matched by identity) with a generator of explicit `TypedValue`s and serialize
 * through `typedValueToLossless` + `stringifyLossless`: `21.5` goes on the wire as a DOUBLE,
 * `9223372036854775807` as a LONG, and each payload carries the entries the platform must store
 * (key, typed value, and `ts` for the timestamped form).
 *
 * Every arbitrary is deterministic for a given fast-check seed and shrinks like any fast-check
 * arbitrary.
 */
export {
  type JsonSchema,
  UnsupportedSchemaError,
  arbitraryFromSchema,
} from './derive';
export { keyArbitrary, typedValueArbitrary } from './values';
export {
  type ExpectedEntry,
  type TelemetryForm,
  type ValidPayload,
  type MalformedPayload,
  validTelemetry,
  validClientAttributes,
  hasStringValue,
  hasLateTs,
  storesNothingFor,
  payloadPart,
  type PayloadPart,
  malformedTelemetry,
  malformedClientAttributes,
} from './payloads';
export {
  type GatewayResource,
  type GatewayExpectedEntry,
  type ValidGatewayPayload,
  validGatewayTelemetry,
  validGatewayAttributes,
  hasUntimedEntry,
  malformedGatewayTelemetry,
  malformedGatewayAttributes,
} from './gateway';
