/**
 * faults/steps.ts, the one step-fault mechanism: with no fault on the steps come back untouched
 * (the fast path of every publish and request), a wrapper applies only while its fault is on, and a
 * placed entry runs before, after (not once the step stopped) or instead of its step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setActiveFaults } from '../../faults';
import {
  placedFaults,
  STOP,
  type StateStep,
  type StepFaults,
  withFaults,
} from '../../faults/steps';

const A = 'RC-ERR-01:only-401-unsuccessful';
const B = 'RC-RESP-01:default-body';

test('with no fault of the table on, withFaults returns the steps themselves', () => {
  const steps = { double: (n: number) => n * 2 };
  const faults: StepFaults<typeof steps> = { [A]: { double: () => (n) => n } };
  setActiveFaults([]);
  assert.equal(withFaults(steps, faults), steps);
  setActiveFaults([B]);
  assert.equal(withFaults(steps, faults), steps, 'a fault of another table changes nothing');
  setActiveFaults([A]);
  const faulted = withFaults(steps, faults);
  assert.notEqual(faulted, steps);
  assert.equal(faulted.double(3), 3);
  assert.equal(steps.double(3), 6, 'the declared steps are not changed');
  setActiveFaults([]);
});

test('a placed fault runs before, after (unless the step stopped) or instead of its step', () => {
  type Run = Record<'first' | 'second', StateStep<string[]>>;
  const run = (stopFirst: boolean): Run => ({
    first: (log) => {
      log.push('first');
      return stopFirst ? STOP : undefined;
    },
    second: (log) => void log.push('second'),
  });
  const trace = (at: 'before' | 'after' | 'instead', stopFirst = false, stopFault = false) => {
    const table = placedFaults<string[], 'first' | 'second'>([
      {
        id: A,
        step: 'first',
        at,
        changes: 'logs',
        apply: (log) => {
          log.push(at);
          return stopFault ? STOP : undefined;
        },
      },
    ]);
    setActiveFaults([A]);
    const steps = withFaults(run(stopFirst), table);
    setActiveFaults([]);
    const log: string[] = [];
    for (const name of ['first', 'second'] as const) if (steps[name](log) === STOP) break;
    return log;
  };
  assert.deepEqual(trace('before'), ['before', 'first', 'second']);
  assert.deepEqual(trace('before', false, true), ['before']);
  assert.deepEqual(trace('after'), ['first', 'after', 'second']);
  assert.deepEqual(trace('after', true), ['first']);
  assert.deepEqual(trace('after', false, true), ['first', 'after']);
  assert.deepEqual(trace('instead'), ['instead', 'second']);
  assert.deepEqual(trace('instead', false, true), ['instead']);
});

test('a fault placed twice at one step is refused', () => {
  assert.throws(() =>
    placedFaults<number, 'only'>([
      { id: A, step: 'only', at: 'before', changes: 'x', apply: () => undefined },
      { id: A, step: 'only', at: 'after', changes: 'y', apply: () => undefined },
    ]),
  );
});
