import type { LoadOptionsSchema } from './load-options';

/**
 * Options of the `report-rate-limit` load profile (load/report-rate-limit.ts): validated before the
 * target is opened; the flags of `iotc load report-rate-limit` are derived from them
 * (schemas/load-options.ts).
 */
export const reportRateLimitLoadOptionsSchema = {
  $id: 'iotc:load-report-rate-limit-options',
  cli: {
    command: 'report-rate-limit',
    description:
      'find the analytics report limiter (pool size, queue capacity) with rising concurrency; fail when it differs from the profile',
  },
  type: 'object',
  properties: {
    maxConcurrency: {
      description: 'Highest concurrency tried (default: the declared pool + queue + 3, else 32).',
      type: 'integer',
      minimum: 1,
      maximum: 64,
    },
    perConnection: {
      description: 'Requests each connection sends one after the other per step (default 3).',
      type: 'integer',
      minimum: 1,
      maximum: 100,
    },
  },
  additionalProperties: false,
} as const satisfies LoadOptionsSchema;
