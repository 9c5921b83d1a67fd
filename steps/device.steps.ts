/** Devices and the answers of the device API: the steps every HTTP feature shares. */
import assert from 'node:assert/strict';
import { Given, Then, When } from './support/cucumber';
import type { IotcWorld } from './world';
import { sameJson } from './support/expectations';
import { deviceRequest } from '../simulators/device/http-device';
import { refusalAnswerSchema } from '../schemas/target-answers';
import { answerOf } from './support/answer-of';

Given('a device {string} with an access token', async function (this: IotcWorld, local: string) {
  await this.createDevice(local);
});

/**
 * A request to any path of the HTTP device API in which `{token}` stands for the device's access
 * token (so the token never appears in a scenario). A POST carries the JSON body {}.
 */
When(
  /^the device "([^"]*)" sends (GET|POST) (\/\S*\{token\}\S*)$/,
  async function (this: IotcWorld, local: string, method: 'GET' | 'POST', path: string) {
    const device = this.device(local);
    const resolved = path.replace('{token}', encodeURIComponent(device.token));
    this.response = await request(this, method, resolved);
  },
);

/**
 * The same with a body sent exactly as written (malformed JSON included), with Content-Type:
 * application/json.
 */
When(
  /^the device "([^"]*)" sends POST (\/\S*\{token\}\S*) with the body (.+)$/,
  async function (this: IotcWorld, local: string, path: string, body: string) {
    const device = this.device(local);
    this.response = await deviceRequest(
      this.run.target.httpUrl,
      'POST',
      path.replace('{token}', encodeURIComponent(device.token)),
      { raw: body },
      {
        requestTimeoutMs: this.run.target.timeouts.requestMs,
        dispatcher: this.run.deviceDispatcher,
        recorder: this.exchanges.record,
      },
    );
  },
);

/**
 * A request to a literal path, with no device token of this scenario in it (unknown tokens, other
 * versions).
 */
When(
  /^a client sends (GET|POST) (\/\S+)$/,
  async function (this: IotcWorld, method: 'GET' | 'POST', path: string) {
    this.response = await request(this, method, path);
  },
);

/**
 * The device's access token with the case of every letter swapped: another token, unless the token
 * has no letter (then the step is skipped: there is no other case to try).
 */
When(
  'a client posts telemetry with the access token of {string} in another case',
  async function (this: IotcWorld, local: string) {
    const token = this.device(local).token;
    const swapped = [...token]
      .map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()))
      .join('');
    if (swapped === token) {
      this.log('skipped: the access token has no letter, so it has no other case');
      return 'skipped';
    }
    this.redactor.addSecret(swapped);
    this.response = await request(this, 'POST', `/api/v1/${encodeURIComponent(swapped)}/telemetry`);
    return undefined;
  },
);

function request(world: IotcWorld, method: 'GET' | 'POST', path: string) {
  return deviceRequest(
    world.run.target.httpUrl,
    method,
    path,
    method === 'POST' ? { json: {} } : undefined,
    {
      requestTimeoutMs: world.run.target.timeouts.requestMs,
      dispatcher: world.run.deviceDispatcher,
      recorder: world.exchanges.record,
    },
  );
}

Then('the response status is {int}', function (this: IotcWorld, status: number) {
  const response = this.lastResponse();
  assert.equal(response.status, status, `expected status ${status}, got ${this.shown(response)}`);
});

Then('the response body is empty', function (this: IotcWorld) {
  const response = this.lastResponse();
  assert.equal(response.text, '', `expected an empty body, got ${this.shown(response)}`);
});

function assertJsonBody(world: IotcWorld, expected: string): void {
  const response = world.lastResponse();
  assert.ok(response.json !== undefined, `expected a JSON body, got ${world.shown(response)}`);
  assert.ok(
    sameJson(response.json, expected),
    `expected ${expected}, got ${world.shown(response)}`,
  );
}

Then(/^the response body is the JSON (.+)$/, function (this: IotcWorld, expected: string) {
  assertJsonBody(this, expected);
});

Then('the response body is the JSON:', function (this: IotcWorld, expected: string) {
  assertJsonBody(this, expected);
});

/**
 * ThingsBoard's documented error body (ThingsboardErrorResponseHandler;
 * docs/reference/platform-facts.md §8): {status (the answer's), message, errorCode, timestamp}.
 */
Then(
  "the response is ThingsBoard's error JSON with errorCode {int}",
  function (this: IotcWorld, errorCode: number) {
    const response = this.lastResponse();
    const body = answerOf(
      refusalAnswerSchema,
      response,
      `${response.request.method} ${response.request.url}`,
    );
    assert.equal(body.errorCode, errorCode, `the error body: ${this.shown(response)}`);
    assert.equal(body.status, response.status, `the error body's status: ${this.shown(response)}`);
  },
);

Then('the response body is a JSON document', function (this: IotcWorld) {
  const response = this.lastResponse();
  assert.ok(response.json !== undefined, `expected a JSON document, got ${this.shown(response)}`);
});
