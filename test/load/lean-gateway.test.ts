/**
 * The load generator's lean MQTT connection (load/lean-gateway.ts) at its boundary, against a real
 * socket: a server that writes its CONNACK and the next packet in one write (one read on the
 * client) must not lose the second packet, nor a packet split across that read and the next; a
 * refusing CONNACK rejects with its code and mqtt.js's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { LeanGateway } from '../../load/lean-gateway';
import { MqttConnectRefusedError } from '../../simulators/device/mqtt-connection';

const CONNACK_V5_OK = Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]);
const CONNACK_V5_REFUSED = Buffer.from([0x20, 0x03, 0x00, 0x87, 0x00]);
/** MQTT 5 DISCONNECT, reason 0x8e (session taken over), no properties. */
const DISCONNECT_TAKEN_OVER = Buffer.from([0xe0, 0x02, 0x8e, 0x00]);

/**
 * A server that answers the first bytes it reads (the CONNECT) with `answer`'s writes, each in one
 * write.
 */
async function serverAnswering(
  answer: (socket: Socket) => void,
): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', () => answer(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `mqtt://127.0.0.1:${port}`, server, sockets };
}

async function stop(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  server.close();
  await once(server, 'close');
}

test('a packet in the same read as the CONNACK reaches the connection', async () => {
  const { url, server, sockets } = await serverAnswering((socket) =>
    // one write: CONNACK then DISCONNECT 0x8e (the client reads both at once); then the server
    // closes
    socket.end(Buffer.concat([CONNACK_V5_OK, DISCONNECT_TAKEN_OVER])),
  );
  try {
    const gateway = await LeanGateway.connect({ url, token: 't', protocolVersion: 5 });
    // the close comes after the bytes: by then the DISCONNECT was read, or lost
    await gateway.whenClosed();
    assert.equal(gateway.disconnectReason, 0x8e, 'the DISCONNECT that came with the CONNACK');
    await gateway.close();
  } finally {
    await stop(server, sockets);
  }
});

test('a packet split between the CONNACK read and the next read is framed whole', async () => {
  const { url, server, sockets } = await serverAnswering((socket) => {
    socket.write(Buffer.concat([CONNACK_V5_OK, DISCONNECT_TAKEN_OVER.subarray(0, 2)]));
    // the rest once the client has written again (its QoS 0 publish): a later read, after the first
    // half was kept
    socket.once('data', () => socket.end(DISCONNECT_TAKEN_OVER.subarray(2)));
  });
  try {
    const gateway = await LeanGateway.connect({ url, token: 't', protocolVersion: 5 });
    await gateway.publish('t', { raw: 'x' }, 0);
    await gateway.whenClosed();
    assert.equal(gateway.disconnectReason, 0x8e);
    await gateway.close();
  } finally {
    await stop(server, sockets);
  }
});

test('a refusing CONNACK rejects with its reason code', async () => {
  const { url, server, sockets } = await serverAnswering((socket) =>
    socket.write(CONNACK_V5_REFUSED),
  );
  try {
    await assert.rejects(
      LeanGateway.connect({ url, token: 't', protocolVersion: 5 }),
      (error: unknown) =>
        error instanceof MqttConnectRefusedError &&
        error.refusal.code === 0x87 &&
        error.refusal.message === 'Connection refused: Not authorized',
    );
  } finally {
    await stop(server, sockets);
  }
});
