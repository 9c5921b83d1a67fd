/**
 * `iotc run` against a target it cannot reach says why at once (URL and cause), writes a report in
 * which every requirement is NOT TESTED with that reason, shows no password, and exits 3 ("could
 * not test"), distinct from 1 ("not conformant") and 2 ("bad invocation").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { iotc } from '../support/iotc';

test('an unreachable target: exit 3, the cause printed, every requirement NOT TESTED with the reason', {
  timeout: 900_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-could-not-test-'));
  const profile = join(dir, 'closed-port.json');
  writeFileSync(
    profile,
    JSON.stringify({
      name: 'closed-port',
      platform: {
        http: 'http://127.0.0.1:9',
        tenantAdmin: { username: 'qa@example.org', password: 'never-printed-pw' },
      },
      namePrefix: 'iotc-',
    }),
  );
  const reports = join(dir, 'reports');
  const { code, output } = await iotc(
    ['run', '--target', profile, '--reports', reports],
    join(dir, 'state'),
  );
  assert.equal(code, 3, output);
  assert.match(output, /http:\/\/127\.0\.0\.1:9 refused the connection \(ECONNREFUSED\)/);
  assert.doesNotMatch(output, /never-printed-pw/);
  const report = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as {
    run: { couldNotTest?: string };
    requirements: Array<{ id: string; verdict: string; reason?: string }>;
  };
  assert.match(report.run.couldNotTest ?? '', /ECONNREFUSED/);
  assert.deepEqual(
    [...new Set(report.requirements.map((requirement) => requirement.verdict))],
    ['NOT TESTED'],
  );
  // every requirement carries the cause, in every file: not "no scenario carries @X" (issue 27)
  const cause = /could not test: .*ECONNREFUSED/;
  for (const requirement of report.requirements)
    assert.match(requirement.reason ?? '', cause, `${requirement.id}'s reason`);
  assert.doesNotMatch(output, /no scenario carries/);
  assert.match(output, new RegExp(`NOT TESTED ${report.requirements[0].id}: could not test: `));
  const html = readFileSync(join(reports, 'conformance.html'), 'utf8');
  assert.doesNotMatch(html, /no scenario carries/);
  assert.equal(html.match(/could not test: /g)?.length, report.requirements.length);
  const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
  assert.doesNotMatch(junit, /no scenario carries/);
  assert.match(junit, /nothing was tested: .*ECONNREFUSED/);
  assert.equal(
    junit.match(/<skipped message="NOT TESTED: could not test: [^"]*ECONNREFUSED/g)?.length,
    report.requirements.filter((requirement) => requirement.verdict === 'NOT TESTED').length,
  );
  assert.doesNotMatch(html, /never-printed-pw/);

  const usage = await iotc(['run', '--no-such-option'], join(dir, 'state'));
  assert.equal(usage.code, 2, usage.output);
});
