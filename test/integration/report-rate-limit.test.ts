/**
 * `iotc load report-rate-limit` finds the limiter the embedded analytics was started with, from
 * outside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf, spawnIotc } from '../support/children';
import type { LoadReport } from '../../load/contract';

test('the probe finds pool 3 and queue 2 when the analytics is started with those variables', {
  timeout: 900_000, // a hang guard only: a loaded 2-core machine can take minutes
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-rate-limit-'));
  const child = spawnIotc(['load', 'report-rate-limit', '--reports', reports], {
    env: {
      ...process.env,
      SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE: '3',
      SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY: '2',
      IOTC_STATE_DIR: join(reports, 'state'),
    },
  });
  const { code, output } = await exitOf(child);
  assert.equal(code, 0, output);
  const report = JSON.parse(
    readFileSync(join(reports, 'load', 'report-rate-limit.json'), 'utf8'),
  ) as LoadReport;
  assert.deepEqual(report.details.observed, { poolSize: 3, queueCapacity: 2 });
  assert.deepEqual(
    report.thresholds.map((threshold) => [threshold.source, threshold.verdict]),
    [
      ['pool_size_difference==0', 'PASS'],
      ['queue_capacity_difference==0', 'PASS'],
      ['unexpected==0', 'PASS'],
    ],
  );
  assert.equal(report.verdict, 'PASS');
  const burst = report.details.burst as {
    rejected: number;
    rejectP50Ms: number;
    acceptedMinMs: number;
  };
  assert.ok(burst.rejected > 0, 'the burst met 429s');
  // an ordering, not a time: the typical reject is answered before the first report of the burst is
  // done
  assert.ok(
    burst.rejectP50Ms < burst.acceptedMinMs,
    'rejects come back faster than any served report',
  );
  // every answer is in the totals: 200s and 429s and nothing else
  assert.equal(report.totals.succeeded + (report.metrics.rejected ?? 0), report.totals.sent);
  assert.ok(
    existsSync(join(reports, 'load', 'report-rate-limit.html')),
    'the HTML page is written',
  );
});
