/**
 * The target check before a run says why a target cannot be tested, with the URL and the cause: a
 * closed port, a host name that does not resolve (name resolution stubbed: nothing leaves the
 * machine), a server that accepts and never answers, a refused login with the user's name. It never
 * prints the password.
 */
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { createServer, type Socket } from 'node:net';
import { after, test } from 'node:test';
import { checkTarget, TargetUnreachableError } from '../../src/target/preflight';
import { start } from '../platform/support';

const tenantAdmin = { username: 'tenant@thingsboard.org', password: 'not-the-password' };
const target = (adminUrl: string) => ({
  name: 'staging',
  adminUrl,
  tenantAdmin,
  tls: { insecureSkipVerify: false },
});

async function failure(adminUrl: string, timeoutMs?: number): Promise<string> {
  try {
    await checkTarget(target(adminUrl), timeoutMs);
  } catch (error) {
    assert.ok(error instanceof TargetUnreachableError, String(error));
    assert.doesNotMatch(error.message, /not-the-password/);
    return error.message;
  }
  assert.fail('the check passed');
}

test('a closed port: the URL and ECONNREFUSED', async () => {
  assert.match(
    await failure('http://127.0.0.1:9'),
    /cannot test target "staging": http:\/\/127\.0\.0\.1:9 refused the connection \(ECONNREFUSED\)/,
  );
});

test('a host name that does not resolve: the name and ENOTFOUND', async (t) => {
  const original = dns.lookup;
  t.after(() => {
    dns.lookup = original;
  });
  // name resolution answers "not found" for this one name, so no query leaves the machine
  dns.lookup = ((hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (error: Error) => void;
    if (hostname !== 'tb.staging.invalid')
      return (original as typeof dns.lookup)(hostname, options as never, callback as never);
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: 'ENOTFOUND',
      hostname,
    });
    process.nextTick(() => done(error));
  }) as typeof dns.lookup;
  assert.match(
    await failure('http://tb.staging.invalid:8080'),
    /the host name tb\.staging\.invalid does not resolve \(ENOTFOUND\)/,
  );
});

test('a server that accepts and never answers: no answer within the check timeout', async () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const { port } = silent.address() as { port: number };
  assert.match(
    await failure(`http://127.0.0.1:${port}`, 500),
    /did not answer within 0\.5 s \(UND_ERR_HEADERS_TIMEOUT\)/,
  );
});

test('a refused login: the user name and 401, never the password; the right password passes', async () => {
  const platform = await start();
  try {
    assert.match(
      await failure(platform.httpUrl),
      /refused the login of tenant@thingsboard\.org \(401/,
    );
    await checkTarget({
      ...target(platform.httpUrl),
      tenantAdmin: { ...tenantAdmin, password: 'tenant' },
    });
  } finally {
    await platform.close();
  }
});
