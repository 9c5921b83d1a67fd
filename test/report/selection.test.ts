/**
 * A run of nothing is never green: `iotc run` with a selection that matches no scenario, or with a
 * malformed tag expression, exits 5 with a clear message and a junit.xml in error; a partial
 * selection reports the requirements it touched only partly as NOT TESTED with counts, never PASS;
 * a junit of a run that decided nothing errs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { iotc } from '../support/iotc';
import { junitXml } from '../../src/report/junit';
import { bareTagHint } from '../../src/engine/selection';
import type { ConformanceReport } from '../../src/report/conformance';

test('a selection that matches no scenario exits 5, and junit.xml says so', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-selection-'));
  const { code, output } = await iotc(
    ['run', '--tags', '@NO-SUCH-ID', '--reports', join(dir, 'reports')],
    join(dir, 'state'),
  );
  assert.equal(code, 5, output);
  assert.match(output, /the selection matches no scenario \(tags "@NO-SUCH-ID"/);
  const junit = readFileSync(join(dir, 'reports', 'junit.xml'), 'utf8');
  assert.match(junit, /errors="1"/);
  assert.match(junit, /<error message="the selection matches no scenario/);
});

test('a tag without its @ gets a hint with the expression it meant (issue 27)', {
  timeout: 60_000,
}, async () => {
  assert.equal(bareTagHint('@http-device-api'), '');
  assert.match(
    bareTagHint('(http-device-api or @AUTH-01) and not wip'),
    /did you mean --tags '\(@http-device-api or @AUTH-01\) and not @wip'\?/,
  );
  const dir = mkdtempSync(join(tmpdir(), 'iotc-selection-'));
  const { code, output } = await iotc(
    ['run', '--tags', 'http-device-api', '--reports', join(dir, 'reports')],
    join(dir, 'state'),
  );
  assert.equal(code, 5, output);
  assert.match(
    output,
    /matches no scenario .*; tags start with @: "http-device-api" is no tag \(did you mean --tags '@http-device-api'\?\)/,
  );
});

test('a malformed tag expression exits 5 with the parser message', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-selection-'));
  const { code, output } = await iotc(
    ['run', '--tags', '@AUTH-01 and', '--reports', join(dir, 'reports')],
    join(dir, 'state'),
  );
  assert.equal(code, 5, output);
  assert.match(output, /the tag expression "@AUTH-01 and" is malformed: .*syntax error/);
});

test('a run restricted by tags never prints PASS for a requirement it ran only partly', {
  timeout: 120_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-selection-'));
  // the scenario tagged AUTH-02 and AUTH-04 (the current user for a Bearer JWT) alone: each has
  // another scenario
  const { code, output } = await iotc(
    ['run', '--tags', '@AUTH-02 and @AUTH-04', '--reports', join(dir, 'reports')],
    join(dir, 'state'),
  );
  // it decided no requirement (overall NOT TESTED): exit 3, never the green 0
  // (src/report/exit-code.ts)
  assert.equal(code, 3, output);
  const report = JSON.parse(
    readFileSync(join(dir, 'reports', 'conformance.json'), 'utf8'),
  ) as ConformanceReport;
  const byId = new Map(report.requirements.map((requirement) => [requirement.id, requirement]));
  for (const id of ['AUTH-02', 'AUTH-04']) {
    assert.equal(byId.get(id)!.verdict, 'NOT TESTED', id);
    assert.match(byId.get(id)!.reason!, /^partial: 1 of \d+ scenarios ran/, id);
  }
  assert.match(output, /NOT TESTED AUTH-02: partial: 1 of 2 scenarios ran/);
  assert.doesNotMatch(
    readFileSync(join(dir, 'reports', 'junit.xml'), 'utf8'),
    /<system-out>PASS/,
    'junit shows no requirement passed',
  );
});

test('junit.xml of a run that decided no requirement has a test case in error', () => {
  const report = {
    target: { name: 't' },
    run: { durationMs: 0, startedAt: 'now', tagExpression: '@x' },
    requirements: [
      {
        id: 'A-01',
        interface: 'admin-auth',
        statement: 's',
        testable: true,
        verdict: 'NOT TESTED',
        reason: 'partial: 0 of 2 scenarios ran',
        scenarios: [],
      },
    ],
  } as unknown as ConformanceReport; // only the members junitXml reads
  const junit = junitXml(report);
  assert.match(junit, /errors="1"/);
  assert.match(junit, /no requirement was decided/);
  assert.match(junit, /skipped message="NOT TESTED: partial: 0 of 2 scenarios ran"/);
});
