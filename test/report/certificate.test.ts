/**
 * What makes a report a certificate: the overall verdict (never CONFORMANT for a partial or failing
 * run), the provenance (commit, catalogue and specification hashes, Node and OS, the selection), a
 * SHA-256 digest beside conformance.json, an Ed25519 signature that `verify` accepts for the file
 * as written and refuses after any edit, a badge, and no local absolute paths.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { buildConformanceReport, loadCatalogue } from '../../src/report/conformance';
import { overallVerdict } from '../../src/report/overall';
import { provenance, sha256 } from '../../src/report/provenance';
import { Redactor } from '../../src/report/redact';
import { generateSigningKey, signReport, verifyReport } from '../../src/report/signature';
import { requirementVerdicts, type ScenarioResult } from '../../src/report/verdicts';
import { scrubLocalPaths, writeConformanceFiles } from '../../src/report/write';

const ROOT = resolve(__dirname, '..', '..');

function reportWith(scenarios: ScenarioResult[], tags = '') {
  return buildConformanceReport({
    version: '0.0.0-test',
    target: { name: 'unit', httpUrl: 'embedded', adminUrl: 'embedded', capabilities: [] },
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    tagExpression: tags,
    scenarios,
    requirements: requirementVerdicts(loadCatalogue(), scenarios, {
      capabilities: new Set(),
      deviations: new Set(),
    }),
    redactor: new Redactor(),
    provenance: provenance({ version: '0.0.0-test', tags, paths: [] }),
  });
}

test('the overall verdict: nothing run is NOT TESTED, a partial pass is INCOMPLETE, a failure NOT CONFORMANT', () => {
  assert.equal(overallVerdict(reportWith([])), 'NOT TESTED');
  const passed: ScenarioResult = {
    name: 'telemetry',
    location: 'features/http-device-api/telemetry.feature:3',
    tags: ['@HTTP-TEL-01'],
    status: 'PASSED',
    evidence: [],
    exchanges: [],
  } as unknown as ScenarioResult;
  assert.equal(overallVerdict(reportWith([passed], '@HTTP-TEL-01')), 'INCOMPLETE');
  const failed = { ...passed, status: 'FAILED', error: 'expected 200' } as ScenarioResult;
  assert.equal(overallVerdict(reportWith([failed], '@HTTP-TEL-01')), 'NOT CONFORMANT');
});

test('provenance: catalogue hash, specification, environment and selection', () => {
  const report = reportWith([], '@HTTP-TEL-01');
  const p = report.provenance!;
  assert.equal(
    p.catalogue.sha256,
    sha256(readFileSync(join(ROOT, 'features', 'requirements.json'), 'utf8')),
  );
  assert.match(p.specification.sha256 ?? '', /^[0-9a-f]{64}$/);
  assert.equal(p.environment.node, process.version);
  assert.deepEqual(p.selection, { tags: '@HTTP-TEL-01', paths: [], full: false });
  assert.match(p.iotc.commit ?? 'no git here', /^([0-9a-f]{40}|no git here)$/);
});

test('digest, signature and verify: the file as written verifies, an edited one does not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-certificate-'));
  writeConformanceFiles(reportWith([]), dir);
  assert.deepEqual(verifyReport(dir), { digest: 'match', signature: 'not checked' });
  const keys = generateSigningKey(join(dir, 'signer'));
  signReport(dir, keys.privateKey);
  assert.deepEqual(verifyReport(dir, keys.publicKey), { digest: 'match', signature: 'valid' });
  const other = generateSigningKey(join(dir, 'someone-else'));
  assert.equal(verifyReport(dir, other.publicKey).signature, 'invalid');

  const file = join(dir, 'conformance.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"FAIL": 0', '"FAIL": 1'));
  assert.deepEqual(verifyReport(dir, keys.publicKey), { digest: 'mismatch', signature: 'invalid' });
  assert.match(readFileSync(join(dir, 'badge.svg'), 'utf8'), /iotc conformance: NOT TESTED/);
});

test('no local absolute paths: the project folder becomes relative', () => {
  assert.equal(
    scrubLocalPaths(`Error at ${ROOT}/steps/hooks.ts:17 in ${ROOT}`),
    'Error at steps/hooks.ts:17 in .',
  );
});
