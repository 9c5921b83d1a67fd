/**
 * Shards split a fleet into blocks that cover it exactly once, from `i/n` or JOB_COMPLETION_INDEX;
 * the merge refuses reports that are not every shard of one run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LoadReport } from '../../load/contract';
import { LoadMergeError, mergeLoadReports } from '../../load/merge';
import { mqttConnectProfile } from '../../load/mqtt-connect';
import { parseShard, ShardError, shardFromEnvironment, shardIndexes } from '../../load/shard';

test('the shards of a fleet are blocks covering every index exactly once', () => {
  for (const [total, count] of [
    [16, 4],
    [10, 3],
    [5, 5],
    [1000, 7],
  ]) {
    const parts = Array.from({ length: count }, (_, index) =>
      shardIndexes(total, { index, count }),
    );
    assert.deepEqual(
      parts.flat(),
      Array.from({ length: total }, (_, i) => i),
      `${total} over ${count}`,
    );
    const sizes = parts.map((part) => part.length);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `even blocks: ${sizes}`);
  }
  assert.deepEqual(shardIndexes(10, { index: 1, count: 3 }), [3, 4, 5]);
  // more shards than items: some shard has nothing to do, and says so
  assert.throws(() => shardIndexes(2, { index: 0, count: 3 }), ShardError);
});

test('a shard is i/n, 0-based, or JOB_COMPLETION_INDEX of a count', () => {
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  for (const bad of ['4/4', '1/0', '-1/4', 'a/b', '1'])
    assert.throws(() => parseShard(bad), ShardError, bad);
  assert.deepEqual(shardFromEnvironment(4, { JOB_COMPLETION_INDEX: '3' }), { index: 3, count: 4 });
  assert.throws(() => shardFromEnvironment(4, {}), /JOB_COMPLETION_INDEX/);
  assert.throws(() => shardFromEnvironment(4, { JOB_COMPLETION_INDEX: '4' }), ShardError);
});

test('the merge refuses a missing or doubled shard, other options and a whole run', () => {
  const report = (index: number, options: unknown = { connections: 4 }) =>
    ({
      profile: 'mqtt-connect',
      runId: `r${index}`,
      shard: { index, count: 2 },
      options,
      latencyHistogram: '',
    }) as unknown as LoadReport;
  const refused = (reports: LoadReport[], pattern: RegExp) =>
    assert.throws(
      () => mergeLoadReports(mqttConnectProfile as never, reports),
      (error: unknown) => error instanceof LoadMergeError && pattern.test(error.message),
    );
  refused([report(0)], /shard 0 of 2, but 1 reports/);
  refused([report(0), report(0)], /a shard appears twice/);
  refused([report(0), report(1, { connections: 5 })], /other options/);
  refused([{ ...report(0), shard: null }, report(1)], /not a shard's report/);
  const { latencyHistogram: _, ...older } = report(1);
  refused([report(0), older as LoadReport], /no latency histogram/);
});
