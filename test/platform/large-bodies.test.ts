/**
 * Large bodies (issue 13 finding 2): beyond ThingsBoard's limits (50 MiB device API, 64 KiB client
 * RPC replies, 16 MiB admin API) 413 before the body is read; below them a large body is parsed off
 * the event loop, so other clients keep being served while it is; and a long message is stored in
 * one pass (history merged once per key).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { request } from 'undici';
import type { RunningPlatform } from '../../simulators/platform';
import { DeviceRecord } from '../../simulators/platform/core/model';
import {
  appendTelemetry,
  historyOf,
  MAX_HISTORY_PER_KEY,
} from '../../simulators/platform/core/time-series';
import { call, login, newDevice, start } from './support';

let platform: RunningPlatform;
let base: string;
let jwt: string;

before(async () => {
  platform = await start();
  base = platform.httpUrl;
  jwt = await login(base);
});
after(() => platform.close());

/**
 * Sends only the request head, declaring `length` bytes, and answers the status line the server
 * gives.
 */
async function declareOnly(path: string, length: number, headers = ''): Promise<string> {
  const url = new URL(base);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  try {
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', resolve).once('error', reject),
    );
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${length}\r\n\r\n{`,
    );
    const head = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n')) resolve(text.slice(0, text.indexOf('\r\n')));
      });
      socket.once('error', reject);
      socket.once('close', () => resolve(text));
    });
    return head;
  } finally {
    socket.destroy();
  }
}

test('over the limits: 413 from the declared length, before the body is read', async () => {
  const device = await newDevice(base, jwt, 'large-limits');
  assert.match(
    await declareOnly(`/api/v1/${device.token}/telemetry`, 50 * 1024 * 1024 + 1),
    / 413 /,
  );
  assert.match(await declareOnly(`/api/v1/${device.token}/rpc/1`, 64 * 1024 + 1), / 413 /);
  assert.match(
    await declareOnly(
      `/api/plugins/telemetry/DEVICE/${device.id}/timeseries/ANY`,
      16 * 1024 * 1024 + 1,
      `X-Authorization: Bearer ${jwt}\r\n`,
    ),
    / 413 /,
  );
});

/**
 * A neighbour posts one value at a time while a large body is in (`done()` says when its answer
 * came); each of its answers must arrive while the large one is still being processed, or the large
 * one blocked it. Counted, never timed: how many small requests were served meanwhile.
 */
async function servedWhile(done: () => boolean, neighbourToken: string): Promise<number> {
  let servedMeanwhile = 0;
  let sent = 0;
  while (!done() && sent < 5000) {
    sent += 1;
    const answer = await call(base, 'POST', `/api/v1/${neighbourToken}/telemetry`, {
      body: { n: sent },
    });
    assert.equal(answer.status, 200);
    if (!done()) servedMeanwhile += 1;
  }
  return servedMeanwhile;
}

test('a large telemetry body does not hold other clients up while it is parsed', async () => {
  const large = await newDevice(base, jwt, 'large-body');
  const small = await newDevice(base, jwt, 'large-neighbour');
  // about 3 MB in the array form, every entry its own ts: parsed, validated and converted entry by
  // entry
  const entries = Array.from(
    { length: 60_000 },
    (_, index) => `{"ts":${1_700_000_000_000 + index},"values":{"t":${index}.5,"s":"v${index}"}}`,
  );
  const body = `[${entries.join(',')}]`;
  let largeDone = false;
  const largeRequest = request(`${base}/api/v1/${large.token}/telemetry`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  }).then(async (answer) => {
    await answer.body.text();
    largeDone = true;
    return answer.statusCode;
  });
  const servedMeanwhile = await servedWhile(() => largeDone, small.token);
  assert.equal(await largeRequest, 200);
  assert.ok(
    servedMeanwhile >= 10,
    `only ${servedMeanwhile} small requests were served while the large body was processed`,
  );
  const stored = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${large.id}/values/timeseries?keys=t&startTs=0&endTs=${2_000_000_000_000}&limit=100000`,
    { jwt },
  );
  assert.equal(stored.json.t.length, 60_000);
});

test('a large admin attributes body is parsed like a device body: other clients are served meanwhile', async () => {
  const large = await newDevice(base, jwt, 'large-admin-attributes');
  const small = await newDevice(base, jwt, 'large-admin-neighbour');
  // about 4 MB, 200,000 small keys: the shape that stalled every other client when parsed on the
  // event loop
  const body = `{${Array.from({ length: 200_000 }, (_, index) => `"k${index}":${index}.5`).join(',')}}`;
  let largeDone = false;
  const largeRequest = request(
    `${base}/api/plugins/telemetry/DEVICE/${large.id}/attributes/SERVER_SCOPE`,
    {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-authorization': `Bearer ${jwt}` },
    },
  ).then(async (answer) => {
    await answer.body.text();
    largeDone = true;
    return answer.statusCode;
  });
  const servedMeanwhile = await servedWhile(() => largeDone, small.token);
  assert.equal(await largeRequest, 200);
  assert.ok(
    servedMeanwhile >= 10,
    `only ${servedMeanwhile} small requests were served while the large admin body was processed`,
  );
  const stored = await call(
    base,
    'GET',
    `/api/plugins/telemetry/DEVICE/${large.id}/values/attributes/SERVER_SCOPE?keys=k0,k199999`,
    { jwt },
  );
  assert.deepEqual(
    (stored.json as Array<{ key: string; value: unknown }>).map(({ key, value }) => [key, value]),
    [
      ['k0', 0.5],
      ['k199999', 199999.5],
    ],
  );
  // and a malformed one is 400 from the worker as from the event loop
  const malformed = await call(
    base,
    'POST',
    `/api/plugins/telemetry/DEVICE/${large.id}/attributes/SERVER_SCOPE`,
    { raw: `{"a":1,"pad":"${'x'.repeat(400 * 1024)}"`, jwt },
  );
  assert.equal(malformed.status, 400);
});

test('a malformed large body is 400 from the worker as from the event loop', async () => {
  const device = await newDevice(base, jwt, 'large-malformed');
  const body = `{"k":"${'x'.repeat(400 * 1024)}"`;
  const answer = await call(base, 'POST', `/api/v1/${device.token}/telemetry`, { raw: body });
  assert.equal(answer.status, 400, answer.text.slice(0, 200));
  const attributes = await call(base, 'POST', `/api/v1/${device.token}/attributes`, {
    raw: `{"a":null,"pad":"${'x'.repeat(400 * 1024)}"}`,
  });
  assert.equal(attributes.status, 400);
});

test('history: out-of-order entries merge sorted, one per ts (the later wins), trimmed to the newest', () => {
  const device = new DeviceRecord({
    id: 'd',
    name: 'd',
    label: null,
    profileId: 'p',
    token: 't',
    tenantId: 't',
    customerId: null,
    additionalInfo: null,
    firmwareId: null,
    createdTime: 0,
  });
  const long = (value: number) => ({ type: 'LONG' as const, value: BigInt(value) });
  appendTelemetry(device, [
    { ts: 30, values: [['k', long(3)]] },
    { ts: 10, values: [['k', long(1)]] },
  ]);
  appendTelemetry(device, [
    { ts: 20, values: [['k', long(2)]] },
    { ts: 10, values: [['k', long(11)]] },
    { ts: 10, values: [['k', long(12)]] },
  ]);
  const series = device.history.get('k')!;
  assert.deepEqual(
    series.map((entry) => [entry.ts, Number(entry.value.value)]),
    [
      [10, 12],
      [20, 2],
      [30, 3],
    ],
  );
  assert.equal(device.latest.get('k')!.ts, 30);
  // more than the history keeps, newest first: the oldest fall out, the latest is the greatest ts
  const many = Array.from({ length: MAX_HISTORY_PER_KEY + 10 }, (_, index) => ({
    ts: 1000 + MAX_HISTORY_PER_KEY + 10 - index,
    values: [['k', long(index)]] as Array<[string, ReturnType<typeof long>]>,
  }));
  appendTelemetry(device, many);
  const all = { startTs: 0, endTs: Number.MAX_SAFE_INTEGER, limit: Infinity, ascending: true };
  const trimmed = historyOf(device, 'k', all);
  assert.equal(trimmed.length, MAX_HISTORY_PER_KEY);
  assert.equal(trimmed[0].ts, 1000 + 10 + 1);
  assert.equal(trimmed[trimmed.length - 1].ts, 1000 + MAX_HISTORY_PER_KEY + 10);
  assert.ok(trimmed.every((entry, index) => index === 0 || trimmed[index - 1].ts < entry.ts));
  assert.equal(device.latest.get('k')!.ts, 1000 + MAX_HISTORY_PER_KEY + 10);
  // one entry a message past the bound (a long `iotc simulate` under load): the newest
  // MAX_HISTORY_PER_KEY stay readable, and the series is trimmed in batches, bounded all the way
  const newest = 1000 + MAX_HISTORY_PER_KEY + 10;
  let longest = 0;
  for (let ts = newest + 1; ts <= newest + MAX_HISTORY_PER_KEY / 4; ts++) {
    appendTelemetry(device, [{ ts, values: [['k', long(ts)]] }]);
    longest = Math.max(longest, device.history.get('k')!.length);
  }
  assert.ok(longest > MAX_HISTORY_PER_KEY && longest <= MAX_HISTORY_PER_KEY * 1.125 + 1);
  const later = historyOf(device, 'k', all);
  assert.equal(later.length, MAX_HISTORY_PER_KEY);
  assert.equal(later[later.length - 1].ts, newest + MAX_HISTORY_PER_KEY / 4);
  assert.equal(later[0].ts, newest + MAX_HISTORY_PER_KEY / 4 - MAX_HISTORY_PER_KEY + 1);
  assert.equal(
    historyOf(device, 'k', { ...all, ascending: false, limit: 1 })[0].ts,
    later[later.length - 1].ts,
  );
});
