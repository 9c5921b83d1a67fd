/** Device claiming: the device registers a claim, the customer claims the device with the secret key. */
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import type { AdminResponse } from '../src/admin-client';
import type { IotcWorld } from './world';

When(/^the device "([^"]*)" posts the claim (.+)$/, async function (this: IotcWorld, local: string, body: string) {
  this.response = await this.device(local).driver.claim({ raw: body });
  this.ids.set(`claim-acknowledged:${local}`, String(Date.now()));
});

/** The claim window is the behaviour under test: waiting it out is the effect itself, measured from the answer. */
When('the claim window of {string} of {int} ms has passed', async function (this: IotcWorld, local: string, durationMs: number) {
  const acknowledged = Number(this.ids.get(`claim-acknowledged:${local}`));
  assert.ok(acknowledged, 'the device has posted no claim');
  const remaining = acknowledged + durationMs + 50 - Date.now();
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
});

When('the device {string} posts a claim with no body', async function (this: IotcWorld, local: string) {
  this.response = await this.device(local).driver.claim();
});

async function customerClaims(world: IotcWorld, local: string, secretKey: string): Promise<AdminResponse> {
  const customer = world.run.customer;
  assert.ok(customer, 'the target profile names no customerUser, who claims devices');
  const device = world.device(local);
  const answer = await customer.claimDevice(device.record.name, secretKey);
  if (answer.status === 200) {
    world.cleanups.push({ what: `claim of ${device.record.name}`, undo: async () => void (await customer.reclaimDevice(device.record.name)) });
  }
  return answer;
}

Then('the customer can claim {string} with the secret key {string}', async function (this: IotcWorld, local: string, secretKey: string) {
  const answer = await customerClaims(this, local, secretKey);
  assert.equal(answer.status, 200, `the claim answered ${answer.status}: ${answer.text}`);
  assert.equal((answer.json as { response?: string }).response, 'SUCCESS', `the claim answered ${answer.text}`);
});

Then('the customer cannot claim {string} with the secret key {string}', async function (this: IotcWorld, local: string, secretKey: string) {
  const answer = await customerClaims(this, local, secretKey);
  assert.notEqual(answer.status, 200, `the claim with the wrong key succeeded: ${answer.text}`);
  assert.ok(answer.status < 500, `the claim answered the server error ${answer.status}`);
});

