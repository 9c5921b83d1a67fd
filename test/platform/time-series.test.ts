import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendTelemetry, historyOf } from '../../simulators/platform/core/time-series';
import type { Device } from '../../simulators/platform/core/model';

const ALL = { startTs: 0, endTs: Number.MAX_SAFE_INTEGER, limit: 100, ascending: true };

function device(): Device {
  return { history: new Map(), latest: new Map() } as unknown as Device;
}

const value = (n: bigint) => ({ type: 'LONG' as const, value: n });

test('a message at the newest entry ts replaces it, one at an older ts replaces that one', () => {
  const d = device();
  for (const [ts, n] of [
    [10, 1n],
    [20, 2n],
    [20, 3n], // the newest ts again: replaces it, no second entry
    [10, 4n], // an older ts: found by the search, replaced
    [15, 5n], // between two: inserted
  ] as const)
    appendTelemetry(d, [{ ts, values: [['t', value(n)]] }]);
  assert.deepEqual(
    historyOf(d, 't', ALL).map((entry) => [entry.ts, entry.value.value]),
    [
      [10, 4n],
      [15, 5n],
      [20, 3n],
    ],
  );
  assert.deepEqual(d.latest.get('t'), { ts: 20, value: value(3n) });
});
