/**
 * Attributes read by the device, shared attributes set by the platform, and the attribute-updates
 * long-poll.
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from './support/cucumber';
import type { DeviceResponse } from '../simulators/device/http-device';
import type { IotcWorld } from './world';
import { sameJson } from './support/expectations';
import { settlesWithin } from './support/eventually';
import { quietFloorMs } from './support/readiness';
import { measuredDelays, quietWindowMs } from './support/timing';

const keyList = (text: string) =>
  text
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);

/**
 * Sets attributes through the admin API. When the device has an attribute-updates poll waiting, the
 * platform may not have registered it yet when the change arrives (a long-poll only sees later
 * changes, and nothing observable says when it is registered). So the same change is saved again,
 * at growing intervals, until the poll answers or eventuallyMs runs out: a repeated save of the
 * same values is still a change made by a server-side component.
 *
 * A poll that timed out (408, empty body) while the change was saved again and again through its
 * whole life was never registered in time: ThingsBoard registers a long-poll through its core
 * queue, which took 2.9 s for a scenario's first poll and more than its 5 s timeout for the second
 * on a loaded machine (4 saves, 408). Until eventuallyMs is spent the poll is started again, with
 * the same timeout, and the saves go on; any other answer, or a 408 after that, is the Then step's
 * to judge (a target that never delivers still FAILs, one that delivers the earlier change again
 * too).
 */
Given(
  /^the platform sets the (shared|server) attributes of "([^"]*)" to (.+)$/,
  async function (this: IotcWorld, scope: string, local: string, body: string) {
    const device = this.device(local);
    const save = () =>
      this.run.admin.saveAttributes(
        device.record.id,
        scope === 'shared' ? 'SHARED_SCOPE' : 'SERVER_SCOPE',
        body,
      );
    let poll = this.pending.get('attributeUpdatesPoll', local);
    if (scope !== 'shared' || !poll) return save();
    const { eventuallyMs, pollIntervalMs } = this.run.target.timeouts;
    const deadline = Date.now() + eventuallyMs;
    for (let attempt = 0; ; attempt++) {
      await save();
      const left = deadline - Date.now();
      if (left <= 0) return; // the Then step reports what the poll answered
      if (
        !(await settlesWithin(poll, Math.min(pollIntervalMs * 2 ** Math.min(attempt + 1, 5), left)))
      )
        continue;
      const answer = await poll.catch(() => undefined);
      if (answer?.status !== 408 || answer.text !== '') return;
      const again = this.pending.restart('attributeUpdatesPoll', local);
      if (!again) return;
      this.log(
        `the attribute updates poll of ${local} timed out (408) while the change was saved ${attempt + 1} times: the platform had not registered it; polling again`,
      );
      poll = again;
      attempt = -1;
    }
  },
);

When(
  'the device {string} requests its attributes with clientKeys {string} and sharedKeys {string}',
  async function (this: IotcWorld, local: string, client: string, shared: string) {
    this.response = await this.device(local).driver.getAttributes({
      clientKeys: keyList(client),
      sharedKeys: keyList(shared),
    });
  },
);

When(
  'the device {string} requests its attributes with clientKeys {string}',
  async function (this: IotcWorld, local: string, client: string) {
    this.response = await this.device(local).driver.getAttributes({ clientKeys: keyList(client) });
  },
);

When(
  'the device {string} requests its attributes with sharedKeys {string}',
  async function (this: IotcWorld, local: string, shared: string) {
    this.response = await this.device(local).driver.getAttributes({ sharedKeys: keyList(shared) });
  },
);

When(
  'the device {string} requests its attributes with no keys',
  async function (this: IotcWorld, local: string) {
    this.response = await this.device(local).driver.getAttributes();
  },
);

/** Starts the long-poll and goes on at once; a Then step awaits its answer. */
function startUpdatesPoll(this: IotcWorld, local: string, timeoutMs: number): void {
  const { driver } = this.device(local);
  const poll = () => driver.pollAttributeUpdates(timeoutMs);
  this.pending.start('attributeUpdatesPoll', local, poll(), poll);
}

When('the device {string} waits for shared attribute updates for up to {int} ms', startUpdatesPoll);
Given(
  'the device {string} is waiting for shared attribute updates without a timeout parameter',
  function (this: IotcWorld, local: string) {
    this.pending.start(
      'attributeUpdatesPoll',
      local,
      this.device(local).driver.pollAttributeUpdates(),
    );
  },
);
/**
 * The delay of an answer the HTTP device API gives at once (a device's attribute read), by which a
 * poll the platform ends at once would have come back too: recorded by the step below and read by
 * its quiet window.
 */
const IMMEDIATE_ANSWER = 'device HTTP immediate answer';

/**
 * The poll without a timeout parameter is held, not answered at once: watched for a quiet window
 * before the change it must deliver is made. Without this, a platform that ends such a poll at once
 * could still pass when the change reaches it before the poll does (and is then answered from what
 * it queued), so the change is made only once the poll is seen to be held. The window is derived
 * from a measured delay (timing.ts quietWindowMs: three times the largest, at least quietFloorMs):
 * the device's own attribute read, made now and answered at once, times the path a poll ended at
 * once comes back on. It was eventuallyMs / 4 (750 ms embedded) because nothing measured this kind.
 */
Then(
  /^the (attribute updates|RPC) poll of "([^"]*)" is still held$/,
  async function (this: IotcWorld, kind: string, local: string) {
    const poll = this.pending.get(kind === 'RPC' ? 'rpcPoll' : 'attributeUpdatesPoll', local);
    assert.ok(poll, `no ${kind} poll of ${local} was started`);
    const askedAt = performance.now();
    const read = await this.device(local).driver.getAttributes();
    assert.equal(read.status, 200, `the attribute read of ${local} got ${this.shown(read)}`);
    measuredDelays.record(IMMEDIATE_ANSWER, performance.now() - askedAt);
    const windowMs = quietWindowMs(IMMEDIATE_ANSWER, this.run.target.timeouts, quietFloorMs(this));
    if (await settlesWithin(poll, windowMs)) {
      const answer = await poll.catch((error: unknown) => error);
      // a poll the network broke (a reset, a refused connection) is the network's, named as such by
      // the step wrapper (steps/hooks.ts: INCONCLUSIVE with the transport error), not an early
      // answer of the target
      if (answer instanceof Error) throw answer;
      assert.fail(
        `the ${kind} poll of ${local} ended within ${windowMs} ms, before any change: ${
          answer instanceof Error ? answer.message : this.shown(answer as DeviceResponse)
        }`,
      );
    }
  },
);

Given(
  'the device {string} is waiting for shared attribute updates for up to {int} ms',
  startUpdatesPoll,
);

Then(
  /^the attribute updates poll of "([^"]*)" answers 200 with (.+)$/,
  async function (this: IotcWorld, local: string, expected: string) {
    const response = (await this.pending.get('attributeUpdatesPoll', local)) as DeviceResponse;
    assert.ok(response, 'no attribute updates poll was started');
    assert.equal(response.status, 200, `the poll answered ${this.shown(response)}`);
    assert.ok(
      sameJson(response.json, expected),
      `the poll answered ${this.shown(response)}, expected ${expected}`,
    );
  },
);

Then(
  'the attribute updates poll of {string} times out with {int} and an empty body after at least {int} ms',
  async function (this: IotcWorld, local: string, status: number, minimumMs: number) {
    const response = (await this.pending.get('attributeUpdatesPoll', local)) as DeviceResponse;
    assert.ok(response, 'no attribute updates poll was started');
    assert.equal(response.status, status, `the poll answered ${this.shown(response)}`);
    assert.equal(response.text, '', 'a timed-out poll has an empty body');
    assert.ok(
      response.elapsedMs >= minimumMs * 0.95,
      `the poll ended after ${Math.round(response.elapsedMs)} ms, before its timeout of ${minimumMs} ms`,
    );
  },
);

Then(
  'the platform eventually holds the shared attribute {string} of {string}',
  async function (this: IotcWorld, key: string, local: string) {
    const device = this.device(local);
    await this.eventually(async () => {
      const stored = await this.run.admin.attributes(device.record.id, 'SHARED_SCOPE', [key]);
      assert.ok(stored.has(key), `the shared attribute ${key} is not stored`);
    });
  },
);
