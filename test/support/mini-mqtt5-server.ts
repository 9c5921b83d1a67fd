/**
 * A minimal MQTT 5 server made of mqtt-packet, for tests of the harness's MQTT client against a
 * peer that behaves in one exact way (refuses every subscription, resets after a PUBACK): the test
 * answers each packet itself. Listens on 127.0.0.1 at a port the OS chooses; `close` destroys every
 * socket and stops listening.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import mqttPacket from 'mqtt-packet';

/** Answers one packet: `send` writes an MQTT 5 packet to this connection. */
export type PacketHandler = (
  packet: mqttPacket.Packet,
  send: (packet: object) => void,
  socket: Socket,
) => void;

export async function miniMqtt5Server(
  onPacket: PacketHandler,
): Promise<{ url: string; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    const send = (packet: object) =>
      socket.write(mqttPacket.generate(packet as mqttPacket.Packet, { protocolVersion: 5 }));
    parser.on('packet', (packet) => onPacket(packet, send, socket));
    socket.on('data', (chunk) => parser.parse(chunk));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
