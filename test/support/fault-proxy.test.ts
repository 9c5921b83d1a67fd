/**
 * The fault proxy (test/support/fault-proxy.ts) does what the network tests rely on: it delays each
 * way without reordering, resets both sides, half-closes, refuses non-loopback upstreams, and
 * leaves nothing open on stop. And the timing model stretches its waits by the measured round trip
 * (steps/support/timing.ts networkTimeouts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { FaultProxy } from './fault-proxy';
import { networkTimeouts, quietWindowMs, MAX_ROUND_TRIP_MS } from '../../steps/support/timing';

/**
 * An echo server on a port the OS chooses; its sockets are tracked so the test can see them close.
 */
async function echoServer(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0, sockets };
}

async function open(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  await once(socket, 'connect');
  return socket;
}

test('latency delays each direction, in order', async () => {
  const upstream = await echoServer();
  const proxy = await FaultProxy.start({
    upstreamPort: upstream.port,
    latencyMs: 100,
    jitterMs: 50,
  });
  try {
    const socket = await open(proxy.port);
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const started = performance.now();
    for (let i = 0; i < 20; i++) socket.write(`${i},`);
    const expected = Array.from({ length: 20 }, (_, i) => `${i},`).join('');
    while (received.length < expected.length) await once(socket, 'data');
    const elapsed = performance.now() - started;
    assert.equal(received, expected, 'jitter never reorders a stream');
    // a lower bound only: the echo crossed the proxy twice (no upper bound: a loaded machine may
    // take longer)
    assert.ok(elapsed >= 200, `the echo came back after ${elapsed} ms, less than two latencies`);
    socket.destroy();
  } finally {
    await proxy.stop();
    upstream.server.close();
  }
});

test('a reset reaches both sides as ECONNRESET / close, and stop closes everything', async () => {
  const upstream = await echoServer();
  const proxy = await FaultProxy.start({ upstreamPort: upstream.port });
  try {
    const socket = await open(proxy.port);
    socket.write('x');
    await once(socket, 'data');
    const failed = once(socket, 'error');
    assert.equal(proxy.resetSome('all'), 1);
    const [error] = (await failed) as [NodeJS.ErrnoException];
    assert.equal(error.code, 'ECONNRESET');
    assert.equal(proxy.open, 0);
    // the upstream side went too
    while (upstream.sockets.size) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(proxy.stats.resets, 1);

    const other = await open(proxy.port);
    const ended = once(other, 'end'); // allowHalfOpen: the client sees the FIN and closes its side itself
    other.on('error', () => undefined);
    await proxy.stop();
    await ended;
    other.destroy();
    assert.equal(proxy.open, 0);
  } finally {
    await proxy.stop();
    upstream.server.close();
  }
});

test("a reset after the upstream's FIN was forwarded behind queued bytes still ends the client side", async () => {
  // the upstream answers 8 MB and its FIN to a client that does not read: the proxy's end() of the
  // client side waits behind the queued bytes (libuv: shutting down), when libuv can send no RST
  // and net.js would drop the handle without closing it, leaving the client with neither an RST nor
  // the end of the connection
  const size = 8 * 1024 * 1024;
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end(Buffer.alloc(size)));
    socket.resume();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const proxy = await FaultProxy.start({ upstreamPort: port });
  try {
    const socket = await open(proxy.port);
    socket.pause();
    socket.on('error', () => undefined);
    // its end (the FIN after the bytes that got through; allowHalfOpen keeps it from closing) or
    // its close (after ECONNRESET); events.once would reject on the error
    const closed = new Promise((resolve) => {
      socket.once('end', () => resolve('closed'));
      socket.once('close', () => resolve('closed'));
    });
    socket.write('hello');
    while (proxy.stats.bytesDown < size) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the FIN's turn, right after the data
    assert.equal(proxy.resetSome('all'), 1);
    socket.resume();
    socket.on('data', () => undefined);
    const outcome = await Promise.race([
      closed,
      new Promise((resolve) => setTimeout(() => resolve('still open after 5 s'), 5_000).unref()),
    ]);
    assert.equal(outcome, 'closed', 'the client heard the reset or the end of the connection');
    assert.equal(proxy.stats.resetFailures, 0, 'no reset was refused');
    assert.equal(proxy.open, 0);
    socket.destroy();
  } finally {
    await proxy.stop();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

test('a half-close gives the client EOF; a client FIN reaches the upstream after its data', async () => {
  const upstream = await echoServer();
  const proxy = await FaultProxy.start({ upstreamPort: upstream.port, latencyMs: 20 });
  try {
    // the client's FIN follows its data through the proxy, and the echo server's answer and FIN
    // come back
    const socket = await open(proxy.port);
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.end('last words');
    await once(socket, 'end');
    assert.equal(received, 'last words');
    socket.destroy();

    const victim = await open(proxy.port);
    victim.on('data', () => undefined);
    const ended = once(victim, 'end');
    assert.equal(proxy.halfCloseOne(), true);
    await ended;
    victim.destroy();
  } finally {
    await proxy.stop();
    upstream.server.close();
  }
});

test('the proxy forwards to loopback only and refuses connections beyond its bound', async () => {
  await assert.rejects(
    FaultProxy.start({ upstreamHost: '192.0.2.1', upstreamPort: 80 }),
    /loopback only/,
  );
  const upstream = await echoServer();
  const proxy = await FaultProxy.start({ upstreamPort: upstream.port, maxConnections: 1 });
  try {
    const first = await open(proxy.port);
    const second = connect({ host: '127.0.0.1', port: proxy.port });
    // events.once would reject on the 'error' (the reset) before the 'close'
    await new Promise((resolve) => second.on('error', () => undefined).on('close', resolve));
    assert.equal(proxy.stats.refused, 1);
    first.destroy();
  } finally {
    await proxy.stop();
    upstream.server.close();
  }
});

test('the timing model adds the measured round trip to every wait, with the profile as floor', () => {
  const floors = { eventuallyMs: 3000, pollIntervalMs: 20, requestMs: 10_000 };
  assert.deepEqual(networkTimeouts(floors, 0), { ...floors, roundTripMs: 0 });
  const far = networkTimeouts(floors, 400);
  assert.equal(far.eventuallyMs, 3000 + 10 * 400);
  assert.equal(far.pollIntervalMs, 200);
  assert.equal(far.requestMs, 10_000 + 4 * 400);
  // capped: beyond MAX_ROUND_TRIP_MS the waits stop growing
  assert.equal(networkTimeouts(floors, 60_000).roundTripMs, MAX_ROUND_TRIP_MS);
  // a quiet window is at least two round trips, whatever else its floor and the run's measurements
  // say
  assert.equal(quietWindowMs('never measured here', { ...far, eventuallyMs: 2000 }, 10), 800);
  assert.equal(quietWindowMs('never measured here', { ...floors, eventuallyMs: 2000 }, 10), 500);
});
