/**
 * The mqtt-gateway load profile against the embedded target: a short QoS 1 run stops by itself, every message sent
 * is stored once, the JSON report says so, and nothing with the run's prefix is left on the platform.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTarget } from '../../src/target';
import { AdminClient } from '../../src/admin-client';
import { runMqttGatewayLoad, tallySeqs, type MqttGatewayReport } from '../../load/mqtt-gateway';

test('a short QoS 1 run stores every message once, writes its report and deletes its fleet', {
  timeout: 900_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-mqtt-load-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  try {
    const durationS = 1.5;
    const { report, exitCode } = await runMqttGatewayLoad({
      target,
      gateways: 3,
      devicesPerGateway: 4,
      // a rate a machine busy with other work still keeps (a run that falls more than 10 % behind its schedule is
      // rightly FAIL: it measured a lighter load than asked), and enough messages to count
      rate: 40,
      rateOf: 'gateway',
      qos: 1,
      protocolVersion: 5,
      durationS,
      payloadBytes: 200,
      reportsDir: reports,
      log: () => {},
    });
    // it stopped by itself: runMqttGatewayLoad resolved, without the test ending it
    assert.equal(
      exitCode,
      0,
      JSON.stringify({ verdict: report.verdict, failures: report.failures }),
    );
    assert.equal(report.verdict, 'PASS');
    assert.ok(report.sent >= 100, `messages were sent (${report.sent})`);
    assert.equal(report.acknowledged, report.sent);
    assert.deepEqual(
      {
        devicesRead: report.readback?.devicesRead,
        sent: report.readback?.sent,
        stored: report.readback?.stored,
        lost: report.readback?.lost,
        duplicated: report.readback?.duplicated,
      },
      { devicesRead: 12, sent: report.sent, stored: report.sent, lost: 0, duplicated: 0 },
    );
    assert.equal(report.settings.payloadBytes, 200);
    assert.ok(
      report.latency.count === report.sent &&
        report.latency.p50 > 0 &&
        report.latency.p50 <= report.latency.p99,
      'latency percentiles from every publish',
    );
    assert.equal(
      report.cleanup?.deleted,
      3 + 12,
      'the gateways and every sub-device they created were deleted',
    );

    const written = JSON.parse(
      readFileSync(join(reports, 'load', 'mqtt-gateway.json'), 'utf8'),
    ) as MqttGatewayReport;
    assert.equal(written.verdict, 'PASS');
    assert.equal(written.readback?.lost, 0);
    assert.equal(written.readback?.duplicated, 0);
    assert.ok(existsSync(join(reports, 'load', 'mqtt-gateway.html')), 'the HTML page is written');

    const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin);
    try {
      const left = await admin.listDevices(0, target.namePrefix, 1000);
      assert.deepEqual(
        left.data.map((device) => device.name),
        [],
        'no entity with the prefix is left',
      );
    } finally {
      await admin.close();
    }
  } finally {
    await target.close();
  }
});

test('the readback counts lost, duplicated and acknowledged-but-not-stored messages', () => {
  // sent 1..6; 3 never stored (acknowledged), 5 never stored (its publish failed), 2 stored twice, 99 is not ours
  assert.deepEqual(tallySeqs(6, [5], [1, 2, 2, 4, 6, 99]), {
    sent: 6,
    stored: 4,
    lost: 2,
    duplicated: 1,
    acknowledgedNotStored: 1,
    beyondRetention: 0,
  });
  assert.deepEqual(tallySeqs(3, [], [3, 2, 1]), {
    sent: 3,
    stored: 3,
    lost: 0,
    duplicated: 0,
    acknowledgedNotStored: 0,
    beyondRetention: 0,
  });
  assert.deepEqual(tallySeqs(2, [], []), {
    sent: 2,
    stored: 0,
    lost: 2,
    duplicated: 0,
    acknowledgedNotStored: 2,
    beyondRetention: 0,
  });
});

test('a target keeping only the newest entries per key: the older seqs are beyond retention, not lost', () => {
  // sent 1..10, the target keeps 4 per key: 7..10 are checked; 8 is missing, 1..6 are the target's retention
  assert.deepEqual(tallySeqs(10, [], [7, 9, 10], 4), {
    sent: 10,
    stored: 3,
    lost: 1,
    duplicated: 0,
    acknowledgedNotStored: 1,
    beyondRetention: 6,
  });
});

test('a run that falls far behind the asked rate does not pass', { timeout: 90_000 }, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-mqtt-load-rate-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  try {
    // a million messages a second through a window of one unacknowledged publish: unreachable anywhere
    const { report, exitCode } = await runMqttGatewayLoad({
      target,
      gateways: 1,
      devicesPerGateway: 1,
      rate: 1_000_000,
      rateOf: 'gateway',
      qos: 1,
      protocolVersion: 5,
      durationS: 0.5,
      window: 1,
      log: () => {},
    });
    assert.equal(report.rateReached, false);
    assert.equal(report.readback?.lost, 0, 'what was sent was stored: only the rate fails');
    assert.equal(report.verdict, 'FAIL');
    assert.equal(exitCode, 1);
    assert.ok(report.failures.some((line) => line.startsWith('rate not reached')));
  } finally {
    await target.close();
  }
});
