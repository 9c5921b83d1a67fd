/**
 * End to end: a scenario that fails through a transport error is retried once and then
 * INCONCLUSIVE, never FAIL; a scenario that fails with an answer of the target is not retried and
 * FAILs. Against `iotc simulate` as a remote target whose profile names a closed MQTT port (every
 * MQTT connect is refused: ECONNREFUSED, no CONNACK).
 */
import { test } from 'node:test';
import { closedPort } from '../support/closed-port';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iotc } from '../support/iotc';
import { startSimulate, stop } from '../support/children';
import { conformanceReportSchema } from '../../schemas';
import { validate } from '../../schemas/validate';

const FEATURE = `Feature: transport failures and answers

  @HTTP-TEL-01
  Scenario: an answer of the target fails and is not retried
    Given a device "thermo" with an access token
    When the device "thermo" posts telemetry {"temperature": 21.5}
    Then the response status is 500

  @MQTT-DEV-CLAIM-01
  Scenario: a refused MQTT connect is no answer of the target
    Given an MQTT device "tracker" connected over MQTT 5
`;

interface Report {
  verdict: string;
  verdictReason?: string;
  run: { scenarios: Record<string, number>; harness?: Array<{ eventLoopLagMs: { max: number } }> };
  requirements: Array<{
    id: string;
    verdict: string;
    reason?: string;
    scenarios: Array<{ status: string; error?: string }>;
  }>;
}

test('a transport error is retried once, then INCONCLUSIVE (exit 4); an answer FAILs (exit 1), not retried', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-inconclusive-'));
  const { child, info } = await startSimulate<{
    httpUrl: string;
    users: Array<{ username: string; password: string; authority: string }>;
  }>();
  try {
    const user = (authority: string) => {
      const found = info.users.find((candidate) => candidate.authority === authority)!;
      return { username: found.username, password: found.password };
    };
    const profile = join(dir, 'refused-mqtt.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'refused-mqtt',
        platform: {
          http: info.httpUrl,
          mqtt: `mqtt://127.0.0.1:${await closedPort()}`,
          tenantAdmin: user('TENANT_ADMIN'),
          customerUser: user('CUSTOMER_USER'),
        },
        capabilities: ['mqtt5'],
        deviations: {},
        namePrefix: 'iotc-',
        timeouts: { eventuallyMs: 3000, pollIntervalMs: 100, requestMs: 5000 },
      }),
    );
    const feature = join(dir, 'transport.feature');
    writeFileSync(feature, FEATURE);
    const runOnce = async (reports: string, extra: string[]) => {
      const { code, output } = await iotc(
        ['run', '--target', profile, '--reports', reports, ...extra, feature],
        join(dir, 'state'),
      );
      const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report;
      const shape = validate(conformanceReportSchema, report);
      assert.ok(shape.ok, shape.errors.join('; '));
      return { code, output, report, junit: readFileSync(join(reports, 'junit.xml'), 'utf8') };
    };

    // both scenarios: the answer FAILs and wins the exit code; the refused connect is INCONCLUSIVE
    const both = await runOnce(join(dir, 'both'), []);
    assert.equal(both.code, 1, both.output.slice(-3000));
    const byId = new Map(
      both.report.requirements.map((requirement) => [requirement.id, requirement]),
    );
    const http = byId.get('HTTP-TEL-01')!;
    assert.equal(http.verdict, 'FAIL');
    assert.equal(http.scenarios[0].status, 'FAILED');
    assert.doesNotMatch(
      http.scenarios[0].error ?? '',
      /not retried/,
      'the first attempt is the result',
    );
    const mqtt = byId.get('MQTT-DEV-CLAIM-01')!;
    assert.equal(mqtt.verdict, 'INCONCLUSIVE', JSON.stringify(mqtt));
    assert.match(mqtt.reason ?? '', /the network failed.*ECONNREFUSED/);
    assert.equal(both.report.verdict, 'NOT CONFORMANT');

    // the refused connect alone: INCOMPLETE with the reason, exit 4, junit shows an error, not a
    // failure
    const alone = await runOnce(join(dir, 'alone'), ['--tags', '@MQTT-DEV-CLAIM-01']);
    assert.equal(alone.code, 4, alone.output.slice(-3000));
    assert.equal(alone.report.verdict, 'INCOMPLETE');
    assert.equal(alone.report.verdictReason, '1 requirement INCONCLUSIVE: the network failed');
    assert.match(alone.output, /INCOMPLETE \(1 requirement INCONCLUSIVE: the network failed\)/);
    assert.match(alone.output, /INCONCLUSIVE MQTT-DEV-CLAIM-01: /);
    assert.match(alone.junit, /<error type="INCONCLUSIVE" message="INCONCLUSIVE: /);
    assert.match(alone.junit, /failures="0" errors="1"/);
    assert.equal(alone.report.run.scenarios.INCONCLUSIVE, 1);
    // the harness's own load is in the run facts
    assert.ok((alone.report.run.harness?.length ?? 0) >= 1, 'harness facts recorded');
    // it was tried twice: the first attempt is reported retried
    assert.match(alone.output, /attempt 1, retried/);
  } finally {
    await stop(child);
  }
});
