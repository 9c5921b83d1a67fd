/**
 * The deviation machinery, tested on the reference in quirks mode (the platform reproduces ThingsBoard 4.3's
 * declared deviations, the REST connector ThingsBoard IoT Gateway 3.8.3's): with the matching profile the declared
 * requirements are DEVIATION and everything else PASS; with a profile that declares nothing, the same target FAILs
 * exactly those requirements.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_REQUIRED_MEMBERS } from '../../src/target/gateway-rest';
import { iotc, ROOT } from '../support/iotc';

const DECLARED = [
  'GW-ATTRREQ-01',
  'GW-ERR-03',
  'GW-ERR-04',
  'GW-TEL-03',
  'HTTP-ERR-01',
  'HTTP-PROV-05',
  'KV-02',
];
// every declaration of the real gateway's profile: the quirks mode must reproduce each one
const CONNECTOR_DECLARED = Object.keys(
  (
    JSON.parse(
      readFileSync(join(ROOT, 'src', 'target', 'profiles', 'tb-gateway-3.8.json'), 'utf8'),
    ) as { deviations: Record<string, unknown> }
  ).deviations,
).sort();
/**
 * Declared for members 3.8.3 has no default for: the configuration it runs names them (gateway-rest.ts), so the
 * specification's scenarios pass on it and only the declaration's own scenario shows the difference; and RC-SEC-04,
 * whose placeholders an anonymous default mapping admits.
 */
const NOT_VISIBLE_WITHOUT_DECLARATION = [
  ...new Set([...GATEWAY_REQUIRED_MEMBERS.map((member) => member.requirement), 'RC-SEC-04']),
];
const DEVICE_API_TAGS = '@http-device-api or @key-value-data or @mqtt-gateway-api';

interface Report {
  requirements: Array<{
    id: string;
    interface: string;
    testable: boolean;
    verdict: string;
    reason?: string;
  }>;
}

async function run(
  target: string,
  dir: string,
  features: string[] = [],
  tags = DEVICE_API_TAGS,
): Promise<{ code: number | null; report: Report; output: string }> {
  const reports = join(dir, 'reports');
  const { code, output } = await iotc(
    ['run', '--target', target, '--tags', tags, '--reports', reports, ...features],
    join(dir, 'state'),
  );
  return {
    code,
    report: JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as Report,
    output,
  };
}

const deviceApi = (report: Report) =>
  report.requirements.filter(
    (requirement) =>
      requirement.testable &&
      ['http-device-api', 'key-value-data', 'mqtt-gateway-api'].includes(requirement.interface),
  );
const restConnector = (report: Report) =>
  report.requirements.filter(
    (requirement) => requirement.testable && requirement.interface === 'rest-connector',
  );

/** A built-in profile without its declared deviations, written into dir. */
function withoutDeviations(profileName: string, dir: string): string {
  const profile = JSON.parse(
    readFileSync(join(ROOT, 'src', 'target', 'profiles', `${profileName}.json`), 'utf8'),
  ) as Record<string, unknown>;
  delete profile.deviationsFrom;
  const path = join(dir, 'wrong-profile.json');
  writeFileSync(
    path,
    JSON.stringify({ ...profile, name: `${profileName}-without-deviations`, deviations: {} }),
  );
  return path;
}

test('quirks mode with the matching profile: DEVIATION for exactly the declared requirements, PASS elsewhere', {
  timeout: 900_000, // a hang guard only: 87 s here when quiet, several times that when loaded
}, async () => {
  const { code, report, output } = await run(
    'embedded-thingsboard-4.3',
    mkdtempSync(join(tmpdir(), 'iotc-deviations-')),
  );
  assert.equal(code, 0, output.slice(-3000));
  const verdicts = deviceApi(report);
  assert.deepEqual(
    verdicts
      .filter((requirement) => requirement.verdict === 'DEVIATION')
      .map((requirement) => requirement.id)
      .sort(),
    DECLARED,
  );
  // GW-LIM-01 needs the tenant-limits capability, which the quirks profile (like ThingsBoard's) does not grant; its
  // scenario also carries GW-ERR-01 and GW-RULE-04, which are then NOT TESTED with counts: some of their scenarios
  // were skipped, and a requirement is PASS only when all of them ran
  const partlySkipped = ['GW-ERR-01', 'GW-RULE-04'];
  for (const id of partlySkipped)
    assert.match(
      verdicts.find((requirement) => requirement.id === id)?.reason ?? '',
      /^\d+ of \d+ scenarios ran; the others were skipped$/,
      id,
    );
  assert.deepEqual(
    verdicts
      .filter(
        (requirement) =>
          !['PASS', 'DEVIATION'].includes(requirement.verdict) &&
          !(requirement.id === 'GW-LIM-01' && requirement.verdict === 'NOT APPLICABLE') &&
          !(partlySkipped.includes(requirement.id) && requirement.verdict === 'NOT TESTED'),
      )
      .map((requirement) => `${requirement.id}: ${requirement.verdict}`),
    [],
  );
});

test('quirks mode with a profile that declares no deviation: the deviating requirements FAIL', {
  timeout: 900_000, // a hang guard only: 87 s here when quiet, several times that when loaded
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-deviations-'));
  const path = withoutDeviations('embedded-thingsboard-4.3', dir);
  // the features that carry the deviating requirements (failing read-backs wait out eventuallyMs, so no more)
  const features = [
    ...['errors', 'key-value-data', 'provision', 'deviations'].map((name) =>
      join(ROOT, 'features', 'http-device-api', `${name}.feature`),
    ),
    ...['attributes', 'telemetry', 'errors', 'payload-properties', 'deviations'].map((name) =>
      join(ROOT, 'features', 'mqtt-gateway-api', `${name}.feature`),
    ),
  ];
  const { code, report } = await run(path, dir, features);
  assert.equal(code, 1, 'the run fails');
  const failed = deviceApi(report)
    .filter((requirement) => requirement.verdict === 'FAIL')
    .map((requirement) => requirement.id);
  for (const id of DECLARED)
    assert.ok(failed.includes(id), `${id} is FAIL (failed: ${failed.join(', ')})`);
  assert.ok(
    !deviceApi(report).some((requirement) => requirement.verdict === 'DEVIATION'),
    'no DEVIATION without a declaration',
  );
});

test('connector quirks mode with the matching profile: DEVIATION for exactly the declared RC requirements, PASS for every other', {
  timeout: 900_000, // a hang guard only: 87 s here when quiet, several times that when loaded
}, async () => {
  const { code, report, output } = await run(
    'embedded-tb-gateway-3.8',
    mkdtempSync(join(tmpdir(), 'iotc-deviations-')),
    [],
    '@rest-connector',
  );
  assert.equal(code, 0, output.slice(-3000));
  const verdicts = restConnector(report);
  assert.deepEqual(
    verdicts
      .filter((requirement) => requirement.verdict === 'DEVIATION')
      .map((requirement) => requirement.id)
      .sort(),
    CONNECTOR_DECLARED,
  );
  assert.deepEqual(
    verdicts
      .filter((requirement) => !['PASS', 'DEVIATION'].includes(requirement.verdict))
      .map((requirement) => `${requirement.id}: ${requirement.verdict}`),
    [],
  );
});

test('connector quirks mode with a profile that declares no deviation: the deviating RC requirements FAIL', {
  timeout: 900_000, // a hang guard only: 87 s here when quiet, several times that when loaded
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-deviations-'));
  const path = withoutDeviations('embedded-tb-gateway-3.8', dir);
  const { code, report } = await run(path, dir, [], '@rest-connector');
  assert.equal(code, 1, 'the run fails');
  const failed = restConnector(report)
    .filter((requirement) => requirement.verdict === 'FAIL')
    .map((requirement) => requirement.id);
  assert.deepEqual(
    failed.filter((id) => !CONNECTOR_DECLARED.includes(id)),
    [],
    'only requirements the quirks mode deviates from FAIL (one difference fails its own requirement)',
  );
  assert.deepEqual(
    CONNECTOR_DECLARED.filter(
      (id) => !failed.includes(id) && !NOT_VISIBLE_WITHOUT_DECLARATION.includes(id),
    ),
    [],
    'every declared difference the specification scenarios can see FAILs without its declaration',
  );
  assert.ok(
    !restConnector(report).some((requirement) => requirement.verdict === 'DEVIATION'),
    'no DEVIATION without a declaration',
  );
});
