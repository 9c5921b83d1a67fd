/** Attributes read by the device, shared attributes set by the platform, and the attribute-updates long-poll. */
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import type { DeviceResponse } from '../simulators/device/http-device';
import type { IotcWorld } from './world';
import { sameJson } from './support/expectations';

const keyList = (text: string) => text.split(',').map((key) => key.trim()).filter(Boolean);

Given(/^the platform sets the (shared|server) attributes of "([^"]*)" to (.+)$/, async function (this: IotcWorld, scope: string, local: string, body: string) {
  const device = this.device(local);
  await this.run.admin.saveAttributes(device.record.id, scope === 'shared' ? 'SHARED_SCOPE' : 'SERVER_SCOPE', body);
});

When('the device {string} requests its attributes with clientKeys {string} and sharedKeys {string}', async function (this: IotcWorld, local: string, client: string, shared: string) {
  this.response = await this.device(local).driver.getAttributes({ clientKeys: keyList(client), sharedKeys: keyList(shared) });
});

When('the device {string} requests its attributes with clientKeys {string}', async function (this: IotcWorld, local: string, client: string) {
  this.response = await this.device(local).driver.getAttributes({ clientKeys: keyList(client) });
});

When('the device {string} requests its attributes with sharedKeys {string}', async function (this: IotcWorld, local: string, shared: string) {
  this.response = await this.device(local).driver.getAttributes({ sharedKeys: keyList(shared) });
});

When('the device {string} requests its attributes with no keys', async function (this: IotcWorld, local: string) {
  this.response = await this.device(local).driver.getAttributes();
});

When('the device {string} waits for shared attribute updates for up to {int} ms', function (this: IotcWorld, local: string, timeoutMs: number) {
  this.pending.set(`updates:${local}`, this.device(local).driver.pollAttributeUpdates(timeoutMs));
});

When('the device {string} is waiting for shared attribute updates for up to {int} ms', async function (this: IotcWorld, local: string, timeoutMs: number) {
  const poll = this.device(local).driver.pollAttributeUpdates(timeoutMs);
  this.pending.set(`updates:${local}`, poll);
  await waitUntilPolling();
});

/**
 * A long-poll only sees changes made after the platform received it. The request is on the wire when this resolves;
 * one turn of the event loop more lets the server register it. Bounded: a few milliseconds at most.
 */
export async function waitUntilPolling(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
}

Then(/^the attribute updates poll of "([^"]*)" answers 200 with (.+)$/, async function (this: IotcWorld, local: string, expected: string) {
  const response = (await this.pending.get(`updates:${local}`)) as DeviceResponse;
  assert.ok(response, 'no attribute updates poll was started');
  assert.equal(response.status, 200, `the poll answered ${response.status}: ${response.text}`);
  assert.ok(sameJson(response.json, expected), `the poll answered ${response.text}, expected ${expected}`);
});

Then('the attribute updates poll of {string} times out with {int} and an empty body after at least {int} ms', async function (this: IotcWorld, local: string, status: number, minimumMs: number) {
  const response = (await this.pending.get(`updates:${local}`)) as DeviceResponse;
  assert.ok(response, 'no attribute updates poll was started');
  assert.equal(response.status, status, `the poll answered ${response.status}: ${response.text}`);
  assert.equal(response.text, '', 'a timed-out poll has an empty body');
  assert.ok(response.elapsedMs >= minimumMs * 0.95, `the poll ended after ${Math.round(response.elapsedMs)} ms, before its timeout of ${minimumMs} ms`);
});

Then('the platform eventually holds the shared attribute {string} of {string}', async function (this: IotcWorld, key: string, local: string) {
  const device = this.device(local);
  await this.eventually(async () => {
    const stored = await this.run.admin.attributes(device.record.id, 'SHARED_SCOPE', [key]);
    assert.ok(stored.has(key), `the shared attribute ${key} is not stored`);
  });
});
