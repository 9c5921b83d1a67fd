/**
 * The same HTTP feature set against the reference platform running as a separate process (`iotc
 * simulate`), reached only by URL through a target profile: what a run against a staging platform
 * does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitOf, spawnIotc, startSimulate, stop } from '../support/children';
import { HARNESS_STARVED } from '../../steps/support/timing';
import {
  inconclusiveLines,
  TEST_CREDENTIALS_ENV,
  writeSimulateProfile,
} from '../support/remote-run';

/** No token, password, API key or JWT in anything the run wrote or printed. */
function assertNoSecrets(reportsDir: string, output: string): void {
  const patterns: Array<[string, RegExp]> = [
    ['a JWT', /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/],
    ['an API key', /\btb_[A-Za-z0-9_-]{16,}/],
    [
      'a device token in a URL',
      /\/api\/v1\/(?!provision\b|<redacted>|\{token\}|no-such-token|telemetry\b)[A-Za-z0-9_-]{8,}\//,
    ],
    ['the demo device token', /A1_TEST_TOKEN/],
    ['the demo gateway token', /A1_GATEWAY_TOKEN/],
    ['a password field', /"password"\s*:\s*"(?!<redacted>)[^"]+"/],
  ];
  const files = readdirSync(reportsDir).map(
    (name) => [name, readFileSync(join(reportsDir, name), 'utf8')] as const,
  );
  for (const [name, text] of [...files, ['the console output', output] as const]) {
    for (const [what, pattern] of patterns) {
      const found = pattern.exec(text);
      assert.equal(
        found,
        null,
        `${name} shows ${what}: ...${found ? text.slice(Math.max(0, found.index - 60), found.index + 80) : ''}...`,
      );
    }
  }
}

test('the HTTP device API, MQTT gateway API and admin authentication features pass against `iotc simulate` run as a separate process', {
  timeout: 900_000, // a hang guard only: a loaded 2-core machine can take minutes
}, async () => {
  const { child, info } = await startSimulate([
    '--https-port',
    '0',
    '--mqtts-port',
    '0',
    // short enough that the default claim window is waited out (HTTP-CLAIM-04, GW-CLAIM-03), as in
    // the embedded profile
    '--claim-duration-ms',
    '3000',
  ]);
  try {
    const { dir, profilePath } = writeSimulateProfile(info, { claimDurationMs: 3000 });
    const reports = join(dir, 'reports');
    const run = spawnIotc(
      [
        'run',
        // two workers, not the test runner's three: the test is about a separate process reached by
        // URL (the workers sharing its tenant included); a worker's start is about 1.6 CPU-s in a
        // suite bound by its CPU (bench/README.md "The own tests toward 3 minutes")
        '--parallel',
        '2',
        '--target',
        profilePath,
        '--tags',
        '@http-device-api or @mqtt-gateway-api or @admin-auth',
        '--reports',
        reports,
      ],
      {
        env: { ...process.env, ...TEST_CREDENTIALS_ENV },
      },
    );
    const { code, output } = await exitOf(run);
    // a requirement the starved harness could not decide (exit 4, its INCONCLUSIVE naming the
    // stall: a busy machine) is allowed, as in report-secrets.test.ts; nothing else is
    const starved = new Set(
      inconclusiveLines(output)
        .filter((line) => line.includes(HARNESS_STARVED))
        .map((line) => /INCONCLUSIVE ([A-Z0-9-]+):/.exec(line)?.[1]),
    );
    assert.ok(
      code === 0 || (code === 4 && starved.size === inconclusiveLines(output).length),
      `iotc run against the separate process failed:\n${output.slice(-4000)}`,
    );

    const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
      target: { name: string; httpUrl: string };
      requirements: Array<{ id: string; interface: string; testable: boolean; verdict: string }>;
    };
    assert.equal(report.target.name, 'simulate-child');
    assertNoSecrets(reports, output);
    assert.equal(report.target.httpUrl, info.httpUrl);
    const notPassed = report.requirements.filter(
      (requirement) =>
        requirement.testable &&
        ['http-device-api', 'key-value-data', 'mqtt-gateway-api', 'admin-auth'].includes(
          requirement.interface,
        ) &&
        requirement.verdict !== 'PASS' &&
        !(requirement.verdict === 'INCONCLUSIVE' && starved.has(requirement.id)),
    );
    assert.deepEqual(
      notPassed.map((requirement) => `${requirement.id}: ${requirement.verdict}`),
      [],
    );
    // the starved ones excepted, the run decided: most requirements PASS
    const passed = report.requirements.filter((requirement) => requirement.verdict === 'PASS');
    assert.ok(passed.length > 10 * starved.size, `${passed.length} PASS, ${starved.size} starved`);
  } finally {
    assert.equal(await stop(child), 0, 'iotc simulate exits cleanly on SIGTERM');
  }
});
