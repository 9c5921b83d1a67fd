/**
 * The TypeScript type of a document that passed a schema (parseValid in
 * simulators/platform/core/payloads.ts): FromSchema of the schema, except for the schemas
 * FromSchema cannot express, whose types are written here by hand and found by the schema's `$id`:
 * telemetry (its `not`) and everything holding key-value objects (a value is JSON of any depth, a
 * union too deep for FromSchema to instantiate).
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** Plain-JS view of a JSON value (numbers as JS numbers). */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
type KeyValueObject = Record<
  string,
  string | number | boolean | JsonValue[] | { [key: string]: JsonValue }
>;
type TimestampedTelemetry = { ts: number; values: KeyValueObject };
/**
 * The three telemetry forms. Written by hand from telemetrySchema: FromSchema cannot express its
 * `not`.
 */
type Telemetry =
  | KeyValueObject
  | TimestampedTelemetry
  | Array<KeyValueObject | TimestampedTelemetry>;

/** The hand-written types, by `$id` (schemas/kv.ts, telemetry.ts, attributes.ts, gateway.ts). */
interface HandWrittenTypes {
  'iotc:kv-object': KeyValueObject;
  'iotc:client-attributes': KeyValueObject;
  'iotc:telemetry': Telemetry;
  /** Timestamped elements may carry other members, which are ignored. */
  'iotc:telemetry-accepted': Telemetry;
  'iotc:telemetry-element-accepted': KeyValueObject | TimestampedTelemetry;
  'iotc:gateway-telemetry': Record<string, Array<{ ts?: number; values: KeyValueObject }>>;
  'iotc:gateway-telemetry-thingsboard': Record<
    string,
    Array<KeyValueObject | TimestampedTelemetry>
  >;
  'iotc:gateway-attributes': Record<string, KeyValueObject>;
}

/** What a document that passed `Schema` is, numbers as JS numbers. */
export type DocumentOf<Schema extends JSONSchema> = Schema extends {
  readonly $id: infer Id extends keyof HandWrittenTypes;
}
  ? HandWrittenTypes[Id]
  : FromSchema<Schema>;
