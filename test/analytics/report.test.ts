/**
 * buildReport against a fake platform: columns and typed cells, ranges, filters, errors, the JWT
 * rules.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startAnalytics, type RunningAnalytics } from '../../simulators/analytics';
import { makeJwt, postReport, startFakePlatform, type FakePlatform } from './support';
import { ENERGY_VIEW, LATEST_VIEW, PLAIN_VIEW, views } from './report-views';

describe('analytics buildReport', () => {
  let platform: FakePlatform;
  let analytics: RunningAnalytics;
  const jwt = makeJwt(Math.floor(Date.now() / 1000) + 3600);
  const now = Date.now();

  before(async () => {
    platform = await startFakePlatform([
      {
        id: 'a1',
        name: 'Meter A',
        telemetry: {
          energy: [
            { ts: 1000, value: 10 },
            { ts: 2000, value: 12.5 },
            { ts: 3000, value: 15 },
            { ts: now - 1000, value: 20 },
          ],
          status: [{ ts: 2000, value: 'ok' }],
          online: [{ ts: now - 1000, value: true }],
        },
        attributes: {
          SERVER_SCOPE: { building: 'Building ABC' },
          SHARED_SCOPE: { config: { mode: 'eco', level: 2 } },
        },
      },
      {
        id: 'b2',
        name: 'Meter B',
        telemetry: {
          energy: [
            { ts: 1500, value: 7 },
            { ts: 2500, value: 8 },
            { ts: now - 2000, value: 9.25 },
          ],
          online: [{ ts: now - 2000, value: false }],
        },
        attributes: { SERVER_SCOPE: { building: 'Building XYZ' } },
      },
      {
        id: 'c3',
        name: 'Pump C',
        telemetry: { energy: [{ ts: 1000, value: 99 }] },
        attributes: { SERVER_SCOPE: { building: 'Building ABC' } },
      },
    ]);
    platform.validTokens.add(jwt);
    const directory = mkdtempSync(join(tmpdir(), 'iotc-analytics-'));
    const viewsFile = join(directory, 'views.json');
    writeFileSync(viewsFile, JSON.stringify(views));
    analytics = await startAnalytics({
      platformUrl: platform.url,
      viewsFile,
      poolSize: 4,
      queueCapacity: 4,
    });
  });
  after(async () => {
    await analytics?.close();
    await platform?.close();
  });

  it('answers the saved view: column labels, date cells as strings of ms, numbers as doubles, saved filter and range', async () => {
    const answer = await postReport(analytics.reportUrl, { viewConfigId: ENERGY_VIEW }, { jwt });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.columnLabels, ['Date', 'Device', 'Building', 'Energy', 'Status']);
    assert.deepEqual(answer.json.dataTable, [
      { Date: '1000', Device: 'Meter A', Building: 'Building ABC', Energy: 10, Status: null },
      { Date: '2000', Device: 'Meter A', Building: 'Building ABC', Energy: 12.5, Status: 'ok' },
    ]);
    assert.match(answer.text, /"Energy":10\.0[,}]/, 'an integral number is written as a double');
    assert.match(answer.text, /"Date":"1000"/);
    assert.match(answer.contentType, /^application\/json/);
  });

  it('takes the range of the request, and the saved bound for a side left blank', async () => {
    const both = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, rangeStartTs: 1500, rangeEndTs: 3000 },
      { jwt },
    );
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(
      both.json.dataTable.map((row: { Date: string }) => row.Date),
      ['2000', '3000'],
    );
    const endOnly = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, rangeStartTs: null, rangeEndTs: 1000 },
      { jwt },
    );
    assert.deepEqual(
      endOnly.json.dataTable.map((row: { Date: string }) => row.Date),
      ['1000'],
    );
    const startOnly = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, rangeStartTs: 1001 },
      { jwt },
    );
    assert.deepEqual(
      startOnly.json.dataTable.map((row: { Date: string }) => row.Date),
      ['2000'],
    );
  });

  it('overrides the saved filters with those of the request; an empty list lets every row pass', async () => {
    const other = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, filters: { building: ['Building XYZ'] } },
      { jwt },
    );
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(other.json.dataTable, [
      { Date: '1500', Device: 'Meter B', Building: 'Building XYZ', Energy: 7, Status: null },
    ]);
    const all = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, filters: { building: [] } },
      { jwt },
    );
    assert.deepEqual(
      all.json.dataTable.map(
        (row: { Date: string; Device: string }) => `${row.Date} ${row.Device}`,
      ),
      ['1000 Meter A', '1500 Meter B', '2000 Meter A'],
      'rows ordered by date; Pump C is not covered by the view',
    );
    const none = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, filters: { building: ['Nowhere'] } },
      { jwt },
    );
    assert.deepEqual(none.json, {
      columnLabels: ['Date', 'Device', 'Building', 'Energy', 'Status'],
      dataTable: [],
    });
  });

  it('refuses a filter key that is not a filter of the view with 400', async () => {
    const answer = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, filters: { floor: ['1'] } },
      { jwt },
    );
    assert.equal(answer.status, 400);
    assert.equal(answer.json.status, 400);
    assert.match(answer.json.message, /"floor" is not a filter.*building/);
  });

  it('gives one row per device with the latest values in a relative range; JSON and boolean cells keep their type', async () => {
    const answer = await postReport(
      analytics.reportUrl,
      { viewConfigId: LATEST_VIEW },
      { jwt, jwtIn: 'header' },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.dataTable, [
      { Device: 'Meter B', 'Last energy': 9.25, At: String(now - 2000), Config: null },
      {
        Device: 'Meter A',
        'Last energy': 20,
        At: String(now - 1000),
        Config: { mode: 'eco', level: 2 },
      },
    ]);
    const online = await postReport(
      analytics.reportUrl,
      { viewConfigId: LATEST_VIEW, filters: { online: ['true'] } },
      { jwt },
    );
    assert.deepEqual(
      online.json.dataTable.map((row: { Device: string }) => row.Device),
      ['Meter A'],
    );
    const old = await postReport(
      analytics.reportUrl,
      { viewConfigId: LATEST_VIEW, rangeStartTs: 0, rangeEndTs: 2600 },
      { jwt },
    );
    assert.deepEqual(
      old.json.dataTable.map((row: { At: string; 'Last energy': number }) => [
        row.At,
        row['Last energy'],
      ]),
      [
        ['2000', 12.5],
        ['2500', 8],
      ],
    );
  });

  it('gives one row per device when the view reads no telemetry, in the order of the view', async () => {
    const answer = await postReport(analytics.reportUrl, { viewConfigId: PLAIN_VIEW }, { jwt });
    assert.deepEqual(answer.json.dataTable, [
      { Device: 'Meter B', Building: 'Building XYZ' },
      { Device: 'Meter A', Building: 'Building ABC' },
    ]);
  });

  it('serves the demo view (no data for Demo Device on this platform: an empty table)', async () => {
    const answer = await postReport(
      analytics.reportUrl,
      { viewConfigId: analytics.demoViewId },
      { jwt },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, {
      columnLabels: ['Date', 'Device', 'temperature', 'humidity'],
      dataTable: [],
    });
  });

  it('answers 403 to a bad, missing or expired JWT in the query and in the header', async () => {
    for (const jwtIn of ['query', 'header'] as const) {
      const bad = await postReport(
        analytics.reportUrl,
        { viewConfigId: ENERGY_VIEW },
        { jwt: 'not-a-token', jwtIn },
      );
      assert.equal(bad.status, 403, `${jwtIn}: ${bad.text}`);
      assert.deepEqual(Object.keys(bad.json).sort(), ['message', 'status']);
      const expired = await postReport(
        analytics.reportUrl,
        { viewConfigId: ENERGY_VIEW },
        { jwt: makeJwt(Math.floor(Date.now() / 1000) - 10), jwtIn },
      );
      assert.equal(expired.status, 403, expired.text);
      const good = await postReport(
        analytics.reportUrl,
        { viewConfigId: ENERGY_VIEW },
        { jwt, jwtIn },
      );
      assert.equal(good.status, 200, `${jwtIn}: ${good.text}`);
    }
    const missing = await postReport(analytics.reportUrl, { viewConfigId: ENERGY_VIEW });
    assert.equal(missing.status, 403);
  });

  it('answers 415 when the Content-Type is not application/json, before looking at the JWT', async () => {
    assert.equal(
      (
        await postReport(
          analytics.reportUrl,
          { viewConfigId: ENERGY_VIEW },
          { jwt, contentType: 'text/plain' },
        )
      ).status,
      415,
    );
    assert.equal(
      (
        await postReport(
          analytics.reportUrl,
          { viewConfigId: ENERGY_VIEW },
          { jwt: 'bad', contentType: 'application/x-www-form-urlencoded' },
        )
      ).status,
      415,
    );
    const charset = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW },
      { jwt, contentType: 'application/json; charset=utf-8' },
    );
    assert.equal(charset.status, 200);
  });

  it('answers 400 to malformed JSON and missing or invalid fields, 404 to an unknown view', async () => {
    const bad: Array<[string, string]> = [
      ['{"viewConfigId":', 'truncated JSON'],
      ['', 'empty body'],
      ['[]', 'not an object'],
      ['{}', 'no viewConfigId'],
      ['{"viewConfigId":"not-a-uuid"}', 'viewConfigId not a UUID'],
      [
        JSON.stringify({ viewConfigId: ENERGY_VIEW, rangeStartTs: '1000' }),
        'rangeStartTs a string',
      ],
      [JSON.stringify({ viewConfigId: ENERGY_VIEW, rangeEndTs: 1.5 }), 'rangeEndTs not an integer'],
      [
        JSON.stringify({ viewConfigId: ENERGY_VIEW, filters: { building: 'Building ABC' } }),
        'filter value not an array',
      ],
      [
        JSON.stringify({ viewConfigId: ENERGY_VIEW, filters: { building: [1] } }),
        'filter value not strings',
      ],
      [
        JSON.stringify({ viewConfigId: ENERGY_VIEW, rangeStartTs: 5000, rangeEndTs: 1000 }),
        'start after end',
      ],
    ];
    for (const [raw, why] of bad) {
      const answer = await postReport(analytics.reportUrl, undefined, { jwt, raw });
      assert.equal(answer.status, 400, `${why}: ${answer.text}`);
      assert.equal(answer.json.status, 400);
      assert.equal(typeof answer.json.message, 'string');
    }
    const unknown = await postReport(
      analytics.reportUrl,
      { viewConfigId: '99999999-9999-4999-8999-999999999999' },
      { jwt },
    );
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.message, /99999999-9999-4999-8999-999999999999/);
    const extra = await postReport(
      analytics.reportUrl,
      { viewConfigId: ENERGY_VIEW, somethingElse: true },
      { jwt },
    );
    assert.equal(extra.status, 200, 'unknown members are ignored');
  });

  it('answers 405 to other methods and 404 to other paths', async () => {
    const get = await request(analytics.reportUrl, { method: 'GET' });
    assert.equal(get.statusCode, 405);
    assert.equal(get.headers.allow, 'POST');
    await get.body.dump();
    const other = await request(`${analytics.url}/apiTrendz/publicApi/buildReport`, {
      method: 'POST',
    });
    assert.equal(other.statusCode, 404);
    await other.body.dump();
  });
});

// after buildReport's tests on purpose: its 300 ms cache window is measured on a warm analytics
// module
describe('analytics JWT check', () => {
  it('remembers a positive check briefly and never beyond the exp claim', async () => {
    const platform = await startFakePlatform([
      { id: 'a1', name: 'Meter A', telemetry: {}, attributes: {} },
    ]);
    const analytics = await startAnalytics({ platformUrl: platform.url, jwtCacheMs: 300 });
    const longLived = await startAnalytics({ platformUrl: platform.url, jwtCacheMs: 60_000 });
    try {
      const jwt = makeJwt(Math.floor(Date.now() / 1000) + 3600);
      platform.validTokens.add(jwt);
      const body = { viewConfigId: analytics.demoViewId };
      assert.equal((await postReport(analytics.reportUrl, body, { jwt })).status, 200);
      const checks = platform.hits.get('/api/auth/user');
      await Promise.all([1, 2, 3].map(() => postReport(analytics.reportUrl, body, { jwt })));
      assert.equal(platform.hits.get('/api/auth/user'), checks, 'cached within jwtCacheMs');
      platform.validTokens.delete(jwt); // revoked on the platform
      await new Promise((resolve) => setTimeout(resolve, 350));
      assert.equal(
        (await postReport(analytics.reportUrl, body, { jwt })).status,
        403,
        'asked again after jwtCacheMs',
      );

      const expSeconds = Math.floor(Date.now() / 1000) + 1;
      const shortLived = makeJwt(expSeconds);
      platform.validTokens.add(shortLived); // the fake platform ignores exp: only the analytics side can refuse it
      assert.equal((await postReport(longLived.reportUrl, body, { jwt: shortLived })).status, 200);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, expSeconds * 1000 - Date.now()) + 20),
      );
      assert.equal(
        (await postReport(longLived.reportUrl, body, { jwt: shortLived })).status,
        403,
        'not beyond exp',
      );
    } finally {
      await analytics.close();
      await longLived.close();
      await platform.close();
    }
  });
});
