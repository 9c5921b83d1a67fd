/**
 * The progress of `iotc run` (issue 27): on a terminal a live line per interface (done of planned,
 * FAIL so far, elapsed), redrawn in place; in CI one line per finished feature file. Fed hand-made
 * cucumber messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as messages from '@cucumber/messages';
import { interfaceOf, RunProgress } from '../../src/cli/progress';

/**
 * Two features of http-device-api (two scenarios and one) and one of admin-auth; the second http
 * scenario fails.
 */
function run(): messages.Envelope[] {
  const pickles = [
    ['p1', 'features/http-device-api/telemetry.feature'],
    ['p2', 'features/http-device-api/telemetry.feature'],
    ['p3', 'features/http-device-api/claim.feature'],
    ['p4', 'features/admin-auth/login.feature'],
  ];
  const envelopes: unknown[] = [
    ...pickles.map(([id, uri]) => ({ pickle: { id, uri } })),
    ...pickles.map(([id]) => ({ testCase: { id: `c-${id}`, pickleId: id } })),
  ];
  for (const [id] of pickles) {
    envelopes.push({ testCaseStarted: { id: `s-${id}`, testCaseId: `c-${id}` } });
    envelopes.push({
      testStepFinished: {
        testCaseStartedId: `s-${id}`,
        testStepResult: { status: id === 'p2' ? 'FAILED' : 'PASSED', message: 'expected 200' },
      },
    });
    envelopes.push({ testCaseFinished: { testCaseStartedId: `s-${id}`, willBeRetried: false } });
  }
  envelopes.push({ testRunFinished: {} });
  return envelopes as messages.Envelope[];
}

test('the interface of a feature file is its folder under features/', () => {
  assert.equal(interfaceOf('features/mqtt-gateway-api/connect.feature'), 'mqtt-gateway-api');
  assert.equal(interfaceOf('/home/x/iotc/features/admin-auth/jwt.feature'), 'admin-auth');
});

test('not a terminal (CI): one line per finished feature, with its interface done of planned and FAIL so far', () => {
  let out = '';
  const clock = 0;
  const progress = new RunProgress({
    out: { write: (text: string) => (out += text) },
    live: false,
    now: () => clock,
  });
  for (const envelope of run()) progress.onMessage(envelope);
  const lines = out.trimEnd().split('\n');
  assert.equal(lines.length, 3, out);
  assert.match(
    lines[0],
    /^features\/http-device-api\/telemetry\.feature: 2 scenarios, FAIL 1 · http-device-api 2\/3, FAIL 1 · 0:00$/,
  );
  assert.match(
    lines[1],
    /^features\/http-device-api\/claim\.feature: 1 scenarios, FAIL 0 · http-device-api 3\/3, FAIL 1/,
  );
  assert.match(
    lines[2],
    /^features\/admin-auth\/login\.feature: 1 scenarios, FAIL 0 · admin-auth 1\/1, FAIL 0/,
  );
  assert.ok(!out.includes('\x1b'), 'no terminal escapes in a CI log');
});

test('a terminal: a line per interface, redrawn in place, ending with every interface done', () => {
  let out = '';
  let clock = 0;
  const progress = new RunProgress({
    out: { write: (text: string) => (out += text), isTTY: true },
    now: () => clock,
    tick: false,
  });
  for (const envelope of run()) {
    clock += 1000; // every message a second later: every redraw is due
    progress.onMessage(envelope);
  }
  assert.ok(out.includes('\x1b[2A'), 'moves up over its two lines to redraw them');
  const last = out.split('\x1b[2A').at(-1)!.replaceAll('\x1b[2K', '');
  assert.match(last, /^http-device-api {2}3\/3 scenarios {2}FAIL 1 {2}0:\d\d done\n/);
  assert.match(last, /\nadmin-auth {7}1\/1 scenarios {2}FAIL 0 {2}0:\d\d done\n$/);
});
