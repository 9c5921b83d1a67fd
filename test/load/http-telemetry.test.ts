/**
 * The http-telemetry profile on the load contract against the embedded reference: a short bounded
 * run accounts for every request exactly (sent = succeeded = stored, nothing lost or duplicated),
 * its per-second series adds up to the totals, the reports are written and the devices deleted; a
 * failing threshold gives FAIL and exit code 1 through the CLI; malformed options and thresholds
 * are refused before anything is created.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTarget } from '../../src/target';
import { AdminClient } from '../../src/admin-client';
import { LoadOptionsError, runLoadProfile, type LoadReport } from '../../load/contract';
import { errorKindOf } from '../../load/error-kinds';
import { httpTelemetryProfile } from '../../load/http-telemetry';
import { ThresholdSyntaxError } from '../../load/thresholds';
import { iotc } from '../support/iotc';
import { exitOf, spawnIotc } from '../support/children';
import { countsOnly } from '../support/load';

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

test('a short run accounts for every request exactly, writes its reports and deletes its devices', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-http-load-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  const progress: string[] = [];
  try {
    const { report, exitCode } = await runLoadProfile(
      httpTelemetryProfile,
      { devices: 3, rate: 60, durationS: 2 },
      {
        target,
        reportsDir: reports,
        log: () => {},
        progress: (line) => progress.push(line),
        ...countsOnly(httpTelemetryProfile),
      },
    );
    assert.equal(report.verdict, 'PASS');
    assert.equal(exitCode, 0);
    const { sent, succeeded, errorCount } = report.totals;
    assert.ok(sent >= 3, `requests were sent (${sent})`);
    assert.deepEqual(
      {
        succeeded,
        errorCount,
        stored: report.metrics.stored,
        lost: report.metrics.lost,
        duplicated: report.metrics.duplicated,
        refusedStored: report.metrics.refused_stored,
        leftBehind: report.metrics.left_behind,
        statuses: report.details.statuses,
        latencyCount: report.latency?.count,
      },
      {
        succeeded: sent,
        errorCount: 0,
        stored: sent,
        lost: 0,
        duplicated: 0,
        refusedStored: 0,
        leftBehind: 0,
        statuses: { 200: sent },
        latencyCount: sent,
      },
    );
    assert.deepEqual(
      report.thresholds.map((threshold) => [threshold.source, threshold.verdict]),
      [
        ['lost==0', 'PASS'],
        ['duplicated==0', 'PASS'],
        ['refused_stored==0', 'PASS'],
        ['left_behind==0', 'PASS'],
      ],
    );
    // the per-second series adds up to the totals, in order
    assert.ok(report.series.length >= 2, `one sample per second (${report.series.length})`);
    assert.equal(sum(report.series.map((sample) => sample.sent)), sent);
    assert.equal(sum(report.series.map((sample) => sample.succeeded)), succeeded);
    for (let i = 1; i < report.series.length; i++)
      assert.ok(report.series[i].elapsedMs >= report.series[i - 1].elapsedMs, 'samples in order');
    const cleanup = report.details.cleanup as { deleted: number; failed: string[] };
    assert.deepEqual(cleanup, { deleted: 3, failed: [] });

    const written = JSON.parse(
      readFileSync(join(reports, 'load', 'http-telemetry.json'), 'utf8'),
    ) as LoadReport;
    assert.equal(written.verdict, 'PASS');
    assert.equal(written.series.length, report.series.length);
    const html = readFileSync(join(reports, 'load', 'http-telemetry.html'), 'utf8');
    assert.ok(
      html.includes('<svg') && html.includes('lost==0'),
      'the page has its charts and thresholds',
    );

    const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin);
    try {
      const left = await admin.listDevices(0, `${target.namePrefix}load-${report.runId}`, 100);
      assert.deepEqual(
        left.data.map((device) => device.name),
        [],
        'no device of the run is left',
      );
    } finally {
      await admin.close();
    }
  } finally {
    await target.close();
  }
});

test('through the CLI: progress on stderr, a failing threshold gives FAIL, exit code 1 and the report says which', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-http-load-cli-'));
  // 6 s of posting: longer than the 5 s between progress lines
  const args = ['load', 'http-telemetry', '-n', '2', '--rate', '20', '--duration', '6'];
  const child = spawnIotc([...args, '--threshold', 'sent<1', '-r', dir], {
    env: { ...process.env, IOTC_STATE_DIR: join(dir, 'state') },
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  const { code } = await exitOf(child);
  assert.equal(code, 1, stdout + stderr);
  const report = JSON.parse(
    readFileSync(join(dir, 'load', 'http-telemetry.json'), 'utf8'),
  ) as LoadReport;
  assert.equal(report.verdict, 'FAIL');
  const failing = report.thresholds.find((threshold) => threshold.source === 'sent<1');
  assert.equal(failing?.verdict, 'FAIL');
  assert.equal(failing?.actual, report.totals.sent);
  assert.equal(report.metrics.lost, 0, 'the run itself lost nothing: only the threshold failed');
  assert.match(stdout, /FAIL\s+sent<1/);
  assert.match(
    stdout,
    new RegExp(`\\[total, [\\d.]+ s sending\\]  sent ${report.totals.sent}  acknowledged`),
  );
  const progress = stderr
    .split('\n')
    .filter((line) => /^\[\d+\.\d s\] {2}sent \d+ {2}acknowledged \d+ {2}rate /.test(line));
  assert.ok(progress.length >= 1, `a progress line on stderr:\n${stderr}`);
  assert.ok(!/^\[\d+\.\d s\]/m.test(stdout), 'progress stays off stdout');
});

test('malformed options and thresholds are refused before a target is opened', async () => {
  await assert.rejects(
    runLoadProfile(
      httpTelemetryProfile,
      { devices: 0, rate: 10, durationS: 1, extra: true },
      {
        target: 'no-such-profile',
      },
    ),
    (error: unknown) =>
      error instanceof LoadOptionsError &&
      error.code === 'IOTC_LOAD_OPTIONS' &&
      error.message.includes('/devices must be >= 1') &&
      error.message.includes('unknown member "extra"'),
  );
  await assert.rejects(
    runLoadProfile(
      httpTelemetryProfile,
      { devices: 1, rate: 10, durationS: 1 },
      {
        target: 'no-such-profile',
        thresholds: ['p99 < soon'],
      },
    ),
    ThresholdSyntaxError,
  );
  const dir = mkdtempSync(join(tmpdir(), 'iotc-http-load-bad-'));
  const { code, output } = await iotc(
    ['load', 'http-telemetry', '--threshold', 'lost=0', '-r', dir],
    join(dir, 'state'),
  );
  assert.equal(code, 2);
  assert.match(output, /IOTC_THRESHOLD_SYNTAX/);
  assert.ok(!existsSync(join(dir, 'load')), 'nothing was written');
});

test('an error answer is counted by its status and the start of its body', () => {
  assert.equal(
    errorKindOf(429, '{"status":429,\n "message":"Too many requests"}'),
    'HTTP 429 {"status":429, "message":"Too many requests"}',
  );
  assert.equal(errorKindOf(500, ''), 'HTTP 500');
  assert.equal(errorKindOf(413, 'x'.repeat(200)), `HTTP 413 ${'x'.repeat(80)}…`);
});

test('a run stopped after its setup: stored counts are NOT MEASURED, the verdict FAIL, the devices deleted', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-http-load-stop-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  const abort = new AbortController();
  const lines: string[] = [];
  try {
    const { report, exitCode } = await runLoadProfile(
      httpTelemetryProfile,
      { devices: 2, rate: 10, durationS: 600 },
      {
        target,
        signal: abort.signal,
        // stopped as soon as the devices exist, as a Ctrl-C would
        log: (line) => {
          lines.push(line);
          if (line.endsWith('devices created')) abort.abort();
        },
        progress: () => {},
      },
    );
    assert.equal(report.interrupted, true);
    assert.equal(report.verdict, 'FAIL');
    // never a bare FAIL: the last line names why (issue 27)
    assert.match(lines.at(-1)!, /^FAIL \(interrupted: the run was stopped before its end/);
    assert.equal(exitCode, 1);
    assert.deepEqual(
      report.thresholds
        .filter((threshold) => threshold.metric !== 'schedule_kept')
        .map((threshold) => [threshold.source, threshold.verdict]),
      [
        ['lost==0', 'NOT MEASURED'],
        ['duplicated==0', 'NOT MEASURED'],
        ['refused_stored==0', 'NOT MEASURED'],
        ['left_behind==0', 'PASS'],
      ],
    );
    assert.equal(report.metrics.stored, null);
    assert.deepEqual(report.details.cleanup, { deleted: 2, failed: [] });
  } finally {
    await target.close();
  }
});
