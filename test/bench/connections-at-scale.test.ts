/**
 * The rate a connection storm keeps to its end (bench/connections-at-scale.ts rateAtTheEnd): the
 * CONNACKs of the storm's last tenth of seconds, not the hold after it nor the partial last second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rateAtTheEnd } from '../../bench/connections-at-scale';
import type { LoadSample } from '../../load/recorder';

const second = (sent: number, succeeded: number): LoadSample => ({
  elapsedMs: 0,
  intervalMs: 1000,
  sent,
  succeeded,
  errors: {},
  latency: null,
});

test('a storm kept to its end: the rate of its last seconds', () => {
  const series = [
    second(0, 0), // setup
    ...Array.from({ length: 20 }, () => second(1000, 1000)),
    second(500, 500), // the partial last second
    second(0, 0), // the hold
  ];
  assert.equal(rateAtTheEnd(series, 20_500), 1000);
});

test('a storm that slowed at its end: the CONNACKs of its last tenth, not its mean', () => {
  const series = [
    ...Array.from({ length: 16 }, () => second(1000, 1000)),
    second(1000, 790),
    second(1000, 580),
    second(1000, 580),
    second(1000, 580),
    second(0, 1470), // CONNACKs that came after the storm: not counted
  ];
  assert.equal(rateAtTheEnd(series, 20_000), 580);
});
