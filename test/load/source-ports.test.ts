/**
 * Source ports past the kernel's cheap share of the port range (load/source-ports.ts): the plan,
 * and at a real socket, a named port that is taken passed over without losing the connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { LeanGateway } from '../../load/lean-gateway';
import {
  ephemeralPortRange,
  planSourcePorts,
  portTaken,
  SourcePorts,
} from '../../load/source-ports';

const CONNACK_V5_OK = Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]);

test('the kernel chooses until its even half of the range is held, then the odd ports are named in turn', () => {
  const range = { low: 40_000, high: 40_000 + 2 * 300 - 1 }; // 300 even and 300 odd ports
  const ports = new SourcePorts(range);
  // 300 odd ports, 256 of room: the kernel keeps the first 44 connections' choice
  for (let i = 0; i < 44; i++) {
    assert.equal(ports.choose(), undefined, `connection ${i + 1}`);
    ports.opened('127.0.0.1');
  }
  const named = Array.from({ length: 300 }, () => ports.choose());
  for (const source of named) {
    assert.ok(source);
    assert.equal(source.localAddress, '127.0.0.1');
    assert.equal(source.localPort % 2, 1);
    assert.ok(source.localPort >= range.low && source.localPort <= range.high);
  }
  assert.equal(new Set(named.map((source) => source?.localPort)).size, 300, 'each odd port once');
  ports.closed();
  assert.equal(ports.choose(), undefined, 'below the share again, the kernel chooses');
});

test('without a known range or local address the kernel keeps choosing', () => {
  const unknown = new SourcePorts(undefined);
  for (let i = 0; i < 100_000; i += 1) unknown.opened('127.0.0.1');
  assert.equal(unknown.choose(), undefined);
  const noAddress = new SourcePorts({ low: 40_000, high: 40_001 });
  assert.equal(noAddress.choose(), undefined, 'no connection has told the local address yet');
  noAddress.opened(undefined);
  assert.equal(noAddress.choose(), undefined);
});

test("this machine's range reads as two ports numbers, or not at all", () => {
  const range = ephemeralPortRange();
  if (range) assert.ok(range.low > 0 && range.high > range.low);
  assert.equal(ephemeralPortRange('/nonexistent/ip_local_port_range'), undefined);
});

test('a named port that is taken is passed over: the connection is made on a port the kernel chooses', async () => {
  const remotePorts: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    remotePorts.push(socket.remotePort ?? 0);
    socket.on('error', () => {});
    socket.once('data', () => socket.write(CONNACK_V5_OK));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const url = `mqtt://127.0.0.1:${port}`;
  // one odd port in the range, and no room: every connection names it
  const low = 2 * (20_000 + Math.floor(Math.random() * 10_000));
  const planned = new SourcePorts({ low, high: low + 1 });
  planned.opened('127.0.0.1');
  planSourcePorts(`127.0.0.1:${port}`, planned);
  const gateways: LeanGateway[] = [];
  try {
    gateways.push(await LeanGateway.connect({ url, token: 'first' }));
    gateways.push(await LeanGateway.connect({ url, token: 'second' }));
    assert.equal(remotePorts[0], low + 1, 'the first connection came from the named port');
    assert.notEqual(remotePorts.at(-1), low + 1, 'the second, its port taken, from another');
    assert.equal(
      gateways.every((gateway) => !gateway.closed),
      true,
    );
  } finally {
    await Promise.allSettled(gateways.map((gateway) => gateway.close()));
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

test('the errors of a taken port are told apart from others', () => {
  assert.equal(portTaken(Object.assign(new Error('x'), { code: 'EADDRINUSE' })), true);
  assert.equal(portTaken(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' })), true);
  assert.equal(portTaken(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), false);
  assert.equal(portTaken(undefined), false);
});
