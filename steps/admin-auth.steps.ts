/**
 * Authentication of the administration REST API: login, the X-Authorization header with Bearer
 * <JWT> or ApiKey <key>, and API keys (token lifetimes: token-lifetimes.steps.ts; the interactive
 * documentation: api-documentation.steps.ts). Credentials live in the world only; steps name them
 * by placeholders (<jwt>, <api key>, ...) so that no secret is written in a scenario or a report.
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from './support/cucumber';
import {
  apiKeyPageSchema,
  createdApiKeySchema,
  currentUserSchema,
  loginAnswerSchema,
  refusalAnswerSchema,
} from '../schemas/target-answers';
import type { IotcWorld } from './world';
import {
  JWT_SHAPE,
  fill,
  login,
  refusalNearExpiry,
  request,
  requestOf,
} from './support/admin-auth';
import { answerOf } from './support/answer-of';
import { REQUEST_ROUND_TRIPS, spanOverNetwork } from './support/timing';

When(
  'the tenant administrator logs in with user name and password',
  async function (this: IotcWorld) {
    await login(this);
  },
);

Given("a JWT from the tenant administrator's login", async function (this: IotcWorld) {
  const answer = await login(this);
  assert.equal(answer.status, 200, `login answered ${answer.status}`);
});

When('the tenant administrator logs in with a wrong password', async function (this: IotcWorld) {
  await login(this, `wrong-${Date.now()}`);
});

Then('the login answers a JWT access token and a refresh token', function (this: IotcWorld) {
  const answer = this.adminAuth.answer!;
  assert.equal(answer.status, 200, `login answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  const body = answerOf(loginAnswerSchema, answer, requestOf(answer));
  assert.match(body.token, JWT_SHAPE, 'the token is not a JWT');
  assert.ok(body.refreshToken.length > 0, 'the refreshToken is empty');
});

When(
  'the current user is requested with X-Authorization {string}',
  async function (this: IotcWorld, header: string) {
    const sentAt = Date.now();
    this.adminAuth.answer = await request(this, 'GET', '/api/auth/user', {
      'x-authorization': fill(this, header),
    });
    if (
      header.includes('<jwt>') &&
      this.adminAuth.answer.status === 401 &&
      !this.adminAuth.accessLifetimeWaited
    )
      refusalNearExpiry(
        this,
        this.adminAuth.secrets.get('jwt'),
        sentAt,
        'the access token',
        Date.now(),
      );
  },
);

When('the current user is requested without X-Authorization', async function (this: IotcWorld) {
  this.adminAuth.answer = await request(this, 'GET', '/api/auth/user');
});

When(
  'GET {string} is requested with X-Authorization {string}',
  async function (this: IotcWorld, path: string, header: string) {
    this.adminAuth.answer = await request(this, 'GET', fill(this, path), {
      'x-authorization': fill(this, header),
    });
  },
);

When(
  'GET {string} is requested without X-Authorization',
  async function (this: IotcWorld, path: string) {
    this.adminAuth.answer = await request(this, 'GET', fill(this, path));
  },
);

Then('the answer is the tenant administrator', function (this: IotcWorld) {
  const answer = this.adminAuth.answer!;
  assert.equal(answer.status, 200, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  const user = answerOf(currentUserSchema, answer, requestOf(answer));
  assert.equal(user.email, this.run.target.tenantAdmin.username);
});

Then(
  'the answer is a redirect to the login page {string}, serving nothing',
  function (this: IotcWorld, page: string) {
    const answer = this.adminAuth.answer!;
    assert.ok(
      [301, 302, 303, 307, 308].includes(answer.status),
      `answered ${answer.status}, not a redirect: ${answer.text.slice(0, 200)}`,
    );
    const target = new URL(answer.location ?? '', `${this.run.target.adminUrl}/`);
    assert.equal(target.pathname, page, `redirected to ${answer.location}`);
    assert.ok(
      !answer.text.includes(this.run.target.tenantAdmin.username),
      'the redirect carries the user',
    );
  },
);

Then('the answer is {int}', function (this: IotcWorld, status: number) {
  const answer = this.adminAuth.answer!;
  assert.equal(answer.status, status, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
});

Then(
  'the answer is refused with {int} and errorCode {int}',
  function (this: IotcWorld, status: number, errorCode: number) {
    const answer = this.adminAuth.answer!;
    assert.equal(answer.status, status, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    // the whole documented shape, not the code alone: {status (the answer's), message, errorCode,
    // timestamp}
    const body = answerOf(refusalAnswerSchema, answer, requestOf(answer));
    assert.equal(body.errorCode, errorCode, `error body ${answer.text.slice(0, 200)}`);
    assert.equal(body.status, status, `the error body's status: ${answer.text.slice(0, 200)}`);
  },
);

Given('a device {string} exists', async function (this: IotcWorld, local: string) {
  await this.createDevice(local);
});

// ---- API keys ----

async function currentUser(world: IotcWorld) {
  const answer = await world.run.admin.session.call('GET', '/api/auth/user');
  return answerOf(currentUserSchema, answer, 'GET /api/auth/user');
}

async function createApiKey(world: IotcWorld, expirationTime: number): Promise<void> {
  const me = await currentUser(world);
  const description = world.unique(`key-${Date.now()}`);
  const key = await world.track(
    'apiKey',
    description,
    async () => {
      const answer = await world.run.admin.session.call('POST', '/api/apiKey', {
        userId: me.id,
        description,
        expirationTime,
        enabled: true,
      });
      const created = answerOf(createdApiKeySchema, answer, 'POST /api/apiKey');
      return { id: created.id.id, value: created.value };
    },
    async (created) =>
      void (await world.run.admin.session.raw('DELETE', `/api/apiKey/${created.id}`)),
  );
  world.adminAuth.secrets.set('api key', key.value);
  world.adminAuth.apiKeyId = key.id;
  world.adminAuth.apiKeyMadeAt = Date.now();
}

Given('an API key of the tenant administrator', async function (this: IotcWorld) {
  await createApiKey(this, 0);
});

Given(
  'an API key of the tenant administrator that expires in {int} ms',
  async function (this: IotcWorld, ms: number) {
    // the key must still be valid when the next request reaches the target: its answer and that
    // request cross the network, a round trip each, and a parallel run's queue adds more (timing.ts
    // spanOverNetwork)
    const lifetimeMs = spanOverNetwork(ms, this.run.target.timeouts, REQUEST_ROUND_TRIPS);
    const expiresAt = Date.now() + lifetimeMs;
    await createApiKey(this, expiresAt);
    this.adminAuth.secrets.set('expires at', String(expiresAt));
    if (lifetimeMs !== ms)
      this.log(`the key's lifetime: ${lifetimeMs} ms (${ms} ms and the network's round trips)`);
  },
);

When(/^the API key is (disabled|enabled)$/, async function (this: IotcWorld, state: string) {
  await this.run.admin.session.call(
    'PUT',
    `/api/apiKey/${this.adminAuth.apiKeyId}/enabled/${state === 'enabled'}`,
  );
});

When('the API key is deleted', async function (this: IotcWorld) {
  await this.run.admin.session.call('DELETE', `/api/apiKey/${this.adminAuth.apiKeyId}`);
});

When('the expiry date of the API key has passed', async function (this: IotcWorld) {
  // the expiry is the behaviour under test: waiting it out is the effect itself
  const remaining = Number(this.adminAuth.secrets.get('expires at')) + 50 - Date.now();
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
});

Then('the list of API keys does not show the value of the key', async function (this: IotcWorld) {
  const me = await currentUser(this);
  const path = `/api/apiKeys/${me.id.id}?pageSize=100&page=0`;
  const answer = await this.run.admin.session.call('GET', path);
  const keys = answerOf(apiKeyPageSchema, answer, `GET ${path}`).data;
  const listed = keys.find((key) => key.id.id === this.adminAuth.apiKeyId);
  assert.ok(listed, 'the key is not listed');
  assert.equal(listed.value, undefined, 'the listed key shows its value');
});
