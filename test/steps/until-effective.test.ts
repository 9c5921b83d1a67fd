/**
 * untilEffective's starvation check weighs the total the event loop stood still over its window,
 * not its worst single stall: a loop starved in many short slices (a loaded machine) is
 * INCONCLUSIVE, an idle loop whose effect never comes is NotEffective, and an effect that comes is
 * counted in tries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Inconclusive,
  NotEffective,
  refuseIfStarvedInAll,
  untilEffective,
} from '../../steps/support/timing';

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const profile = { eventuallyMs: 600, pollIntervalMs: 20 };

test('many short stalls that add up to more than half the window make it INCONCLUSIVE', async () => {
  // every look at the effect blocks the loop 40 ms, far below half of the 600 ms window, 10 ms
  // apart: the loop stands still about four fifths of the window in all
  await assert.rejects(
    untilEffective(
      'a starved effect',
      'test-starved',
      async () => {},
      () => {
        block(40);
        return false;
      },
      profile,
    ),
    (error: unknown) => {
      assert.ok(error instanceof Inconclusive, `not INCONCLUSIVE: ${String(error)}`);
      assert.match((error as Error).message, /in all \(worst single stall \d+ ms\)/);
      return true;
    },
  );
});

test('an effect that never comes on an idle loop is NotEffective, with its tries counted', async () => {
  // the machine itself may starve this test's loop (scripts/test-under-load.sh): a window it
  // starved decides nothing, so the check is made again (bounded) until one window was not starved
  const starved: string[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const error = await untilEffective(
      'an absent effect',
      'test-absent',
      async () => {},
      () => false,
      profile,
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (error instanceof Inconclusive) {
      starved.push(error.message);
      continue;
    }
    assert.ok(error instanceof NotEffective, `not NotEffective: ${String(error)}`);
    assert.match(error.message, /no effect after \d+ tries/);
    return;
  }
  assert.fail(`every window was starved by the machine, none decided: ${starved.join('; ')}`);
});

test('an effect that comes at the third try is reported with three tries', async () => {
  let acted = 0;
  const outcome = await untilEffective(
    'an effect of the third try',
    'test-third',
    async (attempt) => {
      acted = attempt;
    },
    () => acted >= 3,
    profile,
  );
  assert.equal(outcome.tries, 3);
});

test('refuseIfStarvedInAll: the total or the worst stall, whichever is larger, against half the window', () => {
  const watch = (worst: number) => ({ worstMs: () => worst });
  assert.doesNotThrow(() => refuseIfStarvedInAll(watch(40), 200, 600, 'x'));
  assert.throws(() => refuseIfStarvedInAll(watch(40), 320, 600, 'x'), Inconclusive);
  assert.throws(() => refuseIfStarvedInAll(watch(320), 0, 600, 'x'), Inconclusive);
});
