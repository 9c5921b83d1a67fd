/**
 * Bounded resources of the reference platform's listeners (issue 26 item 5): a TCP connection to a TLS port that
 * never starts its handshake is closed after the handshake deadline (HTTPS and mqtts); connections without an
 * accepted CONNECT are bounded in number, TLS handshakes included (the one beyond the bound is closed at once, and a
 * device still connects once they are gone). The slow CONNECT (one byte at a time) is the robustness scenario
 * ROB-CONN-02 in features/robustness/connections.feature.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startPlatform } from '../../simulators/platform';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';
import { RawMqttClient } from '../../simulators/device/raw-mqtt-client';

async function openTcp(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.on('error', () => {});
  return socket;
}

/** Resolves with the time it took the server to close the socket, bounded by `limitMs` (then undefined). */
function closedWithin(socket: Socket, limitMs: number): Promise<number | undefined> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), limitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

test('a TCP connection to a TLS port that never starts its handshake is closed after the handshake deadline', async () => {
  const tls = await generateSelfSignedCertificate();
  const platform = await startPlatform({
    httpPort: 0,
    httpsPort: 0,
    mqttPort: 0,
    mqttTlsPort: 0,
    tls,
    tlsHandshakeTimeoutMs: 300,
    mqttConnectTimeoutMs: 60_000, // far later: what closes the mqtts connection is the handshake deadline
  });
  try {
    for (const url of [platform.httpsUrl!, platform.mqttsUrl!]) {
      const idle = await openTcp(url);
      // the deadline is a bound, not a time: closed well before the (far longer) CONNECT and Node's 120 s default
      const tookMs = await closedWithin(idle, 30_000);
      assert.ok(tookMs !== undefined, `${url}: the idle connection is still open after 30 s`);
    }
  } finally {
    await platform.close();
  }
});

test('connections without a CONNECT are bounded in number; a connected device is not counted', async () => {
  const platform = await startPlatform({ httpPort: 0, mqttPort: 0, mqttMaxUnconnected: 5 });
  try {
    const held = await Promise.all(Array.from({ length: 4 }, () => openTcp(platform.mqttUrl!)));
    // positive control: with one place left under the bound a device connects (and leaves the count on its CONNECT)
    const ok = await RawMqttClient.open({ url: platform.mqttUrl! });
    assert.equal(await ok.connect(platform.demo.deviceToken, 5000), 0);
    // the bound reached: the connection beyond it is closed at once, the connected device is not touched
    held.push(await openTcp(platform.mqttUrl!));
    const beyond = await openTcp(platform.mqttUrl!);
    assert.notEqual(
      await closedWithin(beyond, 10_000),
      undefined,
      'the connection beyond the bound is open',
    );
    assert.equal(ok.closed, false, 'a connected device was closed');
    ok.destroy();
    for (const socket of held) socket.destroy();
  } finally {
    await platform.close();
  }
});

test('HEAD answers as GET without a body (as Spring does), where it answered 404 on every route', async () => {
  const platform = await startPlatform({ httpPort: 0 });
  try {
    const url = `${platform.httpUrl}/api/v1/${platform.demo.deviceToken}/attributes`;
    const get = await fetch(url);
    assert.equal(get.status, 200);
    const head = await fetch(url, { method: 'HEAD' });
    assert.equal(head.status, get.status);
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  } finally {
    await platform.close();
  }
});
