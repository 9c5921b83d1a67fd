/** Operations a step starts and a later one awaits (steps/support/pending-operations.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingOperations } from '../../steps/support/pending-operations';
import type { DeviceResponse } from '../../simulators/device/http-device';

const answer = (status: number) => ({ status, text: '' }) as DeviceResponse;

test('an operation started with `again` is started anew in its place; one without cannot be', async () => {
  const pending = new PendingOperations();
  let starts = 0;
  const poll = async () => answer(++starts === 1 ? 408 : 200);
  pending.start('attributeUpdatesPoll', 'valve', poll(), poll);
  assert.equal((await pending.get('attributeUpdatesPoll', 'valve'))?.status, 408);
  const again = pending.restart('attributeUpdatesPoll', 'valve');
  assert.equal((await again)?.status, 200);
  assert.equal(pending.get('attributeUpdatesPoll', 'valve'), again);
  assert.equal(starts, 2);
  pending.start('rpcPoll', 'valve', Promise.resolve(answer(408)));
  assert.equal(pending.restart('rpcPoll', 'valve'), undefined);
  assert.equal(pending.restart('attributeUpdatesPoll', 'another'), undefined);
});
