import type { LoadOptionsSchema } from './load-options';

/**
 * Options of the `http-telemetry` load profile (load/http-telemetry.ts): validated before anything
 * is created; the flags of `iotc load http-telemetry` are derived from them
 * (schemas/load-options.ts).
 */
export const httpTelemetryLoadOptionsSchema = {
  $id: 'iotc:load-http-telemetry-options',
  cli: {
    command: 'http-telemetry',
    description:
      'N devices post telemetry over the HTTP device API at a rate for a bounded time; every answer counted by status, stored/lost/duplicated read back; thresholds decide the exit code',
  },
  type: 'object',
  required: ['devices', 'rate', 'durationS'],
  properties: {
    devices: {
      description: 'Devices created through the admin API, each posting its own telemetry.',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
      default: 10,
      cli: { flag: '-n, --devices <n>' },
    },
    rate: {
      description:
        'Telemetry requests per second for the whole fleet, spread round robin over the devices.',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      default: 100,
    },
    durationS: {
      description: 'Seconds of posting; the run stops by itself (at most 3600).',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 3600,
      default: 10,
      cli: { flag: '--duration <s>' },
    },
    concurrency: {
      description:
        'Requests unanswered at most at once (default 64); beyond it the run falls behind schedule.',
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
    },
    sampleDevices: {
      description:
        'Read back at most this many devices, spread over the fleet (default: all, up to 1000).',
      type: 'integer',
      minimum: 1,
      cli: { flag: '--sample <n>' },
    },
  },
  additionalProperties: false,
} as const satisfies LoadOptionsSchema;
