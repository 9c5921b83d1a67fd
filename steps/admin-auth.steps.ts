/**
 * Authentication of the administration REST API: login, the X-Authorization header with Bearer <JWT> or
 * ApiKey <key>, API keys, token lifetimes, and the interactive documentation. Credentials live in the world only;
 * steps name them by placeholders (<jwt>, <api key>, ...) so that no secret is written in a scenario or a report.
 */
import assert from 'node:assert/strict';
import { type DataTable, Given, Then, When } from '@cucumber/cucumber';
import { AdminClient, adminRequest, type AdminResponse, type Method } from '../src/admin-client';
import { toPlain } from '../lib/kv/values';
import type { IotcWorld } from './world';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

interface AuthState {
  answer?: AdminResponse;
  secrets: Map<string, string>;
  loggedInAt?: number;
  apiKeyId?: string;
  /** The lifetimes tokens of this scenario get: the target's stated ones, or those it set through the JWT settings. */
  lifetimes?: { accessSec?: number; refreshSec?: number };
}

const states = new WeakMap<IotcWorld, AuthState>();

/** The JWT the scenario obtained from the admin login (for the analytics steps); never print it. */
export function scenarioJwt(world: IotcWorld): string {
  const jwt = states.get(world)?.secrets.get('jwt');
  if (!jwt)
    throw new Error(
      'no JWT in this scenario: log in with "a JWT from the tenant administrator\'s login" first',
    );
  return jwt;
}
function auth(world: IotcWorld): AuthState {
  let state = states.get(world);
  if (!state) states.set(world, (state = { secrets: new Map() }));
  return state;
}

function request(
  world: IotcWorld,
  method: Method,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) {
  return adminRequest(world.run.target.adminUrl, method, path, {
    headers,
    body,
    timeoutMs: world.run.target.timeouts.requestMs,
    recorder: world.exchanges.record,
  });
}

/** Replaces <jwt>, <refresh token>, <api key>, <device id> in a header value or path with the scenario's values. */
function fill(world: IotcWorld, template: string): string {
  return template.replace(/<([a-z ]+)>/g, (_match, name: string) => {
    if (name === 'device id') return world.device('subject').record.id;
    const value = auth(world).secrets.get(name);
    if (value === undefined) throw new Error(`no ${name} in this scenario`);
    return value;
  });
}

function claimsOf(jwt: string): { iat: number; exp: number; sub?: string } {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

async function login(world: IotcWorld, password?: string): Promise<AdminResponse> {
  const { username, password: right } = world.run.target.tenantAdmin;
  const answer = await request(
    world,
    'POST',
    '/api/auth/login',
    { 'content-type': 'application/json' },
    { username, password: password ?? right },
  );
  auth(world).answer = answer;
  if (answer.status === 200) {
    const body = toPlain(answer.json) as { token: string; refreshToken: string };
    auth(world).secrets.set('jwt', body.token);
    auth(world).secrets.set('refresh token', body.refreshToken);
    auth(world).loggedInAt = Date.now();
  }
  return answer;
}

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
  const answer = auth(this).answer!;
  assert.equal(answer.status, 200, `login answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  const body = toPlain(answer.json) as { token?: unknown; refreshToken?: unknown };
  assert.equal(typeof body.token, 'string', 'the answer has no token');
  assert.match(body.token as string, JWT_SHAPE, 'the token is not a JWT');
  assert.equal(typeof body.refreshToken, 'string', 'the answer has no refreshToken');
  assert.ok((body.refreshToken as string).length > 0);
});

When(
  'the current user is requested with X-Authorization {string}',
  async function (this: IotcWorld, header: string) {
    auth(this).answer = await request(this, 'GET', '/api/auth/user', {
      'x-authorization': fill(this, header),
    });
  },
);

When('the current user is requested without X-Authorization', async function (this: IotcWorld) {
  auth(this).answer = await request(this, 'GET', '/api/auth/user');
});

When(
  'GET {string} is requested with X-Authorization {string}',
  async function (this: IotcWorld, path: string, header: string) {
    auth(this).answer = await request(this, 'GET', fill(this, path), {
      'x-authorization': fill(this, header),
    });
  },
);

When(
  'GET {string} is requested without X-Authorization',
  async function (this: IotcWorld, path: string) {
    auth(this).answer = await request(this, 'GET', fill(this, path));
  },
);

Then('the answer is the tenant administrator', function (this: IotcWorld) {
  const answer = auth(this).answer!;
  assert.equal(answer.status, 200, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  const user = toPlain(answer.json) as { email?: string; authority?: string };
  assert.equal(user.email, this.run.target.tenantAdmin.username);
});

Then('the answer is {int}', function (this: IotcWorld, status: number) {
  const answer = auth(this).answer!;
  assert.equal(answer.status, status, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
});

Then(
  'the answer is refused with {int} and errorCode {int}',
  function (this: IotcWorld, status: number, errorCode: number) {
    const answer = auth(this).answer!;
    assert.equal(answer.status, status, `answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    assert.equal(
      Number((toPlain(answer.json) as { errorCode?: unknown } | undefined)?.errorCode),
      errorCode,
      `error body ${answer.text.slice(0, 200)}`,
    );
  },
);

Given('a device {string} exists', async function (this: IotcWorld, local: string) {
  await this.createDevice(local);
});

// ---- API keys ----

async function createApiKey(world: IotcWorld, expirationTime: number): Promise<void> {
  const me = await world.run.admin.currentUser();
  const description = world.unique(`key-${Date.now()}`);
  const key = await world.track(
    'apiKey',
    description,
    async () => {
      const answer = await world.run.admin.session.call('POST', '/api/apiKey', {
        userId: toPlain(me.id),
        description,
        expirationTime,
        enabled: true,
      });
      const created = toPlain(answer.json) as { id: { id: string }; value: string };
      return { id: created.id.id, value: created.value };
    },
    async (created) =>
      void (await world.run.admin.session.raw('DELETE', `/api/apiKey/${created.id}`)),
  );
  assert.equal(typeof key.value, 'string', 'the created API key shows no value');
  auth(world).secrets.set('api key', key.value);
  auth(world).apiKeyId = key.id;
}

Given('an API key of the tenant administrator', async function (this: IotcWorld) {
  await createApiKey(this, 0);
});

Given(
  'an API key of the tenant administrator that expires in {int} ms',
  async function (this: IotcWorld, ms: number) {
    await createApiKey(this, Date.now() + ms);
    auth(this).secrets.set('expires at', String(Date.now() + ms));
  },
);

When(/^the API key is (disabled|enabled)$/, async function (this: IotcWorld, state: string) {
  await this.run.admin.session.call(
    'PUT',
    `/api/apiKey/${auth(this).apiKeyId}/enabled/${state === 'enabled'}`,
  );
});

When('the API key is deleted', async function (this: IotcWorld) {
  await this.run.admin.session.call('DELETE', `/api/apiKey/${auth(this).apiKeyId}`);
});

When('the expiry date of the API key has passed', async function (this: IotcWorld) {
  // the expiry is the behaviour under test: waiting it out is the effect itself
  const remaining = Number(auth(this).secrets.get('expires at')) + 50 - Date.now();
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
});

Then('the list of API keys does not show the value of the key', async function (this: IotcWorld) {
  const me = toPlain(await this.run.admin.currentUser()) as { id: { id: string } };
  const answer = await this.run.admin.session.call(
    'GET',
    `/api/apiKeys/${me.id.id}?pageSize=100&page=0`,
  );
  const keys = (toPlain(answer.json) as { data: Array<{ id: { id: string }; value?: string }> })
    .data;
  const listed = keys.find((key) => key.id.id === auth(this).apiKeyId);
  assert.ok(listed, 'the key is not listed');
  assert.equal(listed.value, undefined, 'the listed key shows its value');
});

// ---- token lifetimes ----

/**
 * Sets the token lifetimes through the system administrator's JWT settings (capability jwt-settings: it changes a
 * system setting, so never on staging) and puts the previous ones back after the scenario. Tokens issued from now
 * on live that long; the run's own sessions keep theirs.
 */
async function setLifetimes(
  world: IotcWorld,
  accessSec: number,
  refreshSec: number,
): Promise<void> {
  const { target } = world.run;
  assert.ok(target.sysAdmin, 'the jwt-settings capability needs platform.sysAdmin credentials');
  const sysadmin = await AdminClient.login(target.adminUrl, target.sysAdmin, {
    requestTimeoutMs: target.timeouts.requestMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
  });
  world.cleanups.push({ what: 'system administrator session', undo: () => sysadmin.close() });
  const previous = toPlain((await sysadmin.session.call('GET', '/api/admin/jwtSettings')).json) as {
    tokenExpirationTime: number;
    refreshTokenExpTime: number;
  };
  await sysadmin.session.call('POST', '/api/admin/jwtSettings', {
    ...previous,
    tokenExpirationTime: accessSec,
    refreshTokenExpTime: refreshSec,
  });
  world.cleanups.push({
    what: 'the JWT settings',
    undo: async () =>
      void (await sysadmin.session.call('POST', '/api/admin/jwtSettings', previous)),
  });
  auth(world).lifetimes = { accessSec, refreshSec };
}

function canSetLifetimes(world: IotcWorld): boolean {
  return world.run.target.capabilities.has('jwt-settings');
}

Given("the target's token lifetimes are known", async function (this: IotcWorld) {
  const stated = this.run.target.tokenLifetimes;
  if (stated.accessSec) auth(this).lifetimes = stated;
  // other values than the defaults, so that a target ignoring the settings shows
  else if (canSetLifetimes(this)) await setLifetimes(this, 7200, 172800);
  else return 'skipped';
  return undefined;
});

Given('the target runs with the default token lifetimes', function (this: IotcWorld) {
  if (this.run.target.tokenLifetimes.accessSec || this.run.target.tokenLifetimes.refreshSec)
    return 'skipped';
  return undefined;
});

Given(
  "the target's access token lifetime is short enough to wait for",
  async function (this: IotcWorld) {
    const stated = this.run.target.tokenLifetimes;
    if (stated.accessSec && stated.accessSec <= 10) auth(this).lifetimes = stated;
    else if (canSetLifetimes(this)) await setLifetimes(this, 2, 60);
    else return 'skipped';
    return undefined;
  },
);

function scenarioLifetimes(world: IotcWorld): { accessSec?: number; refreshSec?: number } {
  return auth(world).lifetimes ?? world.run.target.tokenLifetimes;
}

Then(
  'the access token lives {int} s and the refresh token {int} s',
  function (this: IotcWorld, access: number, refresh: number) {
    const secrets = auth(this).secrets;
    const token = claimsOf(secrets.get('jwt')!);
    const refreshToken = claimsOf(secrets.get('refresh token')!);
    assert.equal(token.exp - token.iat, access, 'access token lifetime (exp - iat)');
    assert.equal(
      refreshToken.exp - refreshToken.iat,
      refresh,
      'refresh token lifetime (exp - iat)',
    );
  },
);

Then('the tokens live as long as the target states', function (this: IotcWorld) {
  const secrets = auth(this).secrets;
  const { accessSec, refreshSec } = scenarioLifetimes(this);
  const token = claimsOf(secrets.get('jwt')!);
  assert.equal(token.exp - token.iat, accessSec, 'access token lifetime (exp - iat)');
  if (refreshSec) {
    const refreshToken = claimsOf(secrets.get('refresh token')!);
    assert.equal(
      refreshToken.exp - refreshToken.iat,
      refreshSec,
      'refresh token lifetime (exp - iat)',
    );
  }
});

When('the access token lifetime has passed', async function (this: IotcWorld) {
  // the lifetime is the behaviour under test: waiting it out is the effect itself. The wait is the lifetime the
  // target states, counted from the login, not the token's own exp: a token that claims a longer life must not
  // make the scenario wait for it (a step timeout would hide the defect and leave the timer running)
  const stated = scenarioLifetimes(this).accessSec;
  const loggedInAt = auth(this).loggedInAt;
  if (!stated || loggedInAt === undefined)
    throw new Error('no stated access token lifetime or no login in this scenario');
  const remaining = loggedInAt + stated * 1000 + 1000 - Date.now(); // exp is in whole seconds; a second more satisfies every reading of "past exp"
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
});

When('the refresh token is exchanged for a new token pair', async function (this: IotcWorld) {
  const answer = await request(
    this,
    'POST',
    '/api/auth/token',
    { 'content-type': 'application/json' },
    { refreshToken: auth(this).secrets.get('refresh token') },
  );
  assert.equal(answer.status, 200, `the refresh answered ${answer.status}`);
  auth(this).secrets.set('jwt', (toPlain(answer.json) as { token: string }).token);
});

// ---- interactive documentation ----

Then(
  'the interactive documentation page \\/swagger-ui.html is served with its scripts',
  async function (this: IotcWorld) {
    const page = await request(this, 'GET', '/swagger-ui.html', { accept: 'text/html' });
    assert.equal(page.status, 200, `/swagger-ui.html answered ${page.status}`);
    assert.match(page.text, /swagger-ui/i, 'the page is not Swagger UI');
    const scripts = [...page.text.matchAll(/<script[^>]+src="([^"]+)"/g)].map((match) => match[1]);
    assert.ok(scripts.length > 0, 'the page loads no script');
    for (const script of scripts) {
      const path = script.startsWith('http')
        ? new URL(script).pathname
        : script.startsWith('/')
          ? script
          : `/${script}`;
      const answer = await request(this, 'GET', path, { accept: '*/*' });
      assert.equal(answer.status, 200, `${path} answered ${answer.status}`);
    }
  },
);

interface ApiDescription {
  paths: Record<string, Record<string, unknown>>;
  components?: {
    securitySchemes?: Record<
      string,
      { type: string; in?: string; name?: string; description?: string; flows?: unknown }
    >;
  };
}

async function apiDescription(world: IotcWorld): Promise<ApiDescription> {
  const answer = await request(world, 'GET', '/v3/api-docs');
  assert.equal(answer.status, 200, `/v3/api-docs answered ${answer.status}`);
  return toPlain(answer.json) as ApiDescription;
}

/**
 * Whether a documented path template is the expected one: `{}` stands for any path parameter, and a literal may be
 * documented as a parameter too (ThingsBoard documents DEVICE as {entityType}).
 */
function samePath(documented: string, expected: string): boolean {
  const have = documented.split('/');
  const want = expected.split('/');
  const parameter = (segment: string) => /^\{[^}]*\}$/.test(segment);
  return (
    have.length === want.length &&
    want.every((segment, index) =>
      segment === '{}' ? parameter(have[index]) : segment === have[index] || parameter(have[index]),
    )
  );
}

Then(
  'its API description lists these endpoints:',
  async function (this: IotcWorld, table: DataTable) {
    const document = await apiDescription(this);
    // raw(): the table has no header row, every row is an endpoint
    const missing = table.raw().filter(([method, path]) => {
      const operations = Object.entries(document.paths).filter(([documented]) =>
        samePath(documented, path),
      );
      return !operations.some(([, byMethod]) => byMethod[method.toLowerCase()]);
    });
    assert.deepEqual(
      missing.map(([method, path]) => `${method} ${path}`),
      [],
      'endpoints the API description does not list',
    );
  },
);

Then(
  'its API description declares a JWT authorization and an API key authorization',
  async function (this: IotcWorld) {
    const document = await apiDescription(this);
    const schemes = Object.values(document.components?.securitySchemes ?? {});
    const headerSchemes = schemes.filter(
      (scheme) =>
        scheme.type === 'apiKey' &&
        scheme.in === 'header' &&
        /authorization/i.test(scheme.name ?? ''),
    );
    assert.ok(
      headerSchemes.some((scheme) => /api ?key/i.test(scheme.description ?? '')),
      'no API key authorization is declared',
    );
    assert.ok(
      headerSchemes.some((scheme) => /bearer|jwt/i.test(scheme.description ?? '')) ||
        schemes.some((scheme) => scheme.type === 'oauth2' || scheme.type === 'http'),
      'no JWT (login) authorization is declared',
    );
  },
);
