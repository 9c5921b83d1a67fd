/**
 * The overlapped cases of a property (steps/support/property-overlap.ts, used by
 * steps/properties.steps.ts runProperty against a target across a network): the values are those
 * fast-check's own run checks for the seed, at most N run at once, no case starts after a failure,
 * and the failure reported is the lowest failing index (the one a serial run meets first), so the
 * serial replay from it gives a serial run's counterexample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import { validTelemetry } from '../../schemas/arbitrary';
import { casesOf, checkOverlapped } from '../../steps/support/property-overlap';

test('casesOf draws exactly the cases a run of fc.check with the same seed hands its predicate, in order', async () => {
  for (const seed of [1, -1980734975, 424242]) {
    const checked: unknown[] = [];
    const property = fc.asyncProperty(validTelemetry('timestamped'), async (value) => {
      checked.push(value);
      await delay(0); // a predicate that awaits, as a case does
    });
    await fc.check(property, { seed, numRuns: 25 });
    assert.deepEqual(await casesOf(validTelemetry('timestamped'), seed, 25), checked);
  }
});

test('a replay from path "k" (runProperty after an overlapped failure) starts at case k of the same seed', async () => {
  const cases = await casesOf(validTelemetry('object'), 77, 25);
  for (const k of [0, 9, 13, 24]) {
    const replayed: unknown[] = [];
    await fc.check(
      fc.asyncProperty(validTelemetry('object'), async (value) => {
        replayed.push(value);
      }),
      { seed: 77, path: String(k), numRuns: 25 - k },
    );
    assert.deepEqual(replayed, cases.slice(k));
  }
});

test('at most N cases run at once, every case runs once when all pass', async () => {
  let running = 0;
  let most = 0;
  const seen: number[] = [];
  const outcome = await checkOverlapped(
    Array.from({ length: 10 }, (_, i) => i),
    async (value) => {
      running++;
      most = Math.max(most, running);
      await delay(5 + (value % 3) * 5);
      seen.push(value);
      running--;
    },
    4,
    60_000,
  );
  assert.deepEqual(outcome, { kind: 'passed', cases: 10 });
  assert.equal(most, 4);
  assert.deepEqual(
    [...seen].sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('after a failure no case starts; those running finish, and the lowest failing index is reported', async () => {
  const started: number[] = [];
  let finished = 0;
  const outcome = await checkOverlapped(
    Array.from({ length: 20 }, (_, i) => i),
    async (value) => {
      started.push(value);
      // case 5 fails late, case 6 fails early: a serial run meets 5 first
      await delay(value === 5 ? 40 : 5);
      finished++;
      if (value === 5 || value === 6) throw new Error(`case ${value}`);
    },
    4,
    60_000,
  );
  assert.equal(outcome.kind, 'failed');
  assert.equal(outcome.kind === 'failed' && outcome.index, 5);
  assert.equal(outcome.kind === 'failed' && (outcome.error as Error).message, 'case 5');
  assert.equal(finished, started.length, 'every started case was awaited');
  assert.ok(started.length < 20, `cases started after the failure: ${started.join(',')}`);
  // a case that returns false fails too, as in fast-check
  const falsy = await checkOverlapped([1, 2], async (value) => value !== 2, 2, 60_000);
  assert.equal(falsy.kind === 'failed' && falsy.index, 1);
});

test('past its time limit no case starts, and the run is interrupted (a failure), not passed', async () => {
  const outcome = await checkOverlapped([1, 2, 3, 4, 5], () => delay(20), 1, 30);
  assert.equal(outcome.kind, 'interrupted');
  assert.ok(outcome.cases < 5);
});
