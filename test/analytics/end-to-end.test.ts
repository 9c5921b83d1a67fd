/**
 * The reference analytics over the reference platform, each only over HTTP: log in as the tenant,
 * create a device, let it post telemetry and attributes through the HTTP device API, then build a
 * report of a saved view over it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startAnalytics, type RunningAnalytics } from '../../simulators/analytics';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import { eventually, postReport } from './support';

const VIEW_ID = '3e9b0c4d-6f5a-4182-9dce-3f4a5b6c7d8e';

async function call(
  url: string,
  method: 'GET' | 'POST',
  body?: unknown,
  jwt?: string,
  // biome-ignore lint/suspicious/noExplicitAny: inspected field by field
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (jwt) headers['x-authorization'] = `Bearer ${jwt}`;
  const response = await request(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
}

describe('analytics over the reference platform', () => {
  let platform: RunningPlatform;
  let analytics: RunningAnalytics;
  let jwt: string;
  let deviceToken: string;

  before(async () => {
    platform = await startPlatform({ httpPort: 0 });
    const directory = mkdtempSync(join(tmpdir(), 'iotc-analytics-e2e-'));
    const viewsFile = join(directory, 'views.json');
    writeFileSync(
      viewsFile,
      JSON.stringify({
        views: [
          {
            id: VIEW_ID,
            name: 'e2e meters',
            devices: { nameContains: 'e2e meter' },
            columns: [
              { label: 'Date', source: { type: 'date' } },
              { label: 'Device', source: { type: 'deviceName' } },
              {
                label: 'Building',
                source: { type: 'attribute', key: 'building', scope: 'CLIENT_SCOPE' },
              },
              { label: 'Temperature', source: { type: 'telemetry', key: 'temperature' } },
              { label: 'Count', source: { type: 'telemetry', key: 'count' } },
            ],
            filters: {
              building: {
                source: { type: 'attribute', key: 'building', scope: 'CLIENT_SCOPE' },
                values: ['Building ABC'],
              },
            },
            range: { lastMs: 3_600_000 },
          },
        ],
      }),
    );
    analytics = await startAnalytics({
      platformUrl: platform.httpUrl,
      viewsFile,
      pathPrefix: '/apiTrendz',
    });
    const login = await call(`${platform.httpUrl}/api/auth/login`, 'POST', {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    assert.equal(login.status, 200);
    jwt = login.json.token;
    const device = await call(
      `${platform.httpUrl}/api/device`,
      'POST',
      { name: 'e2e meter 1' },
      jwt,
    );
    assert.equal(device.status, 200);
    const credentials = await call(
      `${platform.httpUrl}/api/device/${device.json.id.id}/credentials`,
      'GET',
      undefined,
      jwt,
    );
    deviceToken = credentials.json.credentialsId;
  });
  after(async () => {
    await analytics?.close();
    await platform?.close();
  });

  it('reports what the device sent, typed, with the JWT from the platform login', async () => {
    const now = Date.now();
    const device = `${platform.httpUrl}/api/v1/${deviceToken}`;
    assert.equal(
      (await call(`${device}/attributes`, 'POST', { building: 'Building ABC' })).status,
      200,
    );
    assert.equal(
      (
        await call(`${device}/telemetry`, 'POST', {
          ts: now - 2000,
          values: { temperature: 21.5, count: 3 },
        })
      ).status,
      200,
    );
    assert.equal(
      (await call(`${device}/telemetry`, 'POST', { ts: now - 1000, values: { temperature: 22 } }))
        .status,
      200,
    );
    assert.ok(analytics.reportUrl.endsWith('/apiTrendz/publicApi/buildReport'));

    let answer = await postReport(analytics.reportUrl, { viewConfigId: VIEW_ID }, { jwt });
    await eventually(
      async () => {
        answer = await postReport(
          analytics.reportUrl,
          { viewConfigId: VIEW_ID },
          { jwt, jwtIn: 'header' },
        );
        return answer.status === 200 && answer.json.dataTable.length === 2;
      },
      3000,
      'the telemetry to show in the report',
    );
    assert.deepEqual(answer.json, {
      columnLabels: ['Date', 'Device', 'Building', 'Temperature', 'Count'],
      dataTable: [
        {
          Date: String(now - 2000),
          Device: 'e2e meter 1',
          Building: 'Building ABC',
          Temperature: 21.5,
          Count: 3,
        },
        {
          Date: String(now - 1000),
          Device: 'e2e meter 1',
          Building: 'Building ABC',
          Temperature: 22,
          Count: null,
        },
      ],
    });
    assert.match(answer.text, /"Temperature":22\.0,"Count":null/);
    assert.match(answer.text, /"Count":3\.0/);

    const ranged = await postReport(
      analytics.reportUrl,
      { viewConfigId: VIEW_ID, rangeStartTs: now - 1500, rangeEndTs: now },
      { jwt },
    );
    assert.deepEqual(
      ranged.json.dataTable.map((row: { Date: string }) => row.Date),
      [String(now - 1000)],
    );
    const filtered = await postReport(
      analytics.reportUrl,
      { viewConfigId: VIEW_ID, filters: { building: ['Building XYZ'] } },
      { jwt },
    );
    assert.deepEqual(filtered.json.dataTable, []);
  });

  it("serves the demo view over the platform's demo device", async () => {
    const ts = Date.now() - 500;
    assert.equal(
      (
        await call(`${platform.httpUrl}/api/v1/${platform.demo.deviceToken}/telemetry`, 'POST', {
          ts,
          values: { temperature: 19, humidity: 40.5 },
        })
      ).status,
      200,
    );
    const answer = await postReport(
      analytics.reportUrl,
      { viewConfigId: analytics.demoViewId },
      { jwt },
    );
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.dataTable, [
      { Date: String(ts), Device: 'Demo Device', temperature: 19, humidity: 40.5 },
    ]);
  });

  it("answers 403 to a user the platform does not let read the view's devices", async () => {
    const customer = platform.demo.users.find((user) => user.authority === 'CUSTOMER_USER');
    assert.ok(customer, 'the platform has a demo customer user');
    const login = await call(`${platform.httpUrl}/api/auth/login`, 'POST', {
      username: customer.username,
      password: customer.password,
    });
    assert.equal(login.status, 200);
    const answer = await postReport(
      analytics.reportUrl,
      { viewConfigId: VIEW_ID },
      { jwt: login.json.token },
    );
    assert.equal(answer.status, 403, answer.text);
  });

  it('refuses a JWT the platform refuses with 403', async () => {
    const forged = `${jwt.slice(0, -4)}AAAA`;
    assert.equal(
      (await postReport(analytics.reportUrl, { viewConfigId: VIEW_ID }, { jwt: forged })).status,
      403,
    );
    assert.equal(
      (
        await postReport(
          analytics.reportUrl,
          { viewConfigId: VIEW_ID },
          { jwt: 'garbage', jwtIn: 'header' },
        )
      ).status,
      403,
    );
  });
});
