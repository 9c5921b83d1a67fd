/**
 * Ctrl-C ordering of `iotc run` (issue 13 finding 8): once a stop is requested no scenario starts,
 * and the cleanup waits until the running scenario has finished (its own cleanup included), so
 * nothing is created after it.
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isStopRequested,
  requestStop,
  resetInterruption,
  scenarioFinished,
  scenarioStarting,
  whenNoScenarioRuns,
} from '../../src/engine/interruption';

afterEach(() => resetInterruption());

test('after a stop no scenario starts, and the wait ends when the running one finishes', async () => {
  const events: string[] = [];
  assert.equal(scenarioStarting(), true);
  requestStop();
  assert.equal(isStopRequested(), true);
  assert.equal(scenarioStarting(), false, 'a scenario started after the stop');
  const waited = whenNoScenarioRuns(60_000).then((outcome) => events.push(`cleanup (${outcome})`));
  await new Promise((resolve) => setImmediate(resolve));
  events.push('the running scenario creates its last device and deletes it');
  scenarioFinished();
  await waited;
  assert.deepEqual(events, [
    'the running scenario creates its last device and deletes it',
    'cleanup (idle)',
  ]);
});

test('a scenario that never finishes does not hold the cleanup for ever', async () => {
  assert.equal(scenarioStarting(), true);
  requestStop();
  assert.equal(await whenNoScenarioRuns(50), 'timed out');
});

test('with nothing running the cleanup starts at once', async () => {
  requestStop();
  assert.equal(await whenNoScenarioRuns(60_000), 'idle');
});
