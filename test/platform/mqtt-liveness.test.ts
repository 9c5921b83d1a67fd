/**
 * Half-open MQTT connections end (issue 13 finding 4): no CONNECT within the connect timeout closes
 * the socket; a client silent for 1.5 x its keep-alive gets DISCONNECT 0x8D (MQTT 5) and is closed,
 * while one that pings stays.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';

let platform: RunningPlatform;
let port: number;

before(async () => {
  platform = await startPlatform({ httpPort: 0, mqttPort: 0, mqttConnectTimeoutMs: 500 });
  port = Number(new URL(platform.mqttUrl!).port);
});
after(() => platform.close());

interface Raw {
  socket: Socket;
  packets: Packet[];
  closed: Promise<void>;
}

async function open(): Promise<Raw> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) =>
    socket.once('connect', resolve).once('error', reject),
  );
  const packets: Packet[] = [];
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  parser.on('packet', (packet: Packet) => packets.push(packet));
  socket.on('data', (chunk: Buffer) => parser.parse(chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, packets, closed };
}

function send(raw: Raw, packet: Packet): void {
  raw.socket.write(mqttPacket.generate(packet, { protocolVersion: 5 }));
}

function connectPacket(token: string, keepalive: number): Packet {
  return {
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 5,
    clean: true,
    clientId: `liveness-${token}`,
    keepalive,
    username: token,
  };
}

test('a connection that never sends CONNECT is closed', { timeout: 30_000 }, async () => {
  const silent = await open();
  try {
    await silent.closed; // the test's timeout is the hang guard: without a connect timeout this never resolves
    assert.equal(silent.packets.length, 0);
  } finally {
    silent.socket.destroy();
  }
});

test('silent past 1.5 x keep-alive: DISCONNECT 0x8D and close; a client that pings stays', {
  timeout: 30_000,
}, async () => {
  const silent = await open();
  const pinging = await open();
  const timer = setInterval(() => send(pinging, { cmd: 'pingreq' }), 250);
  try {
    send(silent, connectPacket(platform.demo.deviceToken, 1));
    send(pinging, connectPacket(platform.demo.gatewayToken, 1));
    await silent.closed;
    assert.equal(silent.packets[0]?.cmd, 'connack');
    const disconnect = silent.packets.find((packet) => packet.cmd === 'disconnect') as
      | (Packet & { reasonCode?: number })
      | undefined;
    assert.equal(disconnect?.reasonCode, 0x8d);
    // positive control: the client that kept talking for as long is still connected and still
    // answered
    assert.equal(pinging.socket.destroyed, false);
    const answered = pinging.packets.filter((packet) => packet.cmd === 'pingresp').length;
    assert.ok(answered >= 1);
    // past the connect timeout too: an accepted CONNECT stops that clock
    assert.ok(pinging.packets.some((packet) => packet.cmd === 'connack'));
  } finally {
    clearInterval(timer);
    silent.socket.destroy();
    pinging.socket.destroy();
  }
});
