/** Options of the `mqtt-gateway` load profile (load/mqtt-gateway.ts): validated before anything is created. */
export const mqttGatewayLoadOptionsSchema = {
  $id: 'iotc:load-mqtt-gateway-options',
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
    },
    devicesPerGateway: {
      description:
        'Sub-devices each gateway connects (v1/gateway/connect) and publishes telemetry for.',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
    },
    rate: {
      description: 'Messages per second, per gateway or for the whole fleet (rateOf).',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 10_000_000,
    },
    rateOf: { enum: ['gateway', 'total'] },
    qos: { enum: [0, 1] },
    protocolVersion: { description: 'MQTT 3.1.1 (4) or 5.', enum: [4, 5] },
    durationS: {
      description: 'Seconds of publishing; the run stops by itself (at most 3600).',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 3600,
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
    },
    mqttUrl: {
      description:
        'A bare MQTT target instead of a profile: nothing is created or read back (needs gatewayTokenEnv).',
      type: 'string',
      pattern: '^mqtts?://',
    },
    gatewayTokenEnv: {
      description:
        'With mqttUrl: the environment variable holding one gateway access token per gateway, comma-separated (the report names the variable, never the tokens).',
      type: 'string',
      minLength: 1,
    },
  },
  dependencies: { mqttUrl: ['gatewayTokenEnv'], gatewayTokenEnv: ['mqttUrl'] },
  additionalProperties: false,
} as const;
