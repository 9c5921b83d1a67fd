import type { LoadOptionsSchema } from './load-options';

/**
 * Options of the `mqtt-connect` load profile (load/mqtt-connect.ts): validated before anything is
 * created; the flags of `iotc load mqtt-connect` are derived from them (schemas/load-options.ts).
 */
export const mqttConnectLoadOptionsSchema = {
  $id: 'iotc:load-mqtt-connect-options',
  cli: {
    command: 'mqtt-connect',
    description:
      'a connection storm: N MQTT connections, one device each, CONNECT at a rate; CONNACK latency, refusals by code, dropped connections',
  },
  type: 'object',
  required: ['connections', 'rate', 'protocolVersion'],
  properties: {
    connections: {
      description:
        'MQTT connections opened, each with its own device (a second one would take the first over).',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
      default: 100,
      cli: { flag: '-n, --connections <n>' },
    },
    rate: {
      description: 'CONNECTs per second: the storm takes connections / rate seconds.',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 100_000,
      default: 50,
    },
    protocolVersion: {
      description: 'MQTT protocol version: 3.1.1 (4) or 5.',
      enum: [4, 5],
      default: 5,
      cli: { flag: '--mqtt-version <3.1.1|5>', parse: 'mqttVersion' },
    },
    invalidShare: {
      description:
        'Share of the connections (0..1, spread over the storm) that present a token no device has: each must be refused (default 0).',
      type: 'number',
      minimum: 0,
      maximum: 1,
      cli: { flag: '--invalid-share <0..1>' },
    },
    holdS: {
      description:
        'Seconds every accepted connection stays open after the last CONNACK (default 1; 0 closes them at once): a connection the platform closes meanwhile is dropped.',
      type: 'number',
      minimum: 0,
      maximum: 3600,
      cli: { flag: '--hold <s>' },
    },
    pending: {
      description: 'CONNECTs waiting for their CONNACK at most at once (default 1000).',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
    },
  },
  additionalProperties: false,
} as const satisfies LoadOptionsSchema;
