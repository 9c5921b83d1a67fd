import type { LoadOptionsSchema } from './load-options';

/**
 * Options of the `mqtt-gateway` load profile (load/mqtt-gateway.ts): validated before anything is
 * created; the flags of `iotc load mqtt-gateway` are derived from them (schemas/load-options.ts).
 */
export const mqttGatewayLoadOptionsSchema = {
  $id: 'iotc:load-mqtt-gateway-options',
  cli: {
    command: 'mqtt-gateway',
    description:
      'G gateways x D devices publish telemetry over MQTT for a bounded time; sent, acknowledged, stored, lost, duplicated, latency',
  },
  type: 'object',
  required: [
    'gateways',
    'devicesPerGateway',
    'rate',
    'rateOf',
    'qos',
    'protocolVersion',
    'durationS',
  ],
  properties: {
    gateways: {
      description: 'Gateway devices, each with its own MQTT connection.',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
      default: 10,
      cli: { flag: '-g, --gateways <n>' },
    },
    devicesPerGateway: {
      description:
        'Sub-devices each gateway connects (v1/gateway/connect) and publishes telemetry for.',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
      default: 10,
      cli: { flag: '-d, --devices <n>' },
    },
    rate: {
      description: 'Messages per second, per gateway or for the whole fleet (as --rate-of says).',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 10_000_000,
      default: 100,
      cli: {
        alias: {
          flag: '--total-rate <n>',
          description: 'messages per second for the whole fleet (instead of --rate)',
          sets: { rateOf: 'total' },
        },
      },
    },
    rateOf: {
      description: 'Whether the rate is per gateway or for the whole fleet.',
      enum: ['gateway', 'total'],
      default: 'gateway',
    },
    qos: { description: 'QoS of the telemetry publishes.', enum: [0, 1], default: 1 },
    protocolVersion: {
      description: 'MQTT protocol version: 3.1.1 (4) or 5.',
      enum: [4, 5],
      default: 5,
      cli: { flag: '--mqtt-version <3.1.1|5>', parse: 'mqttVersion' },
    },
    durationS: {
      description: 'Seconds of publishing; the run stops by itself (at most 3600).',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 3600,
      default: 10,
      cli: { flag: '--duration <s>' },
    },
    payloadBytes: {
      description:
        'Bytes of each message payload (at least the unpadded message; absent = no padding).',
      type: 'integer',
      minimum: 1,
    },
    window: {
      description: 'Publishes a gateway keeps unanswered at most (default 1000).',
      type: 'integer',
      minimum: 1,
    },
    sampleDevices: {
      description:
        'Read back at most this many sub-devices, spread over the fleet (default: all, up to 1000).',
      type: 'integer',
      minimum: 1,
      cli: { flag: '--sample <n>' },
    },
    mqttUrl: {
      description:
        'A bare MQTT target instead of a profile (no admin API: nothing is created, stored counts are not measured; needs --gateway-token-env).',
      type: 'string',
      pattern: '^mqtts?://',
      cli: { flag: '--mqtt-url <url>' },
    },
    gatewayTokenEnv: {
      description:
        'With --mqtt-url: the environment variable holding one gateway access token per gateway, comma-separated (the report names the variable, never the tokens).',
      type: 'string',
      minLength: 1,
      cli: { flag: '--gateway-token-env <VAR>' },
    },
  },
  dependencies: { mqttUrl: ['gatewayTokenEnv'], gatewayTokenEnv: ['mqttUrl'] },
  additionalProperties: false,
} as const satisfies LoadOptionsSchema;
