/**
 * The starved-host rule of a wait that ended without an answer (steps/support/responsiveness.ts): a
 * median HEAD round trip of a second or more and ten times the run's start makes it INCONCLUSIVE;
 * prompt answers, or slow ones on a target that was always that slow, keep the FAIL. And a HEAD to
 * a real server is timed, to a closed port is Infinity.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { headRoundTrip, starvedHost } from '../../steps/support/responsiveness';
import type { IotcWorld } from '../../steps/world';

function world(roundTripMs: number | undefined, adminUrl = 'http://127.0.0.1:9'): IotcWorld {
  return {
    run: { target: { adminUrl, tls: {}, timeouts: { requestMs: 2000, roundTripMs } } },
  } as unknown as IotcWorld;
}

test('a host answering HEAD in a median of a second or more, ten times its start, was starved', () => {
  const why = starvedHost(world(40), [900, 1500, 2500, Number.POSITIVE_INFINITY, 1200]);
  assert.match(
    why ?? '',
    /median of 1500 ms over 5 samples meanwhile \(40 ms at the run's start\)/,
  );
  assert.match(
    starvedHost(world(40), [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]) ?? '',
    /median of no time \(no answer\)/,
  );
});

test('prompt answers, a target always that slow, or no sample at all: not starved (the FAIL stands)', () => {
  assert.equal(starvedHost(world(40), [45, 60, 900, 52]), undefined);
  assert.equal(starvedHost(world(400), [1200, 1500, 1300]), undefined);
  assert.equal(starvedHost(world(undefined), []), undefined);
});

test('headRoundTrip times a real HEAD, and is Infinity when nothing answers', async () => {
  const server = createServer((_request, response) => response.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const port = (server.address() as AddressInfo).port;
    const ms = await headRoundTrip(world(1, `http://127.0.0.1:${port}`));
    assert.ok(Number.isFinite(ms) && ms >= 0, `a HEAD took ${ms} ms`);
    assert.equal(await headRoundTrip(world(1)), Number.POSITIVE_INFINITY);
  } finally {
    server.close();
  }
});
