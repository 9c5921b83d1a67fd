/**
 * A parallel run's workers share their measured delays (steps/support/timing.ts DelayRecord with a
 * shared folder): a kind a worker has not measured is taken from the others, its own measurement
 * decides for it, and a folder that is gone or a file that is not JSON is no failure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DelayRecord, quietWindowMs } from '../../steps/support/timing';

const profile = { eventuallyMs: 8000, pollIntervalMs: 50 };

test("a worker with no measurement of a kind takes the largest of the others' measurements", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-shared-delays-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = new DelayRecord(dir, 'first');
  const second = new DelayRecord(dir, 'second');
  const fresh = new DelayRecord(dir, 'fresh');
  assert.equal(fresh.max('device-creation'), undefined);
  first.record('device-creation', 120);
  second.record('device-creation', 300);
  second.record('device-creation', 200); // not larger: the shared figure stays 300
  assert.equal(fresh.max('device-creation'), 300);
  // its own measurement decides for it, smaller or not
  fresh.record('device-creation', 90);
  assert.equal(fresh.max('device-creation'), 90);
  // a kind nobody measured
  assert.equal(fresh.max('claim-registration'), undefined);
  // the summary in the report is the worker's own
  assert.deepEqual(new DelayRecord(dir, 'other').summary(), {});
});

test('a quiet window of a fresh worker comes from what the run measured, not from a share of eventuallyMs', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-shared-delays-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  new DelayRecord(dir, 'first').record('device-creation', 100);
  const fresh = new DelayRecord(dir, 'fresh');
  assert.equal(quietWindowMs('device-creation', profile, undefined, fresh), 300);
  assert.equal(quietWindowMs('device-creation', profile, undefined, new DelayRecord()), 2000);
});

test('a shared folder that is gone or holds a file that is not JSON shares nothing and fails nothing', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-shared-delays-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'broken.json'), '{"device-creation": 4');
  new DelayRecord(dir, 'first').record('device-creation', 150);
  assert.equal(new DelayRecord(dir, 'fresh').max('device-creation'), 150);
  const gone = new DelayRecord(join(dir, 'gone'), 'worker');
  gone.record('device-creation', 10); // the write fails silently
  assert.equal(new DelayRecord(join(dir, 'gone'), 'other').max('device-creation'), undefined);
});
