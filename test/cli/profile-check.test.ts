/**
 * `iotc profile check` and `--target <URL>` (issue 27): a QA engineer is told, before a run, which
 * requirements the profile leaves NOT APPLICABLE or NOT TESTED and which profile field or
 * capability would let them run; a URL is a target (the rest from IOTC_* variables), not a file
 * path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetProfile } from '../../schemas';
import { predictGaps, skipNeeds, suiteScenarios } from '../../src/cli/profile-check';
import { loadProfile } from '../../src/target';
import { iotc } from '../support/iotc';
import { spawnIotc, stop } from '../support/children';

const scenarios = suiteScenarios();

/** The README's example profile, on a local platform. */
const readmeProfile: TargetProfile = {
  name: 'staging-eu',
  platform: {
    http: 'http://127.0.0.1:8080',
    mqtt: 'mqtt://127.0.0.1:1883',
    tenantAdmin: { username: 'tenant@thingsboard.org', password: 'tenant' },
    customerUser: { username: 'customer@thingsboard.org', password: 'customer' },
    claimDurationMs: 86400000,
  },
  capabilities: ['mqtt5', 'provisioning', 'claiming', 'firmware', 'persistent-rpc'],
  namePrefix: 'iotc-',
} as TargetProfile;

test('the README profile: every requirement it leaves undecided names the field or capability that would let it run', () => {
  const gaps = predictGaps(readmeProfile, undefined, scenarios);
  assert.ok(gaps.length > 0);
  for (const gap of gaps) assert.ok(gap.needs.length > 0, `${gap.id} names what it needs`);
  const needs = new Set(gaps.flatMap((gap) => gap.needs));
  for (const expected of [
    /^platform\.mqtts/,
    /^platform\.https/,
    /^platform\.claimDurationMs of at most 50000 ms/,
    /^capability "robustness"$/,
    /^capability "tenant-limits" with platform\.sysAdmin$/,
  ])
    assert.ok(
      [...needs].some((need) => expected.test(need)),
      `${expected} among ${[...needs].join(' | ')}`,
    );
  const robustness = gaps.filter((gap) => gap.needs.includes('capability "robustness"'));
  assert.ok(robustness.length > 0);
  assert.ok(robustness.every((gap) => gap.verdict === 'NOT APPLICABLE'));
});

test('a scenario needing MQTT over TLS is skipped for want of platform.mqtts, and runs with it', () => {
  const tls = scenarios.find((scenario) =>
    scenario.steps.includes('the target serves MQTT over TLS too'),
  );
  assert.ok(tls, 'the suite has a scenario over MQTT over TLS');
  assert.deepEqual(
    skipNeeds(
      { ...readmeProfile, capabilities: ['mqtt5', 'claiming', 'provisioning', 'firmware'] },
      tls!,
    ).filter((need) => need.startsWith('platform.mqtts')).length,
    1,
  );
  const withTls = {
    ...readmeProfile,
    platform: { ...readmeProfile.platform, mqtts: 'mqtts://127.0.0.1:8883' },
  };
  assert.equal(
    skipNeeds(withTls, tls!).filter((need) => need.startsWith('platform.mqtts')).length,
    0,
  );
});

test('a default destination of the connector is reached only where the profile routes it (connector.routedDestinations)', () => {
  const routed = scenarios.find((scenario) =>
    scenario.steps.some((step) => step.startsWith("the connector's network delivers calls to")),
  );
  assert.ok(routed, 'the suite has a scenario of a default destination');
  const connector = {
    ...readmeProfile,
    capabilities: ['rest-connector'],
    connector: { url: 'http://127.0.0.1:5000' },
  } as typeof readmeProfile;
  const needs = (profile: typeof readmeProfile) =>
    skipNeeds(profile, routed!).filter((need) => need.startsWith('connector.routedDestinations'));
  assert.equal(needs(connector).length, 1);
  assert.equal(
    needs({
      ...connector,
      connector: { ...connector.connector, routedDestinations: ['sensor:80', '127.0.0.1:5001'] },
    } as typeof readmeProfile).length,
    0,
  );
});

test('the embedded profile leaves nothing undecided for want of a field or capability', () => {
  assert.deepEqual(
    predictGaps(loadProfile('embedded'), undefined, scenarios).map(
      (gap) => `${gap.id}: ${gap.needs}`,
    ),
    [],
  );
});

test('--target <URL>: a profile from the URL and IOTC_* variables; a missing user is named', () => {
  const profile = loadProfile('http://127.0.0.1:8080/', {
    IOTC_ADMIN_USER: 'tenant@thingsboard.org',
    IOTC_ADMIN_PASSWORD: 'tenant',
    IOTC_CAPABILITIES: 'mqtt5, claiming',
    IOTC_MQTTS_URL: 'mqtts://127.0.0.1:8883',
  });
  assert.equal(profile.platform.http, 'http://127.0.0.1:8080');
  assert.equal(profile.platform.mqtt, 'mqtt://127.0.0.1:1883');
  assert.equal(profile.platform.mqtts, 'mqtts://127.0.0.1:8883');
  assert.deepEqual(profile.platform.tenantAdmin, {
    username: 'tenant@thingsboard.org',
    password: 'tenant',
  });
  assert.deepEqual(profile.capabilities, ['mqtt5', 'claiming']);
  assert.equal(profile.platform.customerUser, undefined);
  assert.throws(
    () => loadProfile('http://127.0.0.1:8080', {}),
    /needs the environment variables IOTC_ADMIN_USER, IOTC_ADMIN_PASSWORD/,
  );
});

test('iotc profile check prints the gaps with the field to set; iotc run --target <URL> is not read as a file', {
  timeout: 300_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-profile-check-'));
  const path = join(dir, 'readme.json');
  writeFileSync(path, JSON.stringify(readmeProfile));
  const check = await iotc(['profile', 'check', path], join(dir, 'state'));
  assert.equal(check.code, 0, check.output);
  assert.match(check.output, /will be NOT TESTED:/);
  assert.match(check.output, /needs platform\.mqtts .*: \S+/);
  const run = await iotc(
    ['run', '--target', 'http://127.0.0.1:9', '--reports', join(dir, 'reports')],
    join(dir, 'state'),
    {
      IOTC_ADMIN_USER: 'qa@example.org',
      IOTC_ADMIN_PASSWORD: 'never-printed-pw',
    },
  );
  assert.equal(run.code, 3, run.output);
  assert.doesNotMatch(run.output, /ENOENT/);
  assert.match(run.output, /http:\/\/127\.0\.0\.1:9 refused the connection/);
});

test('iotc simulate --print-profile: a loadable profile of the running reference that leaves only the analytics and the REST connector (NOT APPLICABLE) undecided', {
  timeout: 120_000,
}, async () => {
  const child = spawnIotc(['simulate', '--http-port', '0', '--mqtt-port', '0', '--print-profile']);
  try {
    let text = '';
    const profile = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.stdout!.on('data', (chunk) => {
        text += chunk;
        try {
          resolve(JSON.parse(text));
        } catch {
          // not whole yet
        }
      });
      child.once('exit', (code) => reject(new Error(`iotc simulate exited with ${code}: ${text}`)));
    });
    const dir = mkdtempSync(join(tmpdir(), 'iotc-print-profile-'));
    const path = join(dir, 'simulate.json');
    writeFileSync(path, JSON.stringify(profile));
    const loaded = loadProfile(path);
    assert.match(loaded.platform.https ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(loaded.platform.mqtts ?? '', /^mqtts:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(loaded.platform.tls?.caFile);
    const gaps = predictGaps(loaded, undefined, scenarios);
    assert.deepEqual([...new Set(gaps.map((gap) => gap.verdict))], ['NOT APPLICABLE']);
    assert.deepEqual([...new Set(gaps.flatMap((gap) => gap.needs))].sort(), [
      'capability "analytics" with an analytics section',
      'capability "rest-connector" with a connector section',
    ]);
  } finally {
    assert.equal(await stop(child), 0, 'iotc simulate exits cleanly');
  }
});
