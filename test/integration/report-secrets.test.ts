/**
 * No secret in a run's reports (issue 26 item 6): a run of the claiming and provisioning features,
 * whose evidence carries claim secret keys and provisioning secrets in request bodies, MQTT
 * payloads and answers, writes none of them. The feature source itself (step text, doc strings) is
 * public and is what cucumber.json / cucumber.html reproduce; everything else (conformance.json and
 * its page, junit.xml, the attachments of cucumber.json) is searched for every secret the features
 * use. Also: no false redaction of ordinary words (`/api/tenant/...` stays).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf, spawnIotc } from '../support/children';
import { looksLikeSecret } from '../../src/report/redact';
import { SECRET_FIELD_NAMES } from '../../src/report/secret-fields';
import {
  consoleRunOutputOf,
  credentialLeaks,
  reportTexts,
  runOutputOf,
} from '../support/report-credentials';
import { inconclusiveLines } from '../support/remote-run';
import { HARNESS_STARVED } from '../../steps/support/timing';

const FEATURES = [
  'features/http-device-api/claim.feature',
  'features/http-device-api/provision.feature',
  'features/mqtt-device-api/claim-provision-firmware.feature',
  'features/mqtt-gateway-api/claim.feature',
];

/**
 * Every secret key and provisioning secret the features above use (strong enough to be searched
 * for).
 */
function secretsOf(root: string): string[] {
  const found = new Set<string>();
  for (const feature of FEATURES) {
    const text = readFileSync(join(root, feature), 'utf8');
    for (const pattern of [
      /secret key "([^"]+)"/g,
      /and secret "([^"]+)"/g,
      /"(?:secretKey|provisionDeviceSecret)": "([^"<]+)"/g,
    ])
      for (const match of text.matchAll(pattern))
        if (looksLikeSecret(match[1])) found.add(match[1]); // "wrong", "brief": blanked by field name only
  }
  return [...found];
}

test('the reports of a claiming and provisioning run show none of the secrets it used', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const root = join(__dirname, '..', '..');
  const secrets = secretsOf(root);
  assert.ok(secrets.length >= 6, `the features use secrets: ${secrets.join(', ')}`);
  const reports = join(mkdtempSync(join(tmpdir(), 'iotc-secrets-')), 'reports');
  const { code, output } = await exitOf(
    spawnIotc(['run', '--parallel', '1', '--reports', reports, ...FEATURES]),
  );
  // a requirement the starved harness could not decide (exit 4, every INCONCLUSIVE naming the
  // stall: six CPU burners) still wrote every report this test reads
  const undecided = inconclusiveLines(output);
  assert.ok(
    code === 0 ||
      (code === 4 &&
        undecided.length > 0 &&
        undecided.every((line) => line.includes(HARNESS_STARVED))),
    output.slice(-3000),
  );
  const files: Array<[string, string]> = [
    ['conformance.json', readFileSync(join(reports, 'conformance.json'), 'utf8')],
    ['conformance.html', readFileSync(join(reports, 'conformance.html'), 'utf8')],
    ['junit.xml', readFileSync(join(reports, 'junit.xml'), 'utf8')],
    ['cucumber.json (the run)', runOutputOf(readFileSync(join(reports, 'cucumber.json'), 'utf8'))],
    // a retried scenario's steps echoed by cucumber's summary are the feature's text (a busy machine)
    ['the console', consoleRunOutputOf(output)],
  ];
  const conformance = files[0][1];
  // positive control: the evidence is there, with its secret fields blanked
  assert.match(conformance, /secretKey\\+":\s*\\+"<redacted>/, 'claim evidence recorded');
  assert.match(conformance, /provisionDeviceSecret\\+":\s*\\+"<redacted>/, 'provisioning evidence');
  for (const [name, text] of files)
    for (const secret of secrets) {
      const at = text.indexOf(secret);
      assert.equal(
        at,
        -1,
        `${name} shows the secret ${secret}: ...${text.slice(Math.max(0, at - 80), at + 40)}...`,
      );
    }
  // every secret-named member, whatever its value (ordinary words included), is blanked by its name
  const field = new RegExp(
    `\\\\*"(?:${SECRET_FIELD_NAMES.join('|')})\\\\*":\\s*\\\\*"(?!<|\\\\*")`,
  ); // <redacted> may be cut short (<re…)
  for (const [name, text] of files) {
    const at = text.search(field);
    assert.equal(at, -1, `${name} shows a secret field: ${text.slice(at, at + 80)}`);
  }
  // no credential of any shape (a JWT, a device token in a path, an API key), whatever the run made
  assert.deepEqual(credentialLeaks(files), []);
  // the demo users' passwords are ordinary words: never blanked where the word stands in a path or
  // a name
  assert.doesNotMatch(
    conformance,
    /\/api\/<redacted>\//,
    'a path was blanked as if it were a password',
  );
});

test('the credential search finds each shape it looks for (its positive control)', () => {
  const jwt = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from('{"sub":"tenant@thingsboard.org"}').toString('base64url')}.c2lnbmF0dXJlc2lnbmF0dXJl`;
  const leaks = credentialLeaks([
    ['a.json', `{"sent":"x-authorization: Bearer ${jwt}"}`],
    ['b.html', '<code>POST /api/v1/Zq81mB0xTy7Lk2Pa9sDf/telemetry &#8594; 200</code>'],
    ['c.xml', 'x-authorization: ApiKey tb_0123456789abcdef'],
    ['d.json', '{"password": "tenant", "secretKey": "<redacted>"}'],
  ]);
  assert.equal(leaks.length, 4, leaks.join('\n'));
  // and nothing in what a report legitimately shows
  assert.deepEqual(
    credentialLeaks([
      [
        'e.html',
        'GET /api/v1/&#60;redacted&#62;/attributes · x-authorization: ApiKey &#60;redacted&#62; · "token": "<redacted>"',
      ],
    ]),
    [],
  );
});

/**
 * A full run (every feature, the embedded reference): no credential in any of its report files nor
 * on its console. Runs with IOTC_FULL_RUN_TESTS=1 only: a full run takes 3 to 6 minutes on a loaded
 * 2-core machine.
 */
test('the reports of a full run show no credential', {
  timeout: 1_800_000,
  skip: process.env.IOTC_FULL_RUN_TESTS === '1' ? false : 'set IOTC_FULL_RUN_TESTS=1 (a full run)',
}, async () => {
  const reports = join(mkdtempSync(join(tmpdir(), 'iotc-secrets-full-')), 'reports');
  const { output } = await exitOf(spawnIotc(['run', '--reports', reports]));
  const files = reportTexts(reports);
  assert.ok(files.length >= 4, `the run wrote its reports:\n${output.slice(-3000)}`);
  // positive control: the evidence is there, with its credentials blanked
  assert.match(files[0]![1], /\/api\/v1\/<redacted>\//, 'device API evidence recorded');
  assert.deepEqual(credentialLeaks([...files, ['the console', output]]), []);
});
