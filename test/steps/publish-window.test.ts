/**
 * A publish's PUBACK is awaited for a quiet window made of the PUBACK delays measured
 * (steps/support/publish-window.ts): within it the outcome is the driver's; after it the publish is
 * pending, a step that judges the PUBACK waits for the rest as before, and a PUBACK that comes after
 * a step judged it missing is reported.
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import type { MqttConnection, PublishOutcome } from '../../simulators/device/mqtt-connection';
import {
  lateAcknowledgement,
  publishWithinWindow,
  recordPuback,
  settledPublish,
} from '../../steps/support/publish-window';
import type { IotcWorld } from '../../steps/world';

function fakeWorld(): IotcWorld {
  // eventuallyMs / 20 = 40 ms: the floor of the window
  return {
    run: { target: { timeouts: { eventuallyMs: 800, pollIntervalMs: 20 } } },
  } as unknown as IotcWorld;
}

let stopped = 0;
const connection = {
  stopWaitingForAcks: () => {
    stopped += 1;
  },
} as unknown as MqttConnection;

function ackedAfter(ms: number): () => Promise<PublishOutcome> {
  return async () => {
    const started = performance.now();
    await delay(ms);
    return { topic: 't', qos: 1, result: 'acked', elapsedMs: performance.now() - started };
  };
}

// a measured PUBACK delay of 10 ms: the window is 40 ms, its floor
recordPuback({ topic: 't', qos: 1, result: 'acked', elapsedMs: 10 });

test('a PUBACK within the window is the outcome, nothing pending', async () => {
  const world = fakeWorld();
  let settled = false;
  await publishWithinWindow(world, 't', connection, ackedAfter(1), () => {
    settled = true;
  });
  assert.equal(world.lastPublish?.result, 'acked');
  assert.equal(world.pendingPublish, undefined);
  assert.ok(settled);
});

test('a PUBACK after the window leaves the publish pending; settledPublish waits for it', async () => {
  const world = fakeWorld();
  let acknowledged = false;
  const publish = ackedAfter(200);
  await publishWithinWindow(world, 't', connection, () =>
    publish().then((outcome) => {
      acknowledged = true;
      return outcome;
    }),
  );
  // the window's 40 ms timer is due before the PUBACK's 200 ms one, however late both fire
  assert.equal(acknowledged, false, 'the step waited for the PUBACK beyond its window');
  assert.equal(world.lastPublish?.result, 'timeout');
  assert.ok(world.pendingPublish);
  const outcome = await settledPublish(world);
  assert.equal(outcome?.result, 'acked');
  assert.equal(world.pendingPublish, undefined);
  assert.equal(lateAcknowledgement(world), undefined);
});

test('a PUBACK after a step judged it missing is reported as late', async () => {
  const world = fakeWorld();
  // the 200 ms PUBACK above made the window 600 ms
  await publishWithinWindow(world, 't', connection, ackedAfter(700));
  const pending = world.pendingPublish;
  assert.ok(pending);
  pending.judgedUnacknowledged = true;
  pending.connection.stopWaitingForAcks();
  assert.equal(stopped, 1);
  assert.equal(lateAcknowledgement(world), undefined);
  // a publish judged missing is not waited for again
  assert.equal((await settledPublish(world))?.result, 'timeout');
  await pending.settled;
  await delay(0);
  assert.match(lateAcknowledgement(world) ?? '', /judged unacknowledged after a \d+ ms window/);
});
