/** Device claiming: the device registers a claim, the customer claims the device with the secret key. */
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { AdminResponse } from '../src/admin-client';
import { claimAnswerSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { answerOf } from './support/answer-of';
import { GiveUp } from './support/eventually';

/**
 * The platform may register a claim a little after it answered the device (a 200 means queued), so the window is
 * taken to end this much after durationMs past the answer.
 */
const REGISTRATION_SLACK_MS = 100;

When(
  /^the device "([^"]*)" posts the claim (.+)$/,
  async function (this: IotcWorld, local: string, body: string) {
    this.response = await this.device(local).driver.claim({ raw: body });
    this.claimsAcknowledgedAt.set(local, Date.now());
  },
);

When(
  'the device {string} posts a claim with no body',
  async function (this: IotcWorld, local: string) {
    this.response = await this.device(local).driver.claim();
    this.claimsAcknowledgedAt.set(local, Date.now());
  },
);

async function customerClaims(
  world: IotcWorld,
  local: string,
  secretKey: string,
): Promise<AdminResponse> {
  const customer = world.run.customer;
  assert.ok(customer, 'the target profile names no customerUser, who claims devices');
  const device = world.device(local);
  const answer = await customer.claimDevice(device.record.name, secretKey);
  if (answer.status === 200) {
    world.cleanups.push({
      what: `claim of ${device.record.name}`,
      undo: async () => void (await customer.reclaimDevice(device.record.name)),
    });
  }
  return answer;
}

Then(
  'the customer can claim {string} with the secret key {string}',
  async function (this: IotcWorld, local: string, secretKey: string) {
    const answer = await customerClaims(this, local, secretKey);
    assert.equal(answer.status, 200, `the claim answered ${this.shown(answer)}`);
    assert.equal(
      answerOf(claimAnswerSchema, answer, 'POST /api/customer/device/{deviceName}/claim').response,
      'SUCCESS',
      `the claim answered ${this.shown(answer)}`,
    );
  },
);

Then(
  'the customer cannot claim {string} with the secret key {string}',
  async function (this: IotcWorld, local: string, secretKey: string) {
    const answer = await customerClaims(this, local, secretKey);
    assert.notEqual(answer.status, 200, `the claim succeeded: ${this.shown(answer)}`);
    assert.ok(answer.status < 500, `the claim answered a server error: ${this.shown(answer)}`);
  },
);

/**
 * A claim with the right key that succeeds cannot be taken back as evidence (it consumes the registration), so no
 * attempt is made while the window may still be open; the first attempt after it must fail, and a success fails
 * the step at once. Bounded by eventuallyMs past the end of the window.
 */
async function claimFailsAfterWindow(
  world: IotcWorld,
  durationMs: number,
  local: string,
  secretKey: string,
): Promise<void> {
  const acknowledged = world.claimsAcknowledgedAt.get(local);
  assert.ok(acknowledged, `the device "${local}" has posted no claim`);
  const windowEnds = acknowledged + durationMs + REGISTRATION_SLACK_MS;
  await world.eventually(async () => {
    const open = windowEnds - Date.now();
    if (open > 0) throw new Error(`the claim window is open for ${open} ms more`);
    const answer = await customerClaims(world, local, secretKey);
    if (answer.status === 200) {
      throw new GiveUp(
        `the claim succeeded ${Date.now() - acknowledged} ms after the device registered it for ${durationMs} ms: ${world.shown(answer)}`,
      );
    }
    assert.ok(answer.status < 500, `the claim answered a server error: ${world.shown(answer)}`);
  }, durationMs + REGISTRATION_SLACK_MS);
}

Then(
  'once its {int} ms claim window has ended, the customer cannot claim {string} with the secret key {string}',
  async function (this: IotcWorld, durationMs: number, local: string, secretKey: string) {
    await claimFailsAfterWindow(this, durationMs, local, secretKey);
  },
);

/**
 * The profile's claimDurationMs is the platform's device.claim.duration. Waiting for it to end is only done when it
 * is short against the profile's timeouts (the embedded profile's is); a platform with a default of a day is not
 * waited for, and the step says so and is skipped rather than passed.
 */
Then(
  "once the platform's device.claim.duration has ended, the customer cannot claim {string} with the secret key {string}",
  async function (this: IotcWorld, local: string, secretKey: string) {
    const durationMs = this.run.target.claimDurationMs;
    const longestWaitMs = 10 * this.run.target.timeouts.eventuallyMs;
    if (durationMs > longestWaitMs) {
      this.log(
        `skipped: device.claim.duration is ${durationMs} ms in the target profile, more than the ${longestWaitMs} ms this scenario waits`,
      );
      return 'skipped';
    }
    await claimFailsAfterWindow(this, durationMs, local, secretKey);
    return undefined;
  },
);
