/**
 * Admin-API bodies in bounded memory (issue 26 item 5,
 * simulators/platform/admin/body-admission.ts): the bytes of admin bodies being read and parsed at
 * once are bounded by admission, a body that does not fit waits (or gets 503), a small request is
 * served meanwhile, a declared length over the limit is 413 before a byte is read, and a large JSON
 * body is parsed on the payload worker into the same document as on the event loop. Real HTTP on a
 * port the OS chooses; scaled down (a 4 MiB limit, 6 MiB in work, 2 MiB of it for small bodies: one
 * large body at a time, where the default admits two) so that the test stays cheap on a shared
 * machine and the bound stands out of the garbage a collection has not yet freed. Nothing here
 * asserts a time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { RunningPlatform } from '../../simulators/platform';
import { BodyAdmission } from '../../simulators/platform/admin/body-admission';
import { runPayloadJobSoon } from '../../simulators/platform/core/off-thread';
import { call, login, start } from './support';

const MiB = 1024 * 1024;
const LIMIT = 4 * MiB;
const admission = new BodyAdmission(6 * MiB, 2 * MiB, 256 * 1024, 120_000);
/** The large bodies' room: capacity less the small bodies' reserve. */
const LARGE_ROOM = 4 * MiB;
/**
 * The stated bounds on what eight large bodies at once add to the process. The bodies' bytes
 * (Node's `arrayBuffers`: the chunks read and the buffer they are joined into, so two copies of a
 * body, and those of the body before it until a collection frees them) at most four times the large
 * bodies' room plus 8 MiB (the sockets' and the small requests' chunks): 24 MiB here, where it
 * measured 13 to 17 MiB, and 36 to 61 MiB with the eight bodies read at once (no admission).
 * Resident memory, which also holds each body as a string, its copy on the payload worker, its
 * parsed document and the garbage of all of these until a collection, at most 128 times the room:
 * 512 MiB here (measured 220 to 281 MiB; 297 to 344 MiB without admission: the one payload worker
 * parses the bodies one after another either way, so resident memory is mostly garbage and tells
 * the two apart less well).
 */
const BUFFER_BOUND = 4 * LARGE_ROOM + 8 * MiB;
const MEMORY_BOUND = 128 * LARGE_ROOM;

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start({ adminMaxBodyBytes: LIMIT, adminBodyAdmission: admission });
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

/**
 * A JSON object of `bytes` bytes exactly, one long string member and no name (the device route
 * answers 400 once it has parsed it), streamed in 64 KiB chunks so that the client holds none of it
 * whole.
 */
function largeBody(bytes: number, seed: number): Readable {
  const head = `{"blob${seed}":"`;
  const tail = '"}';
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(head);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = bytes - head.length - tail.length;
    while (left > 0) {
      const size = Math.min(left, chunk.length);
      yield chunk.subarray(0, size);
      left -= size;
    }
    yield Buffer.from(tail);
  }
  return Readable.from(chunks());
}

test('eight large admin bodies at once stay under the stated memory bound, and a small request is served meanwhile', async () => {
  global.gc?.();
  const start = process.memoryUsage();
  let peakBuffers = start.arrayBuffers;
  let peakRss = start.rss;
  let mostWaiting = 0;
  const sample = () => {
    const now = process.memoryUsage();
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
    peakRss = Math.max(peakRss, now.rss);
    mostWaiting = Math.max(mostWaiting, admission.stats().waiting);
  };
  const sampler = setInterval(sample, 5);
  let settled = 0;
  const large = Array.from({ length: 8 }, async (_, index) => {
    try {
      const answer = await request(`${base}/api/device`, {
        method: 'POST',
        headers: {
          'x-authorization': `Bearer ${jwt}`,
          'content-type': 'application/json',
          'content-length': String(LIMIT),
        },
        body: largeBody(LIMIT, index),
      });
      return { status: answer.statusCode, text: await answer.body.text() };
    } finally {
      settled++;
    }
  });
  // a small request while large ones wait for admission: a login (a small body, from the reserve)
  // and a read
  while (admission.stats().waiting === 0 && settled < 8)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const small = await call(base, 'POST', '/api/auth/login', {
    body: { username: 'tenant@thingsboard.org', password: 'tenant' },
  });
  const read = await call(base, 'GET', '/api/auth/user', { jwt });
  const servedMeanwhile = settled < 8;
  assert.equal(small.status, 200, small.text);
  assert.equal(read.status, 200, read.text);
  const answers = await Promise.all(large);
  clearInterval(sampler);
  sample();
  const stats = admission.stats();
  const buffersGrowth = peakBuffers - start.arrayBuffers;
  const rssGrowth = peakRss - start.rss;
  console.log(
    `eight ${LIMIT} B bodies: body buffers +${(buffersGrowth / MiB).toFixed(1)} MiB (bound ${BUFFER_BOUND / MiB} MiB), RSS +${Math.round(rssGrowth / MiB)} MiB (bound ${MEMORY_BOUND / MiB} MiB), admission ${JSON.stringify(stats)}, most waiting ${mostWaiting}, answers ${answers.map((a) => a.status).join(' ')}`,
  );
  // each large body got its handler's answer (a device body without a name: 400) or, not admitted
  // in time, 503
  for (const answer of answers)
    assert.ok([400, 503].includes(answer.status), `${answer.status} ${answer.text.slice(0, 200)}`);
  assert.ok(
    answers.some((answer) => answer.status === 400),
    'at least one large body was parsed',
  );
  assert.ok(stats.queued > 0, 'the bound held bodies back (else this test proves nothing)');
  assert.ok(stats.peakBytes <= LARGE_ROOM + 2 * MiB, `bytes admitted at once: ${stats.peakBytes}`);
  assert.equal(stats.inUseBytes, 0, 'every admitted body was released');
  assert.ok(servedMeanwhile, 'the small requests were answered while large bodies were still in');
  assert.ok(
    buffersGrowth <= BUFFER_BOUND,
    `the bodies' buffers grew by ${(buffersGrowth / MiB).toFixed(1)} MiB at most, over the bound of ${BUFFER_BOUND / MiB} MiB`,
  );
  assert.ok(
    rssGrowth <= MEMORY_BOUND,
    `resident memory grew by ${Math.round(rssGrowth / MiB)} MiB, over the bound of ${MEMORY_BOUND / MiB} MiB`,
  );
});

test('a declared length over the admin limit is 413 before a byte is read, and is not admitted', async () => {
  const before = admission.stats().peakBytes;
  const answer = await request(`${base}/api/device`, {
    method: 'POST',
    headers: {
      'x-authorization': `Bearer ${jwt}`,
      'content-type': 'application/json',
      'content-length': String(LIMIT + 1),
    },
    body: largeBody(LIMIT + 1, 99),
  }).catch((error: Error) => ({ statusCode: -1, body: { text: async () => error.message } }));
  assert.equal(answer.statusCode, 413, await answer.body.text());
  assert.equal(admission.stats().inUseBytes, 0);
  assert.ok(admission.stats().peakBytes >= before);
});

test('a large admin JSON body parses on the payload worker into the document the event loop reads', async () => {
  const members = Object.fromEntries(
    Array.from({ length: 30_000 }, (_, n) => [`key ${n}`, n % 3 ? { n, list: [n, 'x'] } : null]),
  );
  const texts = [
    // a member named __proto__ stays a member (as JSON.parse keeps it), never the prototype
    `{"__proto__":{"polluted":true},"":1,${JSON.stringify(members).slice(1)}`,
    JSON.stringify(Array.from({ length: 50_000 }, (_, n) => ({ n }))),
    JSON.stringify('x'.repeat(300 * 1024)),
  ];
  for (const text of texts) {
    assert.ok(text.length >= 256 * 1024, 'large enough for the worker');
    const parsed = await runPayloadJobSoon({ kind: 'json', text, what: 'request body' });
    assert.deepEqual(parsed, JSON.parse(text));
    assert.equal(Object.getPrototypeOf(parsed), Object.getPrototypeOf(JSON.parse(text)));
  }
  await assert.rejects(
    runPayloadJobSoon({
      kind: 'json',
      text: `${'['.repeat(2000)}${']'.repeat(2000)}${' '.repeat(300 * 1024)}`,
      what: 'request body',
    }),
    /Invalid request body: malformed JSON/,
  );
});
