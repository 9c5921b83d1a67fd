/**
 * The TLS checks' watch (src/certify/tls-probes.ts) on real TLS sockets with made-up clients: a
 * connection belongs to the check it was accepted in (one broken off after the next check began is
 * not that check's refusal), a connection ended before the server sent its certificate decides
 * nothing, and a refusal of a certificate the client must accept is weighed against the harness's
 * own stalls: refused while starved, the check runs once more, and twice is INCONCLUSIVE, while a
 * refusal with the harness awake stays a refusal (the FAIL). The real sessions are the kill
 * matrix's CLI-TLS-* faults (faults/client-catalogue.ts, test/certify/mqtt-tls-client.ts).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { generateSelfSignedCertificate, type TlsMaterial } from '../../lib/tls/certificate';
import { TlsWatch } from '../../src/certify/tls-probes';

let material: TlsMaterial;
let other: TlsMaterial;
let server: ReturnType<typeof createTlsServer>;
let port: number;
let watch: TlsWatch;
/** Every socket a test opened, ended after the tests: an open one would keep the file running. */
const opened: Socket[] = [];

before(async () => {
  material = await generateSelfSignedCertificate();
  other = await generateSelfSignedCertificate();
  server = createTlsServer({ cert: material.cert, key: material.key });
  watch = new TlsWatch(material);
  watch.attach(server, 'mqtts');
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

after(() => {
  for (const socket of opened) socket.destroy();
  server.close();
});

/** A client that accepts any certificate and, once the handshake is done, "speaks". */
function accepting(): void {
  const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
    watch.clientSpoke('a test packet');
    socket.destroy();
  });
  opened.push(socket);
  socket.on('error', () => {});
}

/** A client that trusts another authority only: it breaks the handshake off. */
function refusing(): void {
  const socket = tlsConnect({ host: '127.0.0.1', port, ca: other.cert, servername: 'localhost' });
  opened.push(socket);
  socket.on('error', () => {});
}

const client = (begin: () => void) => () => {
  begin();
  return { exited: new Promise<never>(() => {}), end: async () => {} };
};

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test("a connection of the check before, broken off in its handshake during the next check, is not that check's refusal", async () => {
  // a proxy that holds the server's answer back: the server has sent its certificate and waits
  const held: Socket[] = [];
  const proxy: Server = createServer((fromClient) => {
    const toServer = connect(port, '127.0.0.1');
    opened.push(fromClient, toServer);
    fromClient.pipe(toServer);
    fromClient.on('error', () => {});
    toServer.on('error', () => {});
    held.push(toServer);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const proxyPort = (proxy.address() as AddressInfo).port;
  try {
    const first = await watch.check(
      'expired',
      material,
      client(() => {
        const stuck = tlsConnect({ host: '127.0.0.1', port: proxyPort, rejectUnauthorized: false });
        opened.push(stuck);
        stuck.on('error', () => {});
        // the server answered the stuck handshake (its answer held back): then a client speaks
        const waitAnswer = () =>
          held[0] ? held[0].once('data', () => accepting()) : setTimeout(waitAnswer, 5);
        waitAnswer();
      }),
      10_000,
    );
    assert.equal(first.result, 'accepted');
    const second = await watch.check(
      'large-chain',
      material,
      client(() => {
        held[0]!.destroy(); // the stuck handshake of the check before breaks off now
        setTimeout(accepting, 300);
      }),
      10_000,
    );
    assert.equal(second.result, 'accepted', JSON.stringify(second));
  } finally {
    proxy.close();
    for (const socket of held) socket.destroy();
  }
});

test('a connection ended before the server sent its certificate decides nothing', async () => {
  const outcome = await watch.check(
    'large-chain',
    material,
    client(() => {
      const bare = connect(port, '127.0.0.1', () => bare.destroy());
      opened.push(bare);
      bare.on('error', () => {});
      setTimeout(accepting, 300);
    }),
    10_000,
  );
  assert.equal(outcome.result, 'accepted', JSON.stringify(outcome));
});

test('a refusal with the harness awake is a refusal, also of a certificate the client must accept', async () => {
  // half a second after the start, as a client process would connect: a busy machine's short
  // stalls are not half of that
  const outcome = await watch.check(
    'large-chain',
    material,
    client(() => setTimeout(refusing, 500)),
    10_000,
  );
  assert.equal(outcome.result, 'refused', JSON.stringify(outcome));
  assert.equal((outcome as { starved?: string }).starved, undefined);
});

test('refused while the harness was starved: once more; refused so twice is INCONCLUSIVE, accepted the second time is accepted', async () => {
  const said: string[] = [];
  const starvedThenRefusing = client(() => {
    busy(800); // the harness's event loop stands still
    refusing();
  });
  const twice = await watch.check('large-chain', material, starvedThenRefusing, 10_000, (line) =>
    said.push(line),
  );
  assert.equal(twice.result, 'inconclusive', JSON.stringify(twice));
  assert.equal(said.length, 1, 'the check was run once more');

  let runs = 0;
  const starvedOnce = client(() => {
    runs += 1;
    if (runs === 1) {
      busy(800);
      refusing();
    } else accepting();
  });
  const then = await watch.check('large-chain', material, starvedOnce, 10_000);
  assert.equal(then.result, 'accepted', JSON.stringify(then));
  assert.equal(runs, 2);

  // a certificate the client must refuse: its refusal is not run again (it is the PASS)
  const refusedExpired = await watch.check('expired', material, starvedThenRefusing, 10_000);
  assert.equal(refusedExpired.result, 'refused');
  assert.ok((refusedExpired as { starved?: string }).starved);
});
