/**
 * The operator console of `iotc certify device --console` in headless Chromium: the real command (a
 * child process) serves /certify; the test is the operator. It opens the page, reads the URL and
 * token from it, and at each step the page asks for drives iotc's own HTTP device driver (real HTTP
 * to the reference): telemetry, client attributes, the answer to the RPC. The page is never
 * reloaded, so what changes on it came by its event stream: the current step, the checklist turning
 * from "not yet" to PASS, the messages. Then it presses finish and checks the reports (a screenshot
 * of the console before finish is kept as reports/console-chromium.png for people to look at).
 *
 * Without chromium on PATH the test is skipped, except in CI (CI=true), where .ci/run installs it
 * and its absence fails.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { HttpDevice } from '../../simulators/device/http-device';
import { ChromiumPage, findChromium, skipWithoutChromium } from '../support/chromium';
import { ROOT, exitOf, spawnIotc, stop } from '../support/children';

const chromium = findChromium();
const skip = skipWithoutChromium('chromium');

const REQUIREMENTS = [
  'HTTP-DEV-01',
  'HTTP-DEV-02',
  'HTTP-DEV-03',
  'HTTP-DEV-04',
  'HTTP-DEV-05',
  'HTTP-DEV-06',
  'HTTP-DEV-07',
  'HTTP-DEV-11',
  'HTTP-DEV-13', // its RPC poll gives a timeout
];
/**
 * What the person never does and no step asks for (claim, provisioning, firmware, client-side RPC).
 */
const NOT_TAKEN_UP = ['HTTP-DEV-08', 'HTTP-DEV-09', 'HTTP-DEV-10', 'HTTP-DEV-12'];

/** The console's address, from the line the command prints first. */
async function consoleUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const url = /operator console: (http:\/\/127\.0\.0\.1:\d+\/certify)$/.exec(line)?.[1];
    if (url) {
      lines.close();
      child.stdout!.resume(); // closing the reader paused it: the rest still goes to exitOf
      return url;
    }
  }
  throw new Error('iotc certify ended without printing the console address');
}

interface PageView {
  step: string;
  /** started (the platform acts) or waiting-for-operator (the device's turn) */
  state: string;
  checklist: Record<string, string>;
  messages: number;
}

/**
 * What the page shows now: the step it asks for, the checklist's verdicts, how many messages it
 * lists.
 */
const VIEW = `({
  step: document.getElementById('current-step')?.dataset.step ?? '',
  state: document.getElementById('current-step')?.dataset.state ?? '',
  checklist: Object.fromEntries([...document.querySelectorAll('#checklist tr[data-requirement]')]
    .map((row) => [row.dataset.requirement, row.dataset.verdict])),
  messages: document.querySelectorAll('#messages tr.message').length,
})`;

test('the operator console certifies the HTTP device driver in headless Chromium: steps, live checklist, finish, reports', {
  skip,
  timeout: 600_000, // a hang guard only
}, async () => {
  assert.ok(chromium, 'CI=true but chromium is not on PATH: .ci/run installs it');
  const reports = mkdtempSync(join(tmpdir(), 'iotc-console-'));
  const iotc = spawnIotc([
    'certify',
    'device',
    '--transport',
    'http',
    '--console',
    '--reports',
    reports,
    '--rpc-timeout-ms',
    '60000', // the reply is sent at once; a long timeout keeps a busy machine from making it late
  ]);
  const exited = exitOf(iotc);
  let page: ChromiumPage | undefined;
  let device: HttpDevice | undefined;
  try {
    page = await ChromiumPage.open(chromium, await consoleUrl(iotc));
    const browser = page;
    const stepIs = (step: string) =>
      browser.waitFor<PageView>(VIEW, (shown) => shown.step === step);

    // the page asks for telemetry, nothing is decided yet, and it says where and with what token
    const first = await stepIs('telemetry');
    // (what the device may take up or leave, a timestamped form or a poll timeout, is not
    // applicable so far)
    const optional = ['HTTP-DEV-04', 'HTTP-DEV-13', ...NOT_TAKEN_UP];
    assert.deepEqual(
      first.checklist,
      Object.fromEntries(
        [...REQUIREMENTS, ...NOT_TAKEN_UP].map((id) => [
          id,
          optional.includes(id) ? 'not applicable so far' : 'not yet',
        ]),
      ),
    );
    assert.equal(first.messages, 0);
    const url = await page.evaluate<string>(`document.getElementById('device-url').textContent`);
    const token = await page.evaluate<string>(
      `document.getElementById('device-token').textContent`,
    );
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(token.length > 0, 'the page shows the access token');
    device = new HttpDevice(url, token);

    assert.equal((await device.postTelemetry({ json: { temperature: 21.5 } })).status, 200);
    assert.equal(
      (await device.postTelemetry({ json: { ts: Date.now(), values: { humidity: 40 } } })).status,
      200,
    );
    // telemetry alone decides the URL form, the content type, the shapes and the milliseconds
    const afterTelemetry = await page.waitFor<PageView>(
      VIEW,
      (shown) => shown.step === 'attributes' && shown.messages === 2,
    );
    assert.deepEqual(
      REQUIREMENTS.map((id) => afterTelemetry.checklist[id]),
      // HTTP-DEV-11 waits for the RPC reply, HTTP-DEV-13 for a poll with a timeout
      [
        'PASS',
        'PASS',
        'PASS',
        'PASS',
        'not yet',
        'not yet',
        'not yet',
        'not yet',
        'not applicable so far',
      ],
    );

    assert.equal((await device.postAttributes({ json: { firmwareVersion: '1.0.0' } })).status, 200);
    // the platform has set the shared attribute (the step waits for the device once it has): read
    // it back
    await page.waitFor<PageView>(
      VIEW,
      (shown) => shown.step === 'shared-attribute' && shown.state === 'waiting-for-operator',
    );
    const shared = await device.getAttributes({ sharedKeys: ['iotcCertifyStep'] });
    assert.equal(shared.text, '{"shared":{"iotcCertifyStep":1}}');
    await stepIs('rpc');
    const delivered = await device.pollRpc(60_000);
    assert.equal(delivered.status, 200, delivered.text);
    const rpc = JSON.parse(delivered.text) as { id: number; method: string };
    assert.equal(rpc.method, 'iotcCertifyPing', 'the RPC the page asked to answer');
    // delivered and not yet answered, within its timeout: the page lists the poll and does not call
    // it a failure
    const pending = await page.waitFor<PageView>(VIEW, (shown) => shown.messages === 5);
    assert.equal(pending.checklist['HTTP-DEV-06'], 'not yet');
    assert.equal((await device.replyRpc(rpc.id, { json: { pong: rpc.method } })).status, 200);

    const done = await page.waitFor<PageView>(
      VIEW,
      (shown) =>
        shown.step === 'finish' && REQUIREMENTS.every((id) => shown.checklist[id] !== 'not yet'),
    );
    assert.deepEqual(done.checklist, {
      ...Object.fromEntries(REQUIREMENTS.map((id) => [id, 'PASS'])),
      ...Object.fromEntries(NOT_TAKEN_UP.map((id) => [id, 'not applicable so far'])),
    });
    assert.equal(
      done.messages,
      6,
      'the page lists every request: 2 telemetry, attributes, attribute read, poll, reply',
    );
    const listed = await page.evaluate<string>(`document.getElementById('messages').textContent`);
    assert.match(listed, /POST \/api\/v1\/\{token\}\/rpc\/\d+/);
    assert.ok(!listed.includes(token), 'the message list shows the token as {token}');

    // kept for people to look at, as the report's test keeps its screenshot
    mkdirSync(join(ROOT, 'reports'), { recursive: true });
    writeFileSync(join(ROOT, 'reports', 'console-chromium.png'), await page.screenshot());

    await page.evaluate(`document.getElementById('finish').click()`);
    const { code, output } = await exited;
    assert.equal(code, 0, output);
    // the page's last update, sent before the console closed, shows the overall verdict
    await page.waitFor<string>(
      `document.getElementById('verdict')?.dataset.verdict ?? ''`,
      (verdict) => verdict === 'CONFORMANT',
    );

    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      verdict: string;
      target: { name: string };
      requirements: Array<{ id: string; verdict: string }>;
    };
    assert.equal(report.verdict, 'CONFORMANT');
    assert.match(report.target.name, /operator console/);
    assert.deepEqual(
      Object.fromEntries(
        report.requirements.map((requirement) => [requirement.id, requirement.verdict]),
      ),
      // the checklist's requirements, and CLI-BEH-06 (no tight polling), judged in every HTTP
      // session
      {
        ...Object.fromEntries([...REQUIREMENTS, 'CLI-BEH-06'].map((id) => [id, 'PASS'])),
        ...Object.fromEntries(NOT_TAKEN_UP.map((id) => [id, 'NOT APPLICABLE'])),
      },
    );
    for (const file of ['conformance.json', 'conformance.html', 'junit.xml'])
      assert.ok(!readFileSync(join(reports, file), 'utf8').includes(token), `${file} has no token`);
  } finally {
    await device?.close();
    await page?.close();
    await stop(iotc);
    rmSync(reports, { recursive: true, force: true });
  }
});
