/**
 * A claim's durationMs across a network (steps/support/claim-window.ts): stretched by three round
 * trips when the run measured one, sent byte for byte on loopback, and the "N ms claim window"
 * steps of that device follow the stretch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimBodyOverNetwork,
  claimWindowMs,
  refuseIfNoTryFitTheWindow,
} from '../../steps/support/claim-window';
import { Inconclusive } from '../../steps/support/timing';
import type { IotcWorld } from '../../steps/world';

function world(roundTripMs?: number): IotcWorld {
  return {
    claimWindowStretchMs: new Map<string, number>(),
    run: { target: { timeouts: { eventuallyMs: 5000, pollIntervalMs: 50, roundTripMs } } },
    log: () => undefined,
  } as unknown as IotcWorld;
}

test('on loopback the claim goes out as written and the window is the scenario’s', () => {
  const local = world();
  const body = '{"secretKey": "brief", "durationMs": 400}';
  assert.equal(claimBodyOverNetwork(local, 'tracker', body), body);
  assert.equal(claimWindowMs(local, 'tracker', 400), 400);
});

test('across a 420 ms round trip a 400 ms window becomes 1660 ms, for that device only', () => {
  const remote = world(420);
  const sent = JSON.parse(
    claimBodyOverNetwork(remote, 'tracker', '{"secretKey": "brief", "durationMs": 400}'),
  );
  assert.deepEqual(sent, { secretKey: 'brief', durationMs: 1660 });
  assert.equal(claimWindowMs(remote, 'tracker', 400), 1660);
  assert.equal(claimWindowMs(remote, 'control', 400), 400);
  // a claim without durationMs (the platform's default window), or not JSON, is sent as written and
  // clears the stretch
  assert.equal(claimBodyOverNetwork(remote, 'tracker', '{"secretKey": "k"}'), '{"secretKey": "k"}');
  assert.equal(claimWindowMs(remote, 'tracker', 400), 400);
  assert.equal(claimBodyOverNetwork(remote, 'tracker', 'not json'), 'not json');
});

test('a failed short-window control is INCONCLUSIVE only when no try was answered within the window', () => {
  const tries = { device: 'control', windowMs: 400, acknowledged: 10_000 };
  // a try answered inside the window: the platform had no registration then, the FAIL stands
  assert.doesNotThrow(() => refuseIfNoTryFitTheWindow({ ...tries, firstAnsweredAt: 10_250 }));
  assert.doesNotThrow(() => refuseIfNoTryFitTheWindow({ ...tries, firstAnsweredAt: 10_400 }));
  // the first answer after the window, or none: undecidable
  assert.throws(
    () => refuseIfNoTryFitTheWindow({ ...tries, firstAnsweredAt: 10_401 }),
    (error: unknown) =>
      error instanceof Inconclusive && /first try was answered 401 ms after/.test(error.message),
  );
  assert.throws(
    () => refuseIfNoTryFitTheWindow({ ...tries, firstAnsweredAt: undefined }),
    (error: unknown) => error instanceof Inconclusive && /no try was answered/.test(error.message),
  );
});
