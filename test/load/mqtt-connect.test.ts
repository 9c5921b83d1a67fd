/**
 * The mqtt-connect profile (a connection storm) against the embedded reference, MQTT 3.1.1 and 5:
 * every CONNECT is answered and timed, the invalid tokens are refused with their code and words,
 * the valid ones accepted, nothing is dropped and the devices are deleted. Its own metrics decide:
 * a planted fault that accepts unknown tokens fails `invalid_accepted`, and a connection the
 * platform closes during the hold (its device deleted) is `dropped`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setActiveFaults } from '../../faults';
import { AdminClient } from '../../src/admin-client';
import { openTarget } from '../../src/target';
import { runLoadProfile } from '../../load/contract';
import { isInvalid, mqttConnectProfile } from '../../load/mqtt-connect';
import { countsOnly } from '../support/load';

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const quiet = { log: () => {}, progress: () => {}, ...countsOnly(mqttConnectProfile) };

test('a storm of 12 connections, 3 with an invalid token: 9 accepted, 3 refused by code, every CONNACK timed', {
  timeout: 600_000, // a hang guard only
}, async () => {
  const reports = mkdtempSync(join(tmpdir(), 'iotc-mqtt-connect-'));
  process.env.IOTC_STATE_DIR = join(reports, 'state');
  const target = await openTarget('embedded');
  try {
    for (const [protocolVersion, refusal] of [
      [4, 'CONNACK 5 Connection refused: Not authorized'],
      [5, 'CONNACK 0x86 Connection refused: Bad User Name or Password'],
    ] as const) {
      const { report, exitCode } = await runLoadProfile(
        mqttConnectProfile,
        { connections: 12, rate: 30, protocolVersion, invalidShare: 0.25, holdS: 0.5 },
        { target, reportsDir: reports, ...quiet },
      );
      assert.equal(exitCode, 0, JSON.stringify(report.thresholds));
      assert.equal(report.verdict, 'PASS');
      assert.deepEqual(
        {
          sent: report.totals.sent,
          succeeded: report.totals.succeeded,
          errors: report.totals.errors,
          connected: report.metrics.connected,
          refused: report.metrics.refused,
          dropped: report.metrics.dropped,
          peakOpen: report.metrics.peak_open,
          latencyCount: report.latency?.count,
          cleanup: report.details.cleanup,
        },
        {
          sent: 12,
          succeeded: 9,
          errors: { [refusal]: 3 },
          connected: 9,
          refused: 3,
          dropped: 0,
          peakOpen: 9,
          latencyCount: 12,
          cleanup: { deleted: 9, failed: [] },
        },
        `MQTT ${protocolVersion}`,
      );
      assert.equal(sum(report.series.map((sample) => sample.sent)), 12);
    }
  } finally {
    await target.close();
  }
});

test('the invalid connections are spread: round(n × share) of them', () => {
  const invalid = (n: number, share: number) =>
    Array.from({ length: n }, (_, i) => i).filter((i) => isInvalid(i, share));
  assert.deepEqual(invalid(12, 0.25), [3, 7, 11]);
  assert.deepEqual(invalid(5, 0), []);
  assert.deepEqual(invalid(3, 1), [0, 1, 2]);
});

test('a platform accepting unknown tokens fails invalid_accepted, and nothing else', {
  timeout: 600_000, // a hang guard only
}, async () => {
  process.env.IOTC_STATE_DIR = join(
    mkdtempSync(join(tmpdir(), 'iotc-mqtt-connect-fault-')),
    'state',
  );
  const target = await openTarget('embedded');
  setActiveFaults(['GW-AUTH-01:unknown-token-accepted']);
  try {
    const { report, exitCode } = await runLoadProfile(
      mqttConnectProfile,
      { connections: 4, rate: 20, protocolVersion: 5, invalidShare: 0.5, holdS: 0 },
      { target, ...quiet },
    );
    assert.equal(report.metrics.invalid_accepted, 2);
    assert.deepEqual(
      report.thresholds
        .filter((threshold) => threshold.verdict !== 'PASS')
        .map((threshold) => threshold.source),
      ['invalid_accepted==0'],
    );
    assert.equal(exitCode, 1);
  } finally {
    setActiveFaults([]);
    await target.close();
  }
});

test('a connection the platform closes during the hold is dropped', {
  timeout: 600_000, // a hang guard only
}, async () => {
  process.env.IOTC_STATE_DIR = join(
    mkdtempSync(join(tmpdir(), 'iotc-mqtt-connect-drop-')),
    'state',
  );
  const target = await openTarget('embedded');
  const admin = await AdminClient.login(target.adminUrl, target.tenantAdmin);
  let deleting: Promise<void> | undefined;
  try {
    const { report } = await runLoadProfile(
      mqttConnectProfile,
      // the hold is the window for one admin deletion: ample on a busy machine, and the run ends by
      // itself
      { connections: 3, rate: 20, protocolVersion: 5, holdS: 10 },
      {
        target,
        progress: () => {},
        // once every CONNACK is in, one device is deleted: the platform closes its session
        log: (line) => {
          if (!line.includes('holding')) return;
          deleting = (async () => {
            const found = await admin.listDevices(0, `${target.namePrefix}load-`, 10);
            const victim = found.data.find((device) => device.name.endsWith('-conn-d1'));
            assert.ok(victim, 'the run created its devices');
            await admin.deleteDevice(victim.id);
          })();
        },
      },
    );
    await deleting;
    assert.equal(report.metrics.dropped, 1);
    assert.equal(
      report.thresholds.find((threshold) => threshold.source === 'dropped==0')?.verdict,
      'FAIL',
    );
  } finally {
    await admin.close();
    await target.close();
  }
});
