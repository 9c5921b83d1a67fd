/**
 * Which scenarios may overlap against a shared remote target, and which go first
 * (src/engine/exclusive.ts, src/engine/feature-order.ts remoteOrder).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pickle } from '@cucumber/messages';
import {
  canRunBeside,
  featureRank,
  goesFirst,
  overlapRule,
  sharingOf,
} from '../../src/engine/exclusive';
import { remoteOrder } from '../../src/engine/feature-order';

function pickle(uri: string, tags: string[], steps: string[] = []): Pickle {
  return {
    id: uri + tags.join(),
    uri,
    name: 'a scenario',
    language: 'en',
    astNodeIds: [],
    tags: tags.map((name) => ({ name, astNodeId: '' })),
    steps: steps.map((text) => ({ id: text, text, astNodeIds: [] })),
  } as Pickle;
}

const telemetry = pickle('features/http-device-api/telemetry.feature', ['@HTTP-TEL-01']);
const limit = pickle('features/mqtt-gateway-api/device-limit.feature', [
  '@mqtt-gateway-api',
  '@capability-tenant-limits',
]);
const lifetime = pickle(
  'features/admin-auth/login.feature',
  ['@AUTH-JWT-02'],
  ["the target's access token lifetime is short enough to wait for"],
);
const otherLifetime = pickle(
  'features/admin-auth/api-keys.feature',
  ['@AUTH-KEY-01'],
  ["the target's access token lifetime is short enough to wait for"],
);
const login = pickle(
  'features/admin-auth/protected-endpoints.feature',
  ['@AUTH-01'],
  ["a JWT from the tenant administrator's login"],
);
const documentation = pickle('features/admin-auth/documentation.feature', ['@AUTH-DOC-01']);
const robustness = pickle('features/robustness/connections.feature', ['@robustness']);
const slowReader = pickle('features/robustness/connections.feature', [
  '@robustness',
  '@ROB-SLOW-01',
]);
const bigBody = pickle('features/robustness/payloads.feature', ['@robustness', '@ROB-SIZE-01']);
const otherBigBody = pickle('features/robustness/payloads.feature', [
  '@robustness',
  '@ROB-SIZE-01',
  '@capability-x',
]);
const nested = pickle('features/robustness/payloads.feature', [
  '@robustness',
  '@ROB-NEST-01',
  '@capability-mqtt5',
]);
const connector = pickle('features/rest-connector/endpoints.feature', ['@rest-connector']);
const analytics = pickle('features/analytics-report/rate-limiter.feature', ['@AN-LIM-01']);

/** Neither `scenario` beside any of `others`, nor any of them beside it (the rule is symmetric). */
function neverBeside(scenario: Pickle, others: readonly Pickle[]): void {
  for (const other of others) {
    assert.equal(canRunBeside(scenario, [other]), false);
    assert.equal(canRunBeside(other, [scenario]), false);
  }
}

test('a scenario that changes what the whole tenant sees runs alone; the others overlap', () => {
  assert.equal(sharingOf(telemetry), 'free');
  const unsorted = pickle('features/some-new-interface/a.feature', ['@NEW-01']);
  for (const alone of [robustness, unsorted]) {
    assert.equal(sharingOf(alone), 'alone');
    assert.equal(canRunBeside(alone, []), true);
    assert.equal(canRunBeside(alone, [telemetry]), false);
    assert.equal(canRunBeside(telemetry, [alone]), false);
    assert.equal(canRunBeside(lifetime, [alone]), false);
  }
  assert.equal(canRunBeside(telemetry, [telemetry, login]), true);
});

test('the robustness scenarios, sorted by requirement: a bounded abuse of its own overlaps like a device scenario, 50 MB bodies one at a time, a lasting load or an unsorted one alone', () => {
  assert.equal(sharingOf(nested), 'free');
  assert.equal(canRunBeside(nested, [telemetry, login, bigBody, nested]), true);
  // the client that stops reading and the 200 long-polls load the target for seconds: alone
  assert.equal(sharingOf(slowReader), 'alone');
  neverBeside(slowReader, [telemetry, nested, bigBody]);
  for (const abuse of [bigBody, otherBigBody]) {
    assert.equal(sharingOf(abuse), 'abuse');
    assert.equal(canRunBeside(abuse, [telemetry, login, lifetime, nested]), true);
    assert.equal(canRunBeside(telemetry, [abuse]), true);
    neverBeside(abuse, [bigBody, otherBigBody, limit, analytics, robustness]);
  }
  // against a remote target (the run's rule) the 50 MB bodies run alone
  const rule = overlapRule();
  assert.equal(rule(bigBody, []), true);
  assert.equal(rule(bigBody, [telemetry]), false);
  assert.equal(rule(telemetry, [bigBody]), false);
  assert.equal(rule(nested, [telemetry]), true);
  // two requirement tags: not sorted as one, alone
  const both = pickle('features/robustness/connections.feature', [
    '@robustness',
    '@ROB-SLOW-01',
    '@ROB-NEST-01',
  ]);
  assert.equal(sharingOf(both), 'alone');
});

test("an analytics scenario overlaps device and login scenarios, never another analytics one, the token lifetimes' or the device limit's", () => {
  assert.equal(sharingOf(analytics), 'analytics');
  assert.equal(canRunBeside(analytics, [telemetry, login, connector]), true);
  assert.equal(canRunBeside(telemetry, [analytics]), true);
  neverBeside(analytics, [analytics, lifetime, limit, robustness]);
});

test("the REST connector's scenarios name what they touch: they overlap like device scenarios, never the device limit's", () => {
  assert.equal(sharingOf(connector), 'free');
  assert.equal(canRunBeside(connector, [telemetry, connector, login]), true);
  assert.equal(canRunBeside(connector, [limit]), false);
  assert.equal(canRunBeside(connector, [robustness]), false);
});

test("the device limit's scenarios overlap only a token-lifetimes one, which creates no device", () => {
  assert.equal(sharingOf(limit), 'tenant-limits');
  assert.equal(canRunBeside(limit, [lifetime]), true);
  assert.equal(canRunBeside(lifetime, [limit]), true);
  neverBeside(limit, [telemetry, login, limit, robustness]);
});

test('a scenario that sets the token lifetimes overlaps the device scenarios, never a login or another such scenario', () => {
  assert.equal(sharingOf(lifetime), 'token-lifetimes');
  assert.equal(sharingOf(login), 'logs-in');
  assert.equal(sharingOf(telemetry), 'free');
  assert.equal(canRunBeside(lifetime, [telemetry, telemetry]), true);
  assert.equal(canRunBeside(telemetry, [lifetime]), true);
  assert.equal(canRunBeside(lifetime, [login]), false);
  assert.equal(canRunBeside(login, [lifetime]), false);
  assert.equal(canRunBeside(otherLifetime, [lifetime]), false);
  assert.equal(canRunBeside(login, [login, telemetry]), true);
  // an authentication scenario that never logs in (the API description) is free
  assert.equal(sharingOf(documentation), 'free');
  assert.equal(canRunBeside(documentation, [lifetime]), true);
});

test('a lifetime scenario that had to wait goes before every login scenario, and the rule holds no scenario for good', () => {
  const rule = overlapRule();
  // the first lifetime scenario runs; the second must wait for it
  assert.equal(rule(otherLifetime, [lifetime]), false);
  // a login scenario would start once the first ends and keep the second waiting: it is held
  assert.equal(rule(login, [telemetry]), false);
  assert.equal(rule(telemetry, [lifetime]), true);
  // the second starts once the first has ended, and the logins may follow it
  assert.equal(rule(otherLifetime, [telemetry]), true);
  assert.equal(rule(login, [telemetry]), true);
  // a fresh rule for each run
  assert.equal(overlapRule()(login, []), true);
});

test('a remote run starts the features that run alone, then those that set token lifetimes, then the rest slowest first', () => {
  for (const scenario of [limit, robustness, bigBody, lifetime])
    assert.equal(goesFirst(scenario), true);
  for (const scenario of [telemetry, login]) assert.equal(goesFirst(scenario), false);
  const texts: Record<string, string> = {
    'features/http-device-api/telemetry.feature':
      'Feature: telemetry\n  @HTTP-TEL-01\n  Scenario: x',
    'features/mqtt-gateway-api/device-limit.feature':
      '@mqtt-gateway-api @capability-tenant-limits\nFeature: limit',
    'features/admin-auth/login.feature':
      "Feature: login\n  Scenario: y\n    Given the target's access token lifetime is short enough to wait for",
    'features/admin-auth/protected-endpoints.feature': 'Feature: endpoints',
    'features/analytics-report/build-report.feature': 'Feature: report',
  };
  const rank = (feature: string) => featureRank(feature, texts[feature]!);
  assert.deepEqual(Object.keys(texts).map(rank), [2, 0, 1, 2, 0]);
  const weights = {
    'features/http-device-api/telemetry.feature': 500,
    'features/mqtt-gateway-api/device-limit.feature': 100,
    'features/admin-auth/login.feature': 9000,
    'features/admin-auth/protected-endpoints.feature': 700,
    'features/analytics-report/build-report.feature': 3000,
  };
  assert.deepEqual(remoteOrder(Object.keys(texts), weights, rank), [
    'features/analytics-report/build-report.feature',
    'features/mqtt-gateway-api/device-limit.feature',
    'features/admin-auth/login.feature',
    'features/admin-auth/protected-endpoints.feature',
    'features/http-device-api/telemetry.feature',
  ]);
});
