/** `iotc load report-rate-limit` finds the limiter the embedded analytics was started with, from outside. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const ROOT = join(__dirname, '..', '..');

test('the probe finds pool 3 and queue 2 when the analytics is started with those variables', {
  timeout: 120_000,
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-rate-limit-'));
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'iotc.js'), 'load', 'report-rate-limit', '--reports', reports],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE: '3',
        SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY: '2',
        IOTC_STATE_DIR: join(reports, 'state'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, output);
  const report = JSON.parse(
    readFileSync(join(reports, 'load', 'report-rate-limit.json'), 'utf8'),
  ) as {
    observed: { poolSize: number; queueCapacity: number };
    verdict: string;
    burst: { rejected: number; rejectMaxMs: number; acceptedMinMs: number };
  };
  assert.deepEqual(report.observed, { poolSize: 3, queueCapacity: 2 });
  assert.equal(report.verdict, 'MATCH');
  assert.ok(report.burst.rejected > 0, 'the burst met 429s');
  assert.ok(
    report.burst.rejectMaxMs < report.burst.acceptedMinMs,
    'rejects come back faster than any served report',
  );
  assert.ok(
    existsSync(join(reports, 'load', 'report-rate-limit.html')),
    'the HTML page is written',
  );
});
