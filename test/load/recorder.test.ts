/**
 * The recorder cuts a run into samples that add up to its totals; the progress line is read from
 * those samples.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoadRecorder } from '../../load/recorder';
import { progressLine } from '../../load/progress';

test('samples hold their own interval, add up to the totals, and errors keep their kind', () => {
  const recorder = new LoadRecorder(0);
  recorder.sent(3);
  recorder.answered(10);
  recorder.answered(20);
  recorder.answered(5, 'HTTP 429 Too many requests');
  const first = recorder.sample(1000);
  recorder.sent(2);
  recorder.answered(40, 'HTTP 429 Too many requests');
  recorder.answered(1, 'network ECONNRESET');
  const second = recorder.sample(2000);
  const third = recorder.sample(2500);
  assert.deepEqual(
    [first, second, third].map((sample) => [
      sample.elapsedMs,
      sample.intervalMs,
      sample.sent,
      sample.succeeded,
    ]),
    [
      [1000, 1000, 3, 2],
      [2000, 1000, 2, 0],
      [2500, 500, 0, 0],
    ],
  );
  assert.deepEqual(first.errors, { 'HTTP 429 Too many requests': 1 });
  assert.deepEqual(second.errors, { 'HTTP 429 Too many requests': 1, 'network ECONNRESET': 1 });
  assert.equal(third.latency, null, 'an interval without answers has no percentiles');
  assert.ok(
    first.latency &&
      first.latency.p50 <= first.latency.p99 &&
      first.latency.p99 <= first.latency.max,
  );
  assert.deepEqual(recorder.snapshot(), {
    sent: 5,
    succeeded: 2,
    errorCount: 3,
    errors: { 'HTTP 429 Too many requests': 2, 'network ECONNRESET': 1 },
  });
  assert.equal(recorder.latency()?.count, 5, 'errors are timed too');

  const line = progressLine([first, second], recorder.snapshot());
  for (const part of [
    '[2.0 s]',
    'sent 5',
    'acknowledged 2',
    'rate 2.5/s',
    'errors 3 (2× HTTP 429 Too many requests, 1× network ECONNRESET)',
  ])
    assert.ok(line.includes(part), `${part} in ${line}`);
  assert.match(line, /p50 \d+(\.\d+)? ms {2}p99 \d+(\.\d+)? ms/);
  assert.match(progressLine([third], recorder.snapshot()), /p50 - {2}p99 -/);
  recorder.destroy();
});

test('an answer the profile expects (the rate-limit probe 429) is refused, not an error: its latency counts, the errors do not', () => {
  const recorder = new LoadRecorder(0);
  recorder.sent(3);
  recorder.answered(10);
  recorder.refused(2, 'HTTP 429');
  recorder.refused(3, 'HTTP 429');
  const totals = recorder.snapshot();
  assert.equal(totals.errorCount, 0);
  assert.deepEqual(totals.errors, {});
  assert.deepEqual(totals.refused, { 'HTTP 429': 2 });
  assert.ok(recorder.latency() !== null, 'the latencies are recorded');
  const line = progressLine([recorder.sample(1000)], totals);
  assert.match(line, /errors 0 {2}refused as expected 2× HTTP 429/);
});
