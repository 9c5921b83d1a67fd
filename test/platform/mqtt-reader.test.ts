/**
 * The reference's MQTT reader (simulators/platform/mqtt/reader.ts) reads the packets it reads
 * itself (PUBLISH at QoS 0 or 1 without properties, PINGREQ) exactly as mqtt-packet's parser does,
 * and leaves it every other one: fed the same chunks, both give the same packets (fields and their
 * order), the same errors and the same unfinished packet length, however the stream is cut, in MQTT
 * 3.1.1 and 5.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { MqttReader } from '../../simulators/platform/mqtt/reader';

function stream(version: 4 | 5): Buffer {
  const generate = (packet: object) =>
    mqttPacket.generate(packet as Packet, { protocolVersion: version });
  return Buffer.concat([
    generate({
      cmd: 'connect',
      protocolVersion: version,
      clientId: 'c',
      keepalive: 30,
      clean: true,
      username: 'token',
    }),
    generate({
      cmd: 'publish',
      topic: 'v1/gateway/telemetry',
      payload: Buffer.from('{"Device A":[{"values":{"t":1}}]}'),
      qos: 1,
      messageId: 7,
      retain: false,
      dup: false,
    }),
    generate({
      cmd: 'publish',
      topic: 'a/b',
      payload: Buffer.alloc(300, 120),
      qos: 0,
      retain: true,
    }),
    generate({
      cmd: 'publish',
      topic: 'r',
      payload: Buffer.from('1'),
      qos: 1,
      messageId: 8,
      retain: true,
    }),
    generate({ cmd: 'pingreq' }),
    generate({
      cmd: 'publish',
      topic: 'tü',
      payload: Buffer.alloc(0),
      qos: 1,
      messageId: 65535,
      dup: true,
    }),
    generate({ cmd: 'subscribe', messageId: 3, subscriptions: [{ topic: 'x/#', qos: 1 }] }),
    ...(version === 5
      ? [
          generate({
            cmd: 'publish',
            topic: 'p',
            payload: Buffer.from('y'),
            qos: 1,
            messageId: 9,
            properties: { contentType: 'json' },
          }),
        ]
      : []),
    generate({ cmd: 'publish', topic: 'q', payload: Buffer.from('z'), qos: 2, messageId: 10 }),
    Buffer.from([0x30, 0x03, 0x00, 0x05, 0x61]), // a topic longer than its packet: malformed
    generate({ cmd: 'publish', topic: 'after', payload: Buffer.from('w'), qos: 1, messageId: 11 }),
    Buffer.from([0x47, 0x45, 0x54, 0x20]), // garbage ("GET ")
  ]);
}

const shown = (packet: Packet) => `${Object.keys(packet).join(',')} ${JSON.stringify(packet)}`;

for (const version of [4, 5] as const) {
  test(`MQTT ${version === 5 ? '5' : '3.1.1'}: the reader gives what mqtt-packet's parser gives, however the stream is cut`, () => {
    const bytes = stream(version);
    let seed = 29;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let trial = 0; trial < 500; trial++) {
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      const expected: string[] = [];
      parser.on('packet', (packet: Packet) => expected.push(shown(packet)));
      parser.on('error', (error: Error) => expected.push(`error ${error.message}`));
      const actual: string[] = [];
      const reader = new MqttReader(
        (packet) => actual.push(shown(packet)),
        (error) => actual.push(`error ${error.message}`),
      );
      for (let at = 0; at < bytes.length; ) {
        const size = trial === 0 ? bytes.length : 1 + Math.floor(random() * (trial % 2 ? 40 : 400));
        const chunk = bytes.subarray(at, at + size);
        parser.parse(chunk);
        reader.read(chunk);
        expected.push(
          `unfinished ${(parser as unknown as { packet: { length: number } }).packet.length}`,
        );
        actual.push(`unfinished ${reader.unfinishedPacketLength()}`);
        at += size;
      }
      assert.deepEqual(actual, expected, `trial ${trial}`);
    }
  });
}
