/**
 * Authorization of the admin REST API at the socket, every route x every caller: the expectations below are
 * written out by hand from ThingsBoard's controllers (@PreAuthorize, then the tenant/customer check of the entity),
 * independently of the table the router uses, so a wrong row in either shows up here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_ROUTES, type RunningPlatform } from '../../simulators/platform';
import { call, login, newDevice, start } from './support';

type Caller = 'anonymous' | 'SYS_ADMIN' | 'TENANT_ADMIN' | 'CUSTOMER_USER';
type Outcome = 'allowed' | 'denied' | 'unauthenticated';
const CALLERS: Caller[] = ['anonymous', 'SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'];
const CREDENTIALS: Record<Exclude<Caller, 'anonymous'>, [string, string]> = {
  SYS_ADMIN: ['sysadmin@thingsboard.org', 'sysadmin'],
  TENANT_ADMIN: ['tenant@thingsboard.org', 'tenant'],
  CUSTOMER_USER: ['customer@thingsboard.org', 'customer'],
};

/** Who gets through, for a device assigned to the customer and the caller's own API key and user. */
const P = 'public';
const S = 'SYS_ADMIN';
const T = 'TENANT_ADMIN';
const C = 'CUSTOMER_USER';
const TELEMETRY = '/api/plugins/telemetry/DEVICE/:deviceId';
const EXPECTED: Record<string, string[]> = {
  'POST /api/auth/login': [P],
  'POST /api/auth/token': [P],
  'GET /api/auth/user': [S, T, C],
  'POST /api/device': [T], // creating: a customer user has no CREATE on devices
  'GET /api/tenant/device': [T],
  'GET /api/tenant/devices': [T],
  'GET /api/device/:deviceId': [T, C],
  'GET /api/device/:deviceId/credentials': [T, C],
  'DELETE /api/device/:deviceId': [T],
  [`GET ${TELEMETRY}/values/timeseries`]: [T, C], // the system administrator has no device permission
  [`GET ${TELEMETRY}/keys/timeseries`]: [T, C],
  [`POST ${TELEMETRY}/timeseries/:scope`]: [T, C],
  [`GET ${TELEMETRY}/values/attributes`]: [T, C],
  [`GET ${TELEMETRY}/values/attributes/:scope`]: [T, C],
  [`POST ${TELEMETRY}/:scope`]: [T, C],
  [`POST ${TELEMETRY}/attributes/:scope`]: [T, C],
  [`DELETE ${TELEMETRY}/:scope`]: [T, C],
  [`GET ${TELEMETRY}/keys/attributes`]: [T, C],
  [`GET ${TELEMETRY}/values/timeseries/history`]: [T, C],
  [`DELETE ${TELEMETRY}/timeseries/delete`]: [T, C],
  'POST /api/plugins/telemetry/:deviceId/:scope': [T, C], // the legacy paths without the entity type
  'DELETE /api/plugins/telemetry/:deviceId/:scope': [T, C],
  'GET /api/customers': [T], // CustomerController: hasAuthority('TENANT_ADMIN')
  'POST /api/plugins/rpc/:kind/:deviceId': [T, C],
  'POST /api/rpc/:kind/:deviceId': [T, C],
  'GET /api/rpc/persistent/:rpcId': [T, C], // READ on an RPC: any user of its tenant (rpcPermissionChecker)
  'GET /api/rpc/persistent/device/:deviceId': [T, C],
  'POST /api/deviceProfile': [T],
  'GET /api/deviceProfile/:profileId': [T],
  'GET /api/deviceProfileInfo/default': [T, C],
  'GET /api/deviceProfiles': [T],
  'DELETE /api/deviceProfile/:profileId': [T],
  'POST /api/customer/device/:deviceName/claim': [C],
  'DELETE /api/customer/device/:deviceName/claim': [T, C],
  'POST /api/otaPackage': [T],
  'POST /api/otaPackage/:packageId': [T],
  'GET /api/otaPackage/info/:packageId': [T, C],
  'GET /api/otaPackages': [T, C],
  'DELETE /api/otaPackage/:packageId': [T],
  'POST /api/apiKey': [S, T, C],
  'GET /api/apiKeys/:userId': [S, T, C],
  'PUT /api/apiKey/:keyId/description': [S, T, C],
  'PUT /api/apiKey/:keyId/enabled/:enabled': [S, T, C],
  'DELETE /api/apiKey/:keyId': [S, T, C],
  'GET /api/tenantProfileInfo/default': [S],
  'GET /api/tenantProfile/:tenantProfileId': [S],
  'POST /api/tenantProfile': [S],
  'GET /api/admin/jwtSettings': [S],
  'POST /api/admin/jwtSettings': [S],
};

let platform: RunningPlatform;
let base: string;
const jwts = {} as Record<Exclude<Caller, 'anonymous'>, string>;
const userIds = {} as Record<Exclude<Caller, 'anonymous'>, string>;
let serial = 0;

before(async () => {
  platform = await start({ minServerRpcTimeoutMs: 0 });
  base = platform.httpUrl;
  for (const caller of Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>) {
    jwts[caller] = await login(base, ...CREDENTIALS[caller]);
    userIds[caller] = (await call(base, 'GET', '/api/auth/user', { jwt: jwts[caller] })).json.id.id;
  }
});
after(() => platform.close());

/** A fresh device claimed by the customer (its customerId is the customer's), and one assigned to no one. */
async function devices(): Promise<{
  own: { id: string; name: string };
  foreign: { id: string; name: string };
}> {
  serial += 1;
  const ownName = `authz-own-${serial}`;
  const own = await newDevice(base, jwts.TENANT_ADMIN, ownName);
  const registered = await call(base, 'POST', `/api/v1/${own.token}/claim`, {
    body: { secretKey: 'k', durationMs: 60_000 },
  });
  assert.equal(registered.status, 200);
  const claimed = await call(base, 'POST', `/api/customer/device/${ownName}/claim`, {
    body: { secretKey: 'k' },
    jwt: jwts.CUSTOMER_USER,
  });
  assert.equal(claimed.status, 200, claimed.text);
  const foreignName = `authz-foreign-${serial}`;
  const foreign = await newDevice(base, jwts.TENANT_ADMIN, foreignName);
  return { own: { id: own.id, name: ownName }, foreign: { id: foreign.id, name: foreignName } };
}

async function apiKeyOf(owner: Exclude<Caller, 'anonymous'>): Promise<string> {
  const created = await call(base, 'POST', '/api/apiKey', {
    body: { userId: { id: userIds[owner], entityType: 'USER' }, description: 'authz' },
    jwt: jwts[owner],
  });
  assert.equal(created.status, 200, created.text);
  return created.json.id.id;
}

/** Path parameters and a body that let a permitted caller through to the handler. */
async function requestFor(
  method: string,
  path: string,
  caller: Caller,
  deviceId: string,
  deviceName: string,
): Promise<{ path: string; body?: unknown }> {
  serial += 1;
  const owner = caller === 'anonymous' ? 'TENANT_ADMIN' : caller;
  const values: Record<string, () => Promise<string> | string> = {
    deviceId: () => deviceId,
    deviceName: () => deviceName,
    kind: () => 'oneway',
    rpcId: async () =>
      (
        await call(base, 'POST', `/api/rpc/oneway/${deviceId}`, {
          body: { method: 'm', params: {}, persistent: true },
          jwt: jwts.TENANT_ADMIN,
        })
      ).json.rpcId,
    scope: () => (path.includes('timeseries') ? 'ANY' : 'SERVER_SCOPE'),
    profileId: async () =>
      (await call(base, 'GET', '/api/deviceProfileInfo/default', { jwt: jwts.TENANT_ADMIN })).json
        .id.id,
    packageId: async () =>
      (
        await call(base, 'POST', '/api/otaPackage', {
          body: { title: `authz-${serial}`, version: '1', type: 'FIRMWARE' },
          jwt: jwts.TENANT_ADMIN,
        })
      ).json.id.id,
    userId: () => userIds[owner],
    keyId: () => apiKeyOf(owner),
    enabled: () => 'false',
    tenantProfileId: async () =>
      (await call(base, 'GET', '/api/tenantProfileInfo/default', { jwt: jwts.SYS_ADMIN })).json.id
        .id,
  };
  let filled = path;
  for (const [, name] of path.matchAll(/:([A-Za-z]+)/g)) {
    const value = values[name];
    assert.ok(value, `no value for :${name}`);
    filled = filled.replace(`:${name}`, encodeURIComponent(await value()));
  }
  const query: Record<string, string> = {
    'GET /api/tenant/device': `?deviceName=${encodeURIComponent(deviceName)}`,
    'GET /api/tenant/devices': '?pageSize=10&page=0',
    'GET /api/rpc/persistent/device/:deviceId': '?pageSize=10&page=0',
    'GET /api/deviceProfiles': '?pageSize=10&page=0',
    'GET /api/otaPackages': '?pageSize=10&page=0',
    'GET /api/apiKeys/:userId': '?pageSize=10&page=0',
    [`DELETE ${TELEMETRY}/:scope`]: '?keys=k',
    'DELETE /api/plugins/telemetry/:deviceId/:scope': '?keys=k',
    [`GET ${TELEMETRY}/values/timeseries/history`]: '?keys=k&startTs=0&endTs=1',
    [`DELETE ${TELEMETRY}/timeseries/delete`]: '?keys=k&deleteAllDataForKeys=true',
    'GET /api/customers': '?pageSize=10&page=0',
  };
  filled += query[`${method} ${path}`] ?? '';
  const bodies: Record<string, unknown> = {
    'POST /api/auth/login': { username: 'tenant@thingsboard.org', password: 'tenant' },
    'POST /api/device': { name: `authz-new-${serial}` },
    'POST /api/deviceProfile': { name: `authz-profile-${serial}` },
    'POST /api/otaPackage': { title: `authz-new-${serial}`, version: '1', type: 'FIRMWARE' },
    'POST /api/plugins/rpc/:kind/:deviceId': { method: 'm', params: {}, timeout: 1 },
    'POST /api/rpc/:kind/:deviceId': { method: 'm', params: {}, timeout: 1 },
    'POST /api/apiKey': { userId: { id: userIds[owner] }, description: 'x' },
    'POST /api/customer/device/:deviceName/claim': { secretKey: 'wrong' },
    // the defaults again: the other routes' callers keep valid tokens
    'POST /api/admin/jwtSettings': { tokenExpirationTime: 9000, refreshTokenExpTime: 604800 },
  };
  let body = bodies[`${method} ${path}`] ?? (method === 'POST' ? { k: 1 } : undefined);
  if (path === '/api/auth/token') {
    const pair = await call(base, 'POST', '/api/auth/login', {
      body: { username: 'tenant@thingsboard.org', password: 'tenant' },
    });
    body = { refreshToken: pair.json.refreshToken };
  }
  return { path: filled, body };
}

function outcomeOf(status: number, errorCode: unknown): Outcome {
  if (status === 401) return 'unauthenticated';
  if (status === 403 && errorCode === 20) return 'denied';
  return 'allowed';
}

function expectedOutcome(key: string, caller: Caller): Outcome {
  const allowed = EXPECTED[key];
  if (allowed.includes(P)) return 'allowed';
  if (caller === 'anonymous') return 'unauthenticated';
  return allowed.includes(caller) ? 'allowed' : 'denied';
}

async function outcome(
  method: string,
  path: string,
  caller: Caller,
  device: { id: string; name: string },
): Promise<{ outcome: Outcome; status: number; text: string }> {
  const request = await requestFor(method, path, caller, device.id, device.name);
  const answer = await call(base, method, request.path, {
    body: request.body,
    jwt: caller === 'anonymous' ? undefined : jwts[caller],
  });
  return {
    outcome: outcomeOf(answer.status, answer.json?.errorCode),
    status: answer.status,
    text: answer.text,
  };
}

test('every admin route has a hand-written expectation, and every expectation a route', () => {
  const served = ADMIN_ROUTES.map((route) => `${route.method} ${route.path}`).sort();
  assert.deepEqual(served, Object.keys(EXPECTED).sort());
});

test('every route x caller, on a device assigned to the customer and the caller’s own API key', async () => {
  const wrong: string[] = [];
  for (const route of ADMIN_ROUTES) {
    const key = `${route.method} ${route.path}`;
    for (const caller of CALLERS) {
      const { own } = await devices();
      const got = await outcome(route.method, route.path, caller, own);
      if (got.outcome !== expectedOutcome(key, caller))
        wrong.push(
          `${key} as ${caller}: ${got.outcome} (${got.status} ${got.text.slice(0, 80)}), expected ${expectedOutcome(key, caller)}`,
        );
    }
  }
  assert.deepEqual(wrong, []);
});

test('a customer user and the system administrator cannot touch a device not assigned to the customer', async () => {
  const wrong: string[] = [];
  const deviceRoutes = ADMIN_ROUTES.filter(
    (route) => route.path.includes(':deviceId') || route.path.includes(':deviceName'),
  );
  assert.ok(deviceRoutes.length >= 14);
  for (const route of deviceRoutes) {
    const key = `${route.method} ${route.path}`;
    for (const caller of ['SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'] as const) {
      const { foreign } = await devices();
      const got = await outcome(route.method, route.path, caller, foreign);
      // reclaiming by name skips the customer check in ThingsBoard too (CLAIM_DEVICES): any device of the tenant
      const expected = route.path.includes(':deviceName')
        ? expectedOutcome(key, caller)
        : caller === 'TENANT_ADMIN'
          ? expectedOutcome(key, caller)
          : 'denied';
      if (got.outcome !== expected)
        wrong.push(`${key} as ${caller}: ${got.outcome} (${got.status}), expected ${expected}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a customer user saves its own device but creates none and deletes none', async () => {
  const { own } = await devices();
  const saved = await call(base, 'POST', '/api/device', {
    body: { id: { id: own.id }, name: own.name, label: 'mine' },
    jwt: jwts.CUSTOMER_USER,
  });
  assert.equal(saved.status, 200, saved.text);
  assert.equal(saved.json.label, 'mine');
  const created = await call(base, 'POST', '/api/device', {
    body: { name: 'authz-customer-made' },
    jwt: jwts.CUSTOMER_USER,
  });
  assert.equal(created.status, 403);
  const found = await call(base, 'GET', '/api/tenant/device?deviceName=authz-customer-made', {
    jwt: jwts.TENANT_ADMIN,
  });
  assert.equal(found.status, 404);
});

test('API keys: the tenant administrator cannot disable or delete the system administrator’s key', async () => {
  const cases: Array<[Exclude<Caller, 'anonymous'>, Exclude<Caller, 'anonymous'>, Outcome]> = [
    ['TENANT_ADMIN', 'SYS_ADMIN', 'denied'],
    ['CUSTOMER_USER', 'TENANT_ADMIN', 'denied'],
    ['CUSTOMER_USER', 'SYS_ADMIN', 'denied'],
    ['SYS_ADMIN', 'CUSTOMER_USER', 'denied'],
    ['SYS_ADMIN', 'TENANT_ADMIN', 'allowed'],
    ['TENANT_ADMIN', 'CUSTOMER_USER', 'allowed'],
  ];
  const wrong: string[] = [];
  for (const [actor, owner, expected] of cases) {
    const operations: Array<[string, string, unknown?]> = [
      ['PUT', `/api/apiKey/${await apiKeyOf(owner)}/enabled/false`],
      ['PUT', `/api/apiKey/${await apiKeyOf(owner)}/description`, 'changed'],
      ['DELETE', `/api/apiKey/${await apiKeyOf(owner)}`],
      ['GET', `/api/apiKeys/${userIds[owner]}?pageSize=10&page=0`],
      ['POST', '/api/apiKey', { userId: { id: userIds[owner] }, description: 'for another' }],
    ];
    for (const [method, path, body] of operations) {
      const answer = await call(base, method, path, { body, jwt: jwts[actor] });
      const got = outcomeOf(answer.status, answer.json?.errorCode);
      if (got !== expected)
        wrong.push(`${actor} ${method} ${path} (key of ${owner}): ${got}, expected ${expected}`);
    }
  }
  assert.deepEqual(wrong, []);
  // what was refused did not happen: the system administrator's key still authenticates
  const survivor = await call(base, 'POST', '/api/apiKey', {
    body: { description: 'survivor' },
    jwt: jwts.SYS_ADMIN,
  });
  for (const path of [`/api/apiKey/${survivor.json.id.id}/enabled/false`]) {
    assert.equal((await call(base, 'PUT', path, { jwt: jwts.TENANT_ADMIN })).status, 403);
  }
  assert.equal(
    (await call(base, 'DELETE', `/api/apiKey/${survivor.json.id.id}`, { jwt: jwts.TENANT_ADMIN }))
      .status,
    403,
  );
  const user = await call(base, 'GET', '/api/auth/user', {
    headers: { 'x-authorization': `ApiKey ${survivor.json.value}` },
  });
  assert.equal(user.status, 200);
  assert.equal(user.json.authority, 'SYS_ADMIN');
});
