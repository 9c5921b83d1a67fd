/**
 * `iotc faults --workers auto` (src/faults/auto-workers.ts): four workers when at least half of the
 * CPU time was idle over the sample, two when it was not; the sample reads the CPUs' counters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idleShare, workersFor } from '../../src/faults/auto-workers';

test('four workers on a machine idle at least half of the time, two on a busier one', () => {
  assert.equal(workersFor(0.95, 2).workers, 4);
  assert.equal(workersFor(0.5, 2).workers, 4);
  assert.equal(workersFor(0.49, 2).workers, 2);
  assert.equal(workersFor(0, 2).workers, 2);
  assert.match(workersFor(0.25, 2).why, /25 % of 2 cores idle/);
});

test('the idle share is sampled from the CPUs: between 0 and 1', async () => {
  const idle = await idleShare(300);
  assert.ok(idle >= 0 && idle <= 1, String(idle));
});
