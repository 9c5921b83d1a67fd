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

/** Object form: key to value, timestamp assigned by the server. An object with both `ts` and `values` is not this form. */
export const plainTelemetrySchema = {
  ...keyValueObjectSchema,
  $id: 'iotc:telemetry-plain',
  not: { required: ['ts', 'values'] },
} as const;

const elementSchema = { anyOf: [timestampedTelemetrySchema, plainTelemetrySchema] } as const;

/** The three telemetry payload forms of the HTTP device API: object, array of objects, timestamped. */
export const telemetrySchema = {
  $id: 'iotc:telemetry',
  anyOf: [
    timestampedTelemetrySchema,
    plainTelemetrySchema,
    { type: 'array', items: elementSchema },
  ],
} as const;
