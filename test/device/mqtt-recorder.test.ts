/**
 * The MQTT connection's optional recorder: told the CONNECT and every PUBLISH outcome (topic, qos,
 * PUBACK reason code), without changing what the connection answers. Against a minimal MQTT 5
 * server made of mqtt-packet that refuses publishes on one topic with 0x87 (not authorized).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import mqttPacket from 'mqtt-packet';
import { MqttConnection } from '../../simulators/device/mqtt-connection';
import { describeExchange, ExchangeLog } from '../../src/report/exchanges';

function startServer() {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    const send = (packet: object) =>
      socket.write(mqttPacket.generate(packet as mqttPacket.Packet, { protocolVersion: 5 }));
    parser.on('packet', (packet) => {
      if (packet.cmd === 'connect') send({ cmd: 'connack', reasonCode: 0, sessionPresent: false });
      else if (packet.cmd === 'publish' && packet.qos === 1) {
        send({
          cmd: 'puback',
          messageId: packet.messageId,
          reasonCode: packet.topic === 'denied' ? 0x87 : 0,
        });
      } else if (packet.cmd === 'disconnect') socket.end();
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    socket.on('close', () => sockets.delete(socket));
  });
  return { server, sockets };
}

test('the recorder sees the connect and each publish outcome; the outcomes are the same with or without it', async () => {
  const { server, sockets } = startServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const log = new ExchangeLog();
  const recorded = await MqttConnection.open({
    url,
    token: 'device-token-123',
    recorder: log.record,
    ackTimeoutMs: 2000,
  });
  const plain = await MqttConnection.open({ url, token: 'device-token-123', ackTimeoutMs: 2000 });
  try {
    const outcomes = [];
    for (const connection of [recorded, plain]) {
      const accepted = await connection.publish(
        'v1/devices/me/telemetry',
        '{"temperature":21.5}',
        1,
      );
      const refused = await connection.publish('denied', 'x', 1);
      const fireAndForget = await connection.publish('v1/devices/me/telemetry', '{}', 0);
      outcomes.push(
        [accepted, refused, fireAndForget].map(({ result, reasonCode }) => ({
          result,
          reasonCode,
        })),
      );
    }
    assert.deepEqual(outcomes[0], outcomes[1], 'recording changes no outcome');
    assert.deepEqual(outcomes[0], [
      { result: 'acked', reasonCode: 0 },
      { result: 'acked', reasonCode: 0x87 },
      { result: 'sent', reasonCode: undefined },
    ]);
    await recorded.close();
    await recorded.publish('v1/devices/me/telemetry', '{}', 1);
    assert.deepEqual(log.exchanges.map(describeExchange), [
      `CONNECT ${url} → accepted 0x00`,
      'PUBLISH v1/devices/me/telemetry qos 1 → acked 0x00',
      'PUBLISH denied qos 1 → acked 0x87 Publish error: Not authorized',
      'PUBLISH v1/devices/me/telemetry qos 0 → sent',
      'PUBLISH v1/devices/me/telemetry qos 1 → closed',
    ]);
    assert.ok(
      !JSON.stringify(log).includes('device-token-123'),
      'the token (the MQTT user name) is not recorded',
    );
  } finally {
    await Promise.allSettled([recorded.close(), plain.close()]);
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});
