/**
 * Authorization of the admin REST API at the socket, every route x every caller: the expectations
 * below are written out by hand from ThingsBoard's controllers (@PreAuthorize, then the
 * tenant/customer check of the entity), independently of the table the router uses, so a wrong row
 * in either shows up here.
 *
 * The same matrix runs by hand against a real ThingsBoard (issue 26 item 7):
 * `IOTC_AUTHZ_URL=http://host:port` (tenant@thingsboard.org / tenant, customer@thingsboard.org /
 * customer and sysadmin@thingsboard.org / sysadmin, or
 * IOTC_AUTHZ_{TENANT,CUSTOMER,SYSADMIN}=user:password). There it changes no global setting: the
 * system administrator's allowed writes of the tenant profile and the JWT settings are not sent
 * (their denied cells are), and everything the test creates carries a run tag and is deleted at the
 * end (devices, device profiles, firmware packages, API keys).
 * docs/concepts/authorization-thingsboard.md has the last comparison.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_ROUTES, type RunningPlatform } from '../../simulators/platform';
import { randomUUID } from 'node:crypto';
import { untilEffective } from '../../steps/support/timing';
import { call, login, newDevice, start } from './support';

type Caller = 'anonymous' | 'SYS_ADMIN' | 'TENANT_ADMIN' | 'CUSTOMER_USER';
type Outcome = 'allowed' | 'denied' | 'unauthenticated';
const CALLERS: Caller[] = ['anonymous', 'SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'];
const TELEMETRY = '/api/plugins/telemetry/DEVICE/:deviceId';
/** A real platform to run the matrix against (by hand), instead of the reference. */
const REMOTE = process.env.IOTC_AUTHZ_URL?.replace(/\/$/, '');
function credentials(variable: string, user: string, password: string): [string, string] {
  const given = process.env[variable];
  if (!given) return [user, password];
  const at = given.indexOf(':');
  return [given.slice(0, at), given.slice(at + 1)];
}
const CREDENTIALS: Record<Exclude<Caller, 'anonymous'>, [string, string]> = {
  SYS_ADMIN: credentials('IOTC_AUTHZ_SYSADMIN', 'sysadmin@thingsboard.org', 'sysadmin'),
  TENANT_ADMIN: credentials('IOTC_AUTHZ_TENANT', 'tenant@thingsboard.org', 'tenant'),
  CUSTOMER_USER: credentials('IOTC_AUTHZ_CUSTOMER', 'customer@thingsboard.org', 'customer'),
};
/**
 * Every name the test gives carries it: a real platform's leftovers of this run are found and
 * deleted by it.
 */
const TAG = `iotc-authz-${randomUUID().slice(0, 8)}-`;
/**
 * Cells not sent to a real platform: an allowed call would change a global setting other users of
 * it depend on. Their refusals (every other caller) are still checked.
 */
const GLOBAL_WRITES = new Set(['POST /api/tenantProfile', 'POST /api/admin/jwtSettings']);
/**
 * Cells where ThingsBoard CE 4.3.1.3 is known to answer otherwise than its own controllers' rules
 * (and the reference): expected there when the matrix runs against it (`IOTC_AUTHZ_URL`), each with
 * the cause in ThingsBoard's source. A real platform that differs anywhere else fails the run; one
 * that no longer differs here fails it too.
 */
const THINGSBOARD_DIFFERENCES: Record<string, string> = {
  // DefaultTbTelemetryService.getTimeseries (DefaultTbTelemetryService.java:55-67) takes
  // AccessValidator's answer in onSuccess and reads without looking at its result code: the denial
  // (validateDevice, AccessValidator.java:232- 234 for the system administrator; the customer check
  // for a foreign device) is ignored, and the history of any device by id is answered (measured:
  // the values of another customer's device, to the system administrator too)
  [`GET ${TELEMETRY}/values/timeseries/history as SYS_ADMIN`]: 'allowed',
  [`GET ${TELEMETRY}/values/timeseries/history as CUSTOMER_USER on a foreign device`]: 'allowed',
  [`GET ${TELEMETRY}/values/timeseries/history as SYS_ADMIN on a foreign device`]: 'allowed',
};

/** The outcome expected of the target: the rule, or on a real ThingsBoard its known difference. */
function expectedOf(cell: string, rule: Outcome): Outcome {
  return REMOTE ? ((THINGSBOARD_DIFFERENCES[cell] as Outcome | undefined) ?? rule) : rule;
}

function sentTo(key: string, caller: Caller): boolean {
  return !(REMOTE && GLOBAL_WRITES.has(key) && expectedOutcome(key, caller) === 'allowed');
}

/**
 * Who gets through, for a device assigned to the customer and the caller's own API key and user.
 */
const P = 'public';
const S = 'SYS_ADMIN';
const T = 'TENANT_ADMIN';
const C = 'CUSTOMER_USER';
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

let platform: RunningPlatform | undefined;
let base: string;
const jwts = {} as Record<Exclude<Caller, 'anonymous'>, string>;
const userIds = {} as Record<Exclude<Caller, 'anonymous'>, string>;
let serial = 0;

before(async () => {
  if (REMOTE) base = REMOTE;
  else {
    platform = await start({ minServerRpcTimeoutMs: 0 });
    base = platform.httpUrl;
  }
  for (const caller of Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>) {
    jwts[caller] = await login(base, ...CREDENTIALS[caller]);
    userIds[caller] = (await call(base, 'GET', '/api/auth/user', { jwt: jwts[caller] })).json.id.id;
  }
});
after(async () => {
  if (REMOTE) await removeTagged();
  await platform?.close();
});

/** Deletes from a real platform what this run made: everything named or described with TAG. */
async function removeTagged(): Promise<void> {
  const tenant = jwts.TENANT_ADMIN;
  const page = `?pageSize=1000&page=0&textSearch=${encodeURIComponent(TAG)}`;
  const listed = async (path: string, jwt: string) =>
    ((await call(base, 'GET', path, { jwt })).json?.data ?? []) as Array<{
      id: { id: string };
      name?: string;
      title?: string;
      description?: string;
    }>;
  for (const device of await listed(`/api/tenant/devices${page}`, tenant))
    if (device.name?.startsWith(TAG))
      await call(base, 'DELETE', `/api/device/${device.id.id}`, { jwt: tenant });
  for (const profile of await listed(`/api/deviceProfiles${page}`, tenant))
    if (profile.name?.startsWith(TAG))
      await call(base, 'DELETE', `/api/deviceProfile/${profile.id.id}`, { jwt: tenant });
  for (const ota of await listed('/api/otaPackages?pageSize=1000&page=0', tenant))
    if (ota.title?.startsWith(TAG))
      await call(base, 'DELETE', `/api/otaPackage/${ota.id.id}`, { jwt: tenant });
  for (const owner of Object.keys(CREDENTIALS) as Array<keyof typeof CREDENTIALS>)
    for (const key of await listed(
      `/api/apiKeys/${userIds[owner]}?pageSize=1000&page=0`,
      jwts[owner],
    ))
      if (key.description?.startsWith(TAG))
        await call(base, 'DELETE', `/api/apiKey/${key.id.id}`, { jwt: jwts[owner] });
}

/**
 * A fresh device claimed by the customer (its customerId is the customer's), and one assigned to no
 * one.
 */
async function devices(): Promise<{
  own: { id: string; name: string };
  foreign: { id: string; name: string };
}> {
  serial += 1;
  const ownName = `${TAG}own-${serial}`;
  const own = await newDevice(base, jwts.TENANT_ADMIN, ownName);
  const registered = await call(base, 'POST', `/api/v1/${own.token}/claim`, {
    body: { secretKey: 'k', durationMs: 60_000 },
  });
  assert.equal(registered.status, 200);
  // ThingsBoard registers the device's claim after its answer (through its rule engine): the
  // customer's claim is tried until it takes (a real platform; the reference registers at once)
  let claimed: Awaited<ReturnType<typeof call>> | undefined;
  await untilEffective(
    `the customer claims ${ownName}`,
    'authz-claim',
    async () => {
      claimed = await call(base, 'POST', `/api/customer/device/${ownName}/claim`, {
        body: { secretKey: 'k' },
        jwt: jwts.CUSTOMER_USER,
      });
    },
    () => claimed?.status === 200,
    { eventuallyMs: 10_000, pollIntervalMs: 100 },
  );
  const foreignName = `${TAG}foreign-${serial}`;
  const foreign = await newDevice(base, jwts.TENANT_ADMIN, foreignName);
  return { own: { id: own.id, name: ownName }, foreign: { id: foreign.id, name: foreignName } };
}

async function apiKeyOf(owner: Exclude<Caller, 'anonymous'>): Promise<string> {
  const created = await call(base, 'POST', '/api/apiKey', {
    body: { userId: { id: userIds[owner], entityType: 'USER' }, description: `${TAG}key` },
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
    // deleting: a profile of its own (the default one is refused for another reason, and a real
    // tenant keeps it)
    profileId: async () =>
      method === 'DELETE'
        ? (
            await call(base, 'POST', '/api/deviceProfile', {
              body: {
                name: `${TAG}doomed-${serial}`,
                type: 'DEFAULT',
                transportType: 'DEFAULT',
                profileData: {
                  configuration: { type: 'DEFAULT' },
                  transportConfiguration: { type: 'DEFAULT' },
                },
              },
              jwt: jwts.TENANT_ADMIN,
            })
          ).json.id.id
        : (await call(base, 'GET', '/api/deviceProfileInfo/default', { jwt: jwts.TENANT_ADMIN }))
            .json.id.id,
    packageId: async () =>
      (
        await call(base, 'POST', '/api/otaPackage', {
          body: { title: `${TAG}${serial}`, version: '1', type: 'FIRMWARE' },
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
    // ThingsBoard checks its required parameters before the caller (500 without):
    // OtaPackageController.saveOtaPackageData
    'POST /api/otaPackage/:packageId': '?checksumAlgorithm=SHA256',
  };
  filled += query[`${method} ${path}`] ?? '';
  const bodies: Record<string, unknown> = {
    'POST /api/auth/login': { username: 'tenant@thingsboard.org', password: 'tenant' },
    'POST /api/device': { name: `${TAG}new-${serial}` },
    'POST /api/deviceProfile': { name: `${TAG}profile-${serial}` },
    'POST /api/otaPackage': { title: `${TAG}new-${serial}`, version: '1', type: 'FIRMWARE' },
    'POST /api/plugins/rpc/:kind/:deviceId': { method: 'm', params: {}, timeout: 1 },
    'POST /api/rpc/:kind/:deviceId': { method: 'm', params: {}, timeout: 1 },
    'POST /api/apiKey': {
      userId: { id: userIds[owner], entityType: 'USER' },
      description: `${TAG}x`,
    },
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
  // ThingsBoard's telemetry and RPC controllers refuse with a 403 whose body is plain text, not the
  // JSON error (AccessValidator.handleError): a denial all the same; the reference's own refusals
  // carry errorCode 20
  if (status === 403 && (errorCode === 20 || REMOTE)) return 'denied';
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
  // the firmware upload takes multipart/form-data: ThingsBoard answers another content type 415
  // before it looks at the caller (Spring's consumes), which says nothing of the authorization
  const multipart = path === '/api/otaPackage/:packageId';
  const boundary = 'iotc-authz-boundary';
  const answer = await call(base, method, request.path, {
    ...(multipart
      ? {
          raw: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="fw.bin"\r\nContent-Type: application/octet-stream\r\n\r\nfw\r\n--${boundary}--\r\n`,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        }
      : { body: request.body }),
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
      if (!sentTo(key, caller)) continue;
      const { own } = await devices();
      const got = await outcome(route.method, route.path, caller, own);
      const expected = expectedOf(`${key} as ${caller}`, expectedOutcome(key, caller));
      if (got.outcome !== expected)
        wrong.push(
          `${key} as ${caller}: ${got.outcome} (${got.status} ${got.text.slice(0, 80)}), expected ${expected}`,
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
      // reclaiming by name skips the customer check in ThingsBoard too (CLAIM_DEVICES): any device
      // of the tenant
      const expected = expectedOf(
        `${key} as ${caller} on a foreign device`,
        route.path.includes(':deviceName')
          ? expectedOutcome(key, caller)
          : caller === 'TENANT_ADMIN'
            ? expectedOutcome(key, caller)
            : 'denied',
      );
      if (got.outcome !== expected)
        wrong.push(`${key} as ${caller}: ${got.outcome} (${got.status}), expected ${expected}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a customer user saves its own device but creates none and deletes none', async () => {
  const { own } = await devices();
  const saved = await call(base, 'POST', '/api/device', {
    body: { id: { id: own.id, entityType: 'DEVICE' }, name: own.name, label: 'mine' },
    jwt: jwts.CUSTOMER_USER,
  });
  assert.equal(saved.status, 200, saved.text);
  assert.equal(saved.json.label, 'mine');
  const created = await call(base, 'POST', '/api/device', {
    body: { name: `${TAG}customer-made` },
    jwt: jwts.CUSTOMER_USER,
  });
  assert.equal(created.status, 403);
  const found = await call(base, 'GET', `/api/tenant/device?deviceName=${TAG}customer-made`, {
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
      [
        'POST',
        '/api/apiKey',
        {
          userId: { id: userIds[owner], entityType: 'USER' },
          description: `${TAG}for another`,
        },
      ],
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
    body: {
      userId: { id: userIds.SYS_ADMIN, entityType: 'USER' },
      description: `${TAG}survivor`,
      enabled: true,
    },
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
