import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as messages from '@cucumber/messages';
import {
  ExchangeLog,
  EXCHANGES_MEDIA_TYPE,
  describeExchange,
  type Exchange,
  type HttpExchange,
  reproduceExchange,
} from '../../src/report/exchanges';
import { Redactor } from '../../src/report/redact';
import { requirementVerdicts, scenarioResults } from '../../src/report/verdicts';
import { buildConformanceReport } from '../../src/report/conformance';
import { conformanceHtml } from '../../src/report/html';
import { mintJwt } from '../support/jwt';

let JWT = '';
before(async () => {
  JWT = await mintJwt('tenant');
});

const http = (
  method: string,
  url: string,
  status: number,
  body = '',
  requestBody?: string,
): HttpExchange => ({
  protocol: 'http',
  via: 'device',
  request: { method, url, body: requestBody },
  response: { status, body },
  elapsedMs: 1.4,
});

test('the log keeps the last exchanges, folds repeated polls into one with a count, and rounds times', () => {
  const log = new ExchangeLog({ limit: 3 });
  log.record(http('POST', 'http://127.0.0.1:1/api/v1/t/telemetry', 200));
  for (let i = 0; i < 4; i++)
    log.record(http('GET', 'http://127.0.0.1:1/api/plugins/x', 200, `{"try":${i}}`));
  log.record(http('GET', 'http://127.0.0.1:1/api/plugins/x', 401));
  log.record(http('GET', 'http://127.0.0.1:1/api/b', 404));
  assert.equal(log.total, 7);
  assert.deepEqual(log.exchanges.map(describeExchange), [
    'GET /api/plugins/x → 200 (×4)',
    'GET /api/plugins/x → 401',
    'GET /api/b → 404',
  ]);
  const polled = log.exchanges[0] as HttpExchange;
  assert.equal(polled.response.body, '{"try":3}', 'the last answer of the polls is kept');
  assert.equal(polled.elapsedMs, 1);
  assert.deepEqual(JSON.parse(JSON.stringify(log)).exchanges.length, 3);
});

test('secrets are redacted before bodies are cut, so a secret at the cut is never half shown', () => {
  const redactor = new Redactor();
  redactor.addSecret('A1_DEVICE_TOKEN');
  const log = new ExchangeLog({ bodyChars: 40, redact: (text) => redactor.redactEvidence(text) });
  const padding = 'x'.repeat(30);
  const answer = `{"pad":"${padding}","token":"${JWT}"} ${JWT}`;
  log.record({
    protocol: 'http',
    via: 'admin',
    request: {
      method: 'POST',
      url: `https://tb.example/api/auth/login?jwt=${JWT}`,
      headers: { 'X-Authorization': `Bearer ${JWT}`, jwt: JWT, 'content-type': 'application/json' },
      body: '{"username":"u","password":"hunter2-hunter2"}',
    },
    response: { status: 200, body: answer },
    elapsedMs: 3,
  });
  log.record(http('POST', 'http://h/api/v1/A1_DEVICE_TOKEN/telemetry', 200));
  const text = JSON.stringify(log);
  for (const secret of [JWT, JWT.slice(0, JWT.indexOf('.') + 9), 'hunter2', 'A1_DEVICE_TOKEN'])
    assert.ok(!text.includes(secret), `${secret} shown in ${text}`);
  const [login, device] = log.exchanges as HttpExchange[];
  assert.deepEqual(login.request.headers, {
    'X-Authorization': 'Bearer <redacted>',
    jwt: '<redacted>',
    'content-type': 'application/json',
  });
  assert.equal(
    login.request.url,
    '/api/auth/login?jwt=<redacted>',
    'the origin is dropped, the path kept',
  );
  assert.equal(login.response.body, `{"pad":"${padding}",… (${answer.length} characters)`);
  assert.equal(device.request.url, '/api/v1/<redacted>/telemetry');
});

/** A cucumber message stream of one passing and one failing scenario with exchanges attachments. */
function envelopes(): messages.Envelope[] {
  const pickle = (id: string, name: string, tag: string) =>
    ({
      pickle: {
        id,
        uri: 'features/a.feature',
        name,
        language: 'en',
        steps: [],
        tags: [{ name: tag, astNodeId: 'n' }],
        astNodeIds: [],
        location: { line: 3 },
      },
    }) as unknown as messages.Envelope;
  const at = { seconds: 1, nanos: 0 };
  const exchanges = (exchange: Exchange) => JSON.stringify({ total: 1, exchanges: [exchange] });
  return [
    pickle('p1', 'telemetry is stored', '@A-01'),
    pickle('p2', 'malformed JSON is refused', '@A-02'),
    { testCase: { id: 'c1', pickleId: 'p1', testSteps: [] } },
    { testCase: { id: 'c2', pickleId: 'p2', testSteps: [] } },
    { testCaseStarted: { id: 's1', testCaseId: 'c1', attempt: 0, timestamp: at } },
    {
      attachment: {
        testCaseStartedId: 's1',
        mediaType: EXCHANGES_MEDIA_TYPE,
        body: exchanges(http('POST', '/api/v1/<redacted>/telemetry', 200, '', '{"t":1}')),
        contentEncoding: 'IDENTITY',
      },
    },
    { testCaseFinished: { testCaseStartedId: 's1', timestamp: at, willBeRetried: false } },
    { testCaseStarted: { id: 's2', testCaseId: 'c2', attempt: 0, timestamp: at } },
    {
      testStepFinished: {
        testCaseStartedId: 's2',
        testStepId: 'x',
        timestamp: at,
        testStepResult: {
          status: 'FAILED',
          message: 'expected 400, got 500',
          duration: { seconds: 0, nanos: 0 },
        },
      },
    },
    {
      attachment: {
        testCaseStartedId: 's2',
        mediaType: EXCHANGES_MEDIA_TYPE,
        body: exchanges(
          http('POST', '/api/v1/<redacted>/telemetry', 500, 'parse error <b>', '{bad'),
        ),
        contentEncoding: 'IDENTITY',
      },
    },
    { testCaseFinished: { testCaseStartedId: 's2', timestamp: at, willBeRetried: false } },
  ] as messages.Envelope[];
}

test('the report gives every verdict, PASS included, the exchanges of the scenarios that decided it, and the page shows them', () => {
  const catalogue = ['A-01', 'A-02'].map((id) => ({
    id,
    interface: 'http-device-api' as const,
    statement: id,
    role: 'platform' as const,
    section: 's',
    level: 'MUST' as const,
    testable: true,
  }));
  const scenarios = scenarioResults(envelopes());
  const requirements = requirementVerdicts(catalogue, scenarios, { capabilities: new Set() });
  assert.deepEqual(
    requirements.map((requirement) => requirement.verdict),
    ['PASS', 'FAIL'],
  );
  const [passed, failed] = requirements;
  assert.equal(passed.scenarios[0].exchanges?.[0].protocol, 'http');
  assert.deepEqual(passed.scenarios[0].exchanges?.map(describeExchange), [
    'POST /api/v1/<redacted>/telemetry → 200',
  ]);
  assert.deepEqual(failed.scenarios[0].exchanges?.map(describeExchange), [
    'POST /api/v1/<redacted>/telemetry → 500',
  ]);

  const report = buildConformanceReport({
    version: '0',
    target: { name: 't', httpUrl: 'embedded', adminUrl: 'embedded', capabilities: [] },
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    tagExpression: '',
    scenarios,
    requirements,
    redactor: new Redactor(),
  });
  assert.equal(
    JSON.parse(JSON.stringify(report)).requirements[0].scenarios[0].exchanges[0].response.status,
    200,
  );
  const html = conformanceHtml(report);
  // the FAIL's evidence is open, and comes with the command that repeats it
  assert.equal(html.match(/<details class="evidence"( open)?>/g)?.length, 2);
  assert.ok(
    html.includes('<pre class="reproduce">curl -sS -X POST'),
    'the failure can be repeated by hand',
  );
  assert.ok(html.includes('<code>POST /api/v1/&#60;redacted&#62;/telemetry → 500</code>'));
  assert.ok(html.includes('parse error &#60;b&#62;'), 'bodies are escaped');
});

test('a failing exchange gets the command that repeats it: curl for HTTP, mosquitto_pub for a publish', () => {
  const curl = reproduceExchange(
    {
      protocol: 'http',
      via: 'device',
      request: {
        method: 'POST',
        url: '/api/v1/<redacted>/telemetry',
        headers: { 'content-type': 'application/json' },
        body: `{"note":"it's"}`,
      },
      response: { status: 500 },
      elapsedMs: 1,
    },
    'https://tb.staging.example/',
  );
  assert.equal(
    curl,
    `curl -sS -X POST -H "content-type: application/json" --data-raw '{"note":"it'\\''s"}' "https://tb.staging.example/api/v1/$TOKEN/telemetry"`,
  );
  const pub = reproduceExchange(
    {
      protocol: 'mqtt',
      via: 'gateway',
      request: { packet: 'PUBLISH', topic: 'v1/gateway/telemetry', qos: 1, payload: '{"A":[]}' },
      response: { result: 'acked', reasonCode: 0x99 },
      elapsedMs: 1,
    },
    'mqtt://127.0.0.1:1883',
  );
  assert.equal(
    pub,
    `mosquitto_pub -h 127.0.0.1 -p 1883 -u "$TOKEN" -t 'v1/gateway/telemetry' -q 1 -m '{"A":[]}'`,
  );
  assert.equal(
    reproduceExchange(
      {
        protocol: 'mqtt',
        via: 'gateway',
        request: { packet: 'CONNECT', url: 'mqtt://127.0.0.1:1883' },
        response: { result: 'accepted' },
        elapsedMs: 1,
      },
      'mqtt://127.0.0.1:1883',
    ),
    undefined,
  );
});

test('reproduce lines of admin calls carry a placeholder for the session JWT, never the JWT; a publish goes to the session broker port (issue 27)', () => {
  const log = new ExchangeLog({ redact: (text) => new Redactor().redact(text) });
  // what the admin session hands its recorder (src/admin-client/auth.ts): its header, the JWT
  // already blanked
  log.record({
    protocol: 'http',
    via: 'admin',
    request: {
      method: 'GET',
      url: '/api/device/abc',
      headers: { 'x-authorization': 'Bearer <redacted>' },
    },
    response: { status: 404 },
    elapsedMs: 1,
  });
  // a step's own request without credentials stays without them
  log.record({
    protocol: 'http',
    via: 'admin',
    request: { method: 'GET', url: '/api/auth/user', headers: {} },
    response: { status: 401 },
    elapsedMs: 1,
  });
  const [session, anonymous] = log.exchanges.map((exchange) =>
    reproduceExchange(exchange, 'http://127.0.0.1:18080'),
  );
  assert.equal(
    session,
    'curl -sS -X GET -H "x-authorization: Bearer $IOTC_TOKEN" "http://127.0.0.1:18080/api/device/abc"',
  );
  assert.equal(anonymous, 'curl -sS -X GET "http://127.0.0.1:18080/api/auth/user"');
  const publish = {
    protocol: 'mqtt' as const,
    via: 'mqtt',
    request: {
      packet: 'PUBLISH' as const,
      url: 'mqtt://127.0.0.1:11883',
      topic: 'v1/devices/me/telemetry',
      qos: 1,
      payload: '{}',
    },
    response: { result: 'acked' },
    elapsedMs: 1,
  };
  assert.match(
    reproduceExchange(publish, 'http://127.0.0.1:18080')!,
    /^mosquitto_pub -h 127\.0\.0\.1 -p 11883 /,
  );
  assert.match(
    reproduceExchange(
      { ...publish, request: { ...publish.request, url: 'mqtts://tb.example:8883' } },
      'http://x',
    )!,
    /^mosquitto_pub -h tb\.example -p 8883 --cafile "\$IOTC_CA_FILE" /,
  );
  // an embedded target's broker is gone: `iotc simulate` on its default port stands in
  assert.match(
    reproduceExchange(publish, 'http://127.0.0.1:8080', { embedded: true })!,
    /^mosquitto_pub -h 127\.0\.0\.1 -p 1883 /,
  );
});
