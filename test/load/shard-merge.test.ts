/**
 * Sharding at the boundary: one `iotc simulate` process is the platform; a connection storm
 * (mqtt-connect, counted work: 16 connections, 4 of them with an invalid token) runs once in one
 * process and once as 4 shard processes with a shared start (one of them told its index by
 * JOB_COMPLETION_INDEX, as in a Kubernetes Indexed Job). `iotc load merge` of the 4 gives the
 * totals and verdict of the single run, and its latency histogram equals the one recomputed from
 * every raw latency the shards recorded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { LoadReport } from '../../load/contract';
import { newHistogram, summarizeLatency } from '../../load/recorder';
import { exitOf, spawnIotc, startSimulate, stop } from '../support/children';

const SHARDS = 4;

function readReport(dir: string): LoadReport {
  return JSON.parse(readFileSync(join(dir, 'load', 'mqtt-connect.json'), 'utf8')) as LoadReport;
}

test('4 shard processes merged equal 1 process doing the same work, histogram included', {
  timeout: 900_000, // a hang guard only
}, async () => {
  const { child: platform, info } = await startSimulate();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'iotc-shards-'));
    const profilePath = join(dir, 'simulate.json');
    writeFileSync(
      profilePath,
      JSON.stringify({
        name: 'simulate-shards',
        platform: {
          http: info.httpUrl,
          mqtt: info.mqttUrl,
          tenantAdmin: {
            username: '${env:IOTC_TEST_TENANT_USER}',
            password: '${env:IOTC_TEST_TENANT_PASSWORD}',
          },
        },
        capabilities: ['mqtt5'],
        namePrefix: 'iotc-shards-',
      }),
    );
    const env = {
      ...process.env,
      IOTC_TEST_TENANT_USER: 'tenant@thingsboard.org',
      IOTC_TEST_TENANT_PASSWORD: 'tenant',
      IOTC_STATE_DIR: join(dir, 'state'),
    };
    const storm = ['load', 'mqtt-connect', '-t', profilePath, '-n', '16', '--rate', '8'];
    // the verdict is decided by counts only: whether a busy machine kept the connect schedule (the
    // default schedule_kept>=0.9) is no property of sharding, and four connections per shard make
    // that share jumpy
    const countsOnly = [
      'connected>0',
      'valid_refused==0',
      'invalid_accepted==0',
      'no_connack==0',
      'dropped==0',
    ];
    const common = [
      '--invalid-share',
      '0.25',
      '--hold',
      '0',
      '--raw-latencies',
      '--no-default-thresholds',
      ...countsOnly.flatMap((threshold) => ['--threshold', threshold]),
    ];

    const single = await exitOf(
      spawnIotc([...storm, ...common, '-r', join(dir, 'single')], { env }),
    );
    assert.equal(single.code, 0, single.output);

    // every shard starts sending at the same moment, after its own setup (a start that has passed
    // when a shard is ready, on a busy machine, starts it at once: counts are the same)
    const startAt = new Date(Date.now() + 10_000).toISOString();
    const shardDirs = Array.from({ length: SHARDS }, (_, i) => join(dir, `shard-${i}`));
    const shards = await Promise.all(
      shardDirs.map((shardDir, i) =>
        exitOf(
          spawnIotc(
            [
              ...storm,
              ...common,
              ...(i === SHARDS - 1
                ? ['--shard-count', String(SHARDS)]
                : ['--shard', `${i}/${SHARDS}`]),
              '--start-at',
              startAt,
              '-r',
              shardDir,
            ],
            { env: i === SHARDS - 1 ? { ...env, JOB_COMPLETION_INDEX: String(i) } : env },
          ),
        ),
      ),
    );
    for (const shard of shards) assert.equal(shard.code, 0, shard.output);
    const shardReports = shardDirs.map(readReport);
    assert.deepEqual(
      shardReports.map((report) => [report.shard, report.totals.sent]),
      Array.from({ length: SHARDS }, (_, index) => [{ index, count: SHARDS }, 4]),
    );
    assert.ok(
      shards.every((shard) => shard.output.includes(`shared start ${startAt}`)),
      'each shard logs its wait for the shared start',
    );

    const merge = await exitOf(
      spawnIotc(['load', 'merge', ...shardDirs, '-r', join(dir, 'merged')], { env }),
    );
    assert.equal(merge.code, 0, merge.output);
    const merged = readReport(join(dir, 'merged'));
    const whole = readReport(join(dir, 'single'));
    const counted = (report: LoadReport) => ({
      totals: report.totals,
      verdict: report.verdict,
      connected: report.metrics.connected,
      refused: report.metrics.refused,
      validRefused: report.metrics.valid_refused,
      invalidAccepted: report.metrics.invalid_accepted,
      dropped: report.metrics.dropped,
      latencyCount: report.latency?.count,
      thresholds: report.thresholds.map((threshold) => `${threshold.source} ${threshold.verdict}`),
    });
    assert.deepEqual(counted(merged), counted(whole));
    assert.deepEqual(
      merged.thresholds.map((threshold) => threshold.source),
      countsOnly,
      'without the defaults, the given thresholds alone decide, in the shards and in the merge',
    );
    assert.equal(merged.totals.sent, 16);
    assert.equal(merged.metrics.connected, 12);
    assert.equal(
      merged.series.reduce((sum, sample) => sum + sample.sent, 0),
      16,
      'the merged series adds up to the totals',
    );

    // the merged histogram against one built from every raw latency of the shards, both as the
    // reports carry histograms (HdrHistogram's encoding keeps the count of every bucket, not the
    // exact extremes)
    const raw = shardDirs.flatMap(
      (shardDir) =>
        JSON.parse(
          readFileSync(join(shardDir, 'load', 'mqtt-connect.latencies.json'), 'utf8'),
        ) as number[],
    );
    assert.equal(raw.length, 16, 'one raw latency per CONNECT');
    const built = newHistogram();
    for (const microseconds of raw) built.recordValue(microseconds);
    const recomputed = hdr.decodeFromCompressedBase64(hdr.encodeIntoCompressedBase64(built));
    built.destroy();
    const decoded = hdr.decodeFromCompressedBase64(merged.latencyHistogram);
    try {
      assert.equal(decoded.totalCount, recomputed.totalCount);
      // the whole distribution, bucket by bucket, as HdrHistogram prints it
      assert.equal(
        decoded.outputPercentileDistribution(),
        recomputed.outputPercentileDistribution(),
      );
      for (let percent = 0; percent <= 100; percent += 2.5)
        assert.equal(
          decoded.getValueAtPercentile(percent),
          recomputed.getValueAtPercentile(percent),
          `p${percent}`,
        );
      assert.equal(decoded.minNonZeroValue, recomputed.minNonZeroValue);
      assert.equal(decoded.maxValue, recomputed.maxValue);
      assert.deepEqual(merged.latency, summarizeLatency(recomputed));
    } finally {
      decoded.destroy();
      recomputed.destroy();
    }
  } finally {
    await stop(platform);
  }
});
