/**
 * The MQTT bench's baseline: a minimal mqtt-packet sink. It accepts every CONNECT (MQTT 3.1.1 or
 * 5), grants every SUBSCRIBE at QoS 1, answers PUBACK (reason code 0) to every QoS 1 PUBLISH and
 * PINGRESP to PINGREQ, and does nothing else: no authentication, no parsing of payloads, no
 * storage. Runs in its own process (started by bench/run.ts), listens on a free loopback port and
 * prints one JSON line `{"mqttUrl": ...}` when ready. Stops on SIGTERM/SIGINT or when its parent
 * goes away (stdin closes).
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { stopWithParent } from './child-lifecycle';

const sockets = new Set<Socket>();

const server = createServer((socket) => {
  sockets.add(socket);
  socket.setNoDelay(true);
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  let protocolVersion = 4;
  const send = (packet: Packet) => socket.write(mqttPacket.generate(packet, { protocolVersion }));
  parser.on('packet', (packet: Packet) => {
    switch (packet.cmd) {
      case 'connect':
        protocolVersion = packet.protocolVersion ?? 4;
        return send(
          protocolVersion === 5
            ? { cmd: 'connack', reasonCode: 0, sessionPresent: false }
            : { cmd: 'connack', returnCode: 0, sessionPresent: false },
        );
      case 'subscribe':
        return send({
          cmd: 'suback',
          messageId: packet.messageId,
          granted: packet.subscriptions.map(() => 1),
        });
      case 'publish':
        if (packet.qos > 0)
          send(
            protocolVersion === 5
              ? { cmd: 'puback', messageId: packet.messageId, reasonCode: 0 }
              : { cmd: 'puback', messageId: packet.messageId },
          );
        return;
      case 'pingreq':
        return send({ cmd: 'pingresp' });
      case 'disconnect':
        return socket.end();
      default:
        return;
    }
  });
  parser.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => parser.parse(chunk));
  socket.on('error', () => socket.destroy());
  socket.on('close', () => sockets.delete(socket));
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ mqttUrl: `mqtt://127.0.0.1:${port}` })}\n`);
});

function stop(): void {
  server.close();
  for (const socket of sockets) socket.destroy();
  setTimeout(() => process.exit(0), 200).unref();
}
stopWithParent(stop);
