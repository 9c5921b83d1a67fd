import { keyValueObjectSchema } from './kv';

/** Timestamped form: `ts` (unix ms) and `values`. Only an object holding both keys is this form. */
export const timestampedTelemetrySchema = {
  $id: 'iotc:telemetry-timestamped',
  type: 'object',
  required: ['ts', 'values'],
  properties: {
    ts: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
    values: keyValueObjectSchema,
  },
  additionalProperties: false,
} as const;

/**
 * Object form: key to value, timestamp assigned by the server. An object with both `ts` and
 * `values` is not this form.
 */
export const plainTelemetrySchema = {
  ...keyValueObjectSchema,
  $id: 'iotc:telemetry-plain',
  not: { required: ['ts', 'values'] },
} as const;

const elementSchema = { anyOf: [timestampedTelemetrySchema, plainTelemetrySchema] } as const;

/**
 * The three telemetry payload forms of the HTTP device API: object, array of objects, timestamped.
 */
export const telemetrySchema = {
  $id: 'iotc:telemetry',
  anyOf: [
    timestampedTelemetrySchema,
    plainTelemetrySchema,
    { type: 'array', items: elementSchema },
  ],
} as const;

/** The timestamped form as the platform reads it: members beside `ts` and `values` are ignored. */
const acceptedTimestampedSchema = {
  ...timestampedTelemetrySchema,
  $id: 'iotc:telemetry-timestamped-accepted',
  additionalProperties: true,
} as const;

/**
 * What the platform accepts (the reference's rule on every transport): telemetrySchema, except that
 * a timestamped element may carry other members, which are ignored, as ThingsBoard's JsonConverter
 * reads only `ts` and `values` (docs/reference/platform-facts.md §2) and gateways add `metadata`.
 * Clients still send telemetrySchema.
 */
export const acceptedTelemetrySchema = {
  $id: 'iotc:telemetry-accepted',
  anyOf: [
    acceptedTimestampedSchema,
    plainTelemetrySchema,
    { type: 'array', items: { anyOf: [acceptedTimestampedSchema, plainTelemetrySchema] } },
  ],
} as const;

/**
 * One element as the platform reads it: timestamped (both `ts` and `values`) or a plain key-value
 * object.
 */
export const acceptedTelemetryElementSchema = {
  $id: 'iotc:telemetry-element-accepted',
  anyOf: [acceptedTimestampedSchema, plainTelemetrySchema],
} as const;
