/**
 * The step wrapper's own bound below cucumber's timeout (steps/hooks.ts, timing.ts
 * boundBelowHangGuard): a step still running near the hang guard ends with the error `late()` gives
 * (the network broke a connection of the scenario), and runs on when `late()` has none (a hang of
 * the target stays cucumber's timeout).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundBelowHangGuard } from '../../steps/support/timing';

const never = () => new Promise<never>(() => {});

test('a stalled step ends before the hang guard with the error late() names', async () => {
  // hang guard 1500 ms: the bound is 1000 ms before it; a timer of the guard's length started
  // with it is due later, so it fires after the bound however late both fire
  let guardFired = false;
  const guard = setTimeout(() => {
    guardFired = true;
  }, 1500);
  await assert.rejects(
    boundBelowHangGuard(never(), 1500, () => new Error('ECONNRESET on an MQTT connection')),
    /ECONNRESET/,
  );
  clearTimeout(guard);
  assert.equal(guardFired, false, 'ended after the hang guard');
});

test('without a transport error the step runs on past the bound (cucumber decides)', async () => {
  let asked = 0;
  const running = new Promise<string>((resolve) => setTimeout(() => resolve('done'), 1200));
  const result = await boundBelowHangGuard(running, 1500, () => {
    asked++;
    return undefined;
  });
  assert.equal(result, 'done');
  assert.equal(asked, 1, 'late() was asked once, at the bound');
});

test('a step that ends in time is not touched, its rejection kept', async () => {
  let asked = 0;
  await assert.rejects(
    boundBelowHangGuard(Promise.reject(new Error('the target answered 500')), 1500, () => {
      asked++;
      return new Error('late');
    }),
    /answered 500/,
  );
  assert.equal(asked, 0);
});
