/** Options of the `report-rate-limit` load profile (load/report-rate-limit.ts): validated before the target is opened. */
export const reportRateLimitLoadOptionsSchema = {
  $id: 'iotc:load-report-rate-limit-options',
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
} as const;
