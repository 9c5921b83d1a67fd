/** Options of the `mqtt-connect` load profile (load/mqtt-connect.ts): validated before anything is created. */
export const mqttConnectLoadOptionsSchema = {
  $id: 'iotc:load-mqtt-connect-options',
  type: 'object',
  required: ['connections', 'rate', 'protocolVersion'],
  properties: {
    connections: {
      description:
        'MQTT connections opened, each with its own device (a second one would take the first over).',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
    },
    rate: {
      description: 'CONNECTs per second: the storm takes connections / rate seconds.',
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 100_000,
    },
    protocolVersion: { description: 'MQTT 3.1.1 (4) or 5.', enum: [4, 5] },
    invalidShare: {
      description:
        'Share of the connections (0..1, spread over the storm) that present a token no device has: each must be refused (default 0).',
      type: 'number',
      minimum: 0,
      maximum: 1,
    },
    holdS: {
      description:
        'Seconds every accepted connection stays open after the last CONNACK (default 1): a connection the platform closes meanwhile is dropped.',
      type: 'number',
      minimum: 0,
      maximum: 3600,
    },
    pending: {
      description: 'CONNECTs waiting for their CONNACK at most at once (default 1000).',
      type: 'integer',
      minimum: 1,
      maximum: 100_000,
    },
  },
  additionalProperties: false,
} as const;
