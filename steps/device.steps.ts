/** Devices and the answers of the device API: the steps every HTTP feature shares. */
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import type { IotcWorld } from './world';
import { sameJson } from './support/expectations';
import { deviceRequest } from '../simulators/device/http-device';

Given('a device {string} with an access token', async function (this: IotcWorld, local: string) {
  await this.createDevice(local);
});

When(/^the device "([^"]*)" sends (GET|POST) \/api\/v1\/\{token\}\/(\S+)$/, async function (this: IotcWorld, local: string, method: 'GET' | 'POST', resource: string) {
  this.response = await this.device(local).driver.request(method, resource, method === 'POST' ? { json: {} } : undefined);
});

When(/^a client sends (GET|POST) (\/api\/\S+)$/, async function (this: IotcWorld, method: 'GET' | 'POST', path: string) {
  this.response = await deviceRequest(this.run.target.httpUrl, method, path, method === 'POST' ? { json: {} } : undefined, {
    requestTimeoutMs: this.run.target.timeouts.requestMs,
    dispatcher: this.run.deviceDispatcher,
  });
});

Then('the response status is {int}', function (this: IotcWorld, status: number) {
  const response = this.lastResponse();
  assert.equal(response.status, status, `expected status ${status}, got ${response.status} with body ${response.text.slice(0, 300)}`);
});

Then('the response status is not a server error', function (this: IotcWorld) {
  const response = this.lastResponse();
  assert.ok(response.status < 500, `a client mistake got the server error ${response.status}: ${response.text.slice(0, 300)}`);
});

Then('the response status is not {int}', function (this: IotcWorld, status: number) {
  const response = this.lastResponse();
  assert.notEqual(response.status, status, `expected any status but ${status}: ${response.text.slice(0, 300)}`);
});

Then('the response body is empty', function (this: IotcWorld) {
  assert.equal(this.lastResponse().text, '', 'expected an empty body');
});

Then(/^the response body is the JSON (.+)$/, function (this: IotcWorld, expected: string) {
  const response = this.lastResponse();
  assert.ok(response.json !== undefined, `expected a JSON body, got: ${response.text.slice(0, 300)}`);
  assert.ok(sameJson(response.json, expected), `expected ${expected}, got ${response.text}`);
});

Then('the response body is the JSON:', function (this: IotcWorld, expected: string) {
  const response = this.lastResponse();
  assert.ok(response.json !== undefined, `expected a JSON body, got: ${response.text.slice(0, 300)}`);
  assert.ok(sameJson(response.json, expected), `expected ${expected}, got ${response.text}`);
});
