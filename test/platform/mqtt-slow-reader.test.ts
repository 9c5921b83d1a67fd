/**
 * A client that stops reading (issue 13 finding 3): what waits for it is bounded; past the bound
 * the session is disconnected and its queue dropped, instead of the process growing with every
 * update sent to it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { startPlatform } from '../../simulators/platform';
import { call, login, newDevice } from './support';

test('a paused reader is disconnected once its pending output passes the bound; a reading one is not', {
  timeout: 120_000,
}, async () => {
  const platform = await startPlatform({
    httpPort: 0,
    mqttPort: 0,
    mqttMaxPendingOutputBytes: 256 * 1024,
    minServerRpcTimeoutMs: 0,
  });
  const sockets: Array<ReturnType<typeof connect>> = [];
  try {
    const base = platform.httpUrl;
    const jwt = await login(base);
    const port = Number(new URL(platform.mqttUrl!).port);
    const subscribe = async (token: string) => {
      const socket = connect({ host: '127.0.0.1', port });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) =>
        socket.once('connect', resolve).once('error', reject),
      );
      const packets: Packet[] = [];
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on('packet', (packet: Packet) => packets.push(packet));
      socket.on('data', (chunk: Buffer) => parser.parse(chunk));
      socket.on('error', () => {});
      const write = (packet: Packet) => socket.write(mqttPacket.generate(packet));
      write({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: token,
        keepalive: 0,
        username: token,
      });
      write({
        cmd: 'subscribe',
        messageId: 1,
        subscriptions: [
          { topic: 'v1/devices/me/attributes', qos: 0 },
          { topic: 'v1/devices/me/rpc/request/+', qos: 0 },
        ],
      });
      while (!packets.some((packet) => packet.cmd === 'suback'))
        await new Promise((resolve) => setImmediate(resolve));
      return { socket, packets };
    };
    const paused = await newDevice(base, jwt, 'slow-reader');
    const reading = await newDevice(base, jwt, 'fast-reader');
    const pausedClient = await subscribe(paused.token);
    const readingClient = await subscribe(reading.token);
    const oneway = (id: string) =>
      call(base, 'POST', `/api/plugins/rpc/oneway/${id}`, {
        body: { method: 'm', params: {}, timeout: 500 },
        jwt,
      });
    assert.equal((await oneway(paused.id)).status, 200, 'connected before it stops reading');
    pausedClient.socket.pause();
    // 60 KB per update; at most 8 MB in all, far past the bound plus what the kernel buffers hold
    const value = 'x'.repeat(60 * 1024);
    let sent = 0;
    let disconnected = false;
    while (!disconnected && sent < 140) {
      for (const device of [paused, reading]) {
        const saved = await call(
          base,
          'POST',
          `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`,
          { body: { big: value, n: sent }, jwt },
        );
        assert.equal(saved.status, 200);
      }
      sent += 1;
      if (sent % 10 === 0) disconnected = (await oneway(paused.id)).status === 409;
    }
    assert.ok(disconnected, `still connected after ${sent} updates of 60 KB to a paused reader`);
    // the reading client got every update and keeps its session
    while (
      readingClient.packets.filter((packet) => packet.cmd === 'publish').length < sent &&
      !readingClient.socket.destroyed
    )
      await new Promise((resolve) => setImmediate(resolve));
    assert.equal(readingClient.packets.filter((packet) => packet.cmd === 'publish').length, sent);
    assert.equal((await oneway(reading.id)).status, 200);
  } finally {
    for (const socket of sockets) socket.destroy();
    await platform.close();
  }
});
