/**
 * Lifetimes of the administration API's access and refresh tokens: stated by the target, or set for
 * a scenario.
 */
import assert from 'node:assert/strict';
import { Given, Then, When } from './support/cucumber';
import { AdminClient } from '../src/admin-client';
import { jwtSettingsSchema, loginAnswerSchema } from '../schemas/target-answers';
import type { IotcWorld } from './world';
import { claimsOf, refusalNearExpiry, request } from './support/admin-auth';
import { answerOf } from './support/answer-of';

/**
 * Sets the token lifetimes through the system administrator's JWT settings (capability
 * jwt-settings: it changes a system setting, so never on staging) and puts the previous ones back
 * after the scenario. Tokens issued from now on live that long; the run's own sessions keep theirs.
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
  const previous = answerOf(
    jwtSettingsSchema,
    await sysadmin.session.call('GET', '/api/admin/jwtSettings'),
    'GET /api/admin/jwtSettings',
  );
  // journaled before the change (only the lifetimes, never the signing key): a run killed now still
  // has the next run or `iotc cleanup` put them back
  world.run.journal.changingSetting({
    setting: 'jwtSettings.lifetimes',
    id: 'system',
    previous: {
      tokenExpirationTime: previous.tokenExpirationTime,
      refreshTokenExpTime: previous.refreshTokenExpTime,
    },
  });
  await sysadmin.session.call('POST', '/api/admin/jwtSettings', {
    ...previous,
    tokenExpirationTime: accessSec,
    refreshTokenExpTime: refreshSec,
  });
  world.cleanups.push({
    what: 'the JWT settings',
    undo: async () => {
      await sysadmin.session.call('POST', '/api/admin/jwtSettings', previous);
      world.run.journal.restoredSetting('jwtSettings.lifetimes', 'system');
    },
  });
  world.adminAuth.lifetimes = { accessSec, refreshSec };
}

function canSetLifetimes(world: IotcWorld): boolean {
  return world.run.target.capabilities.has('jwt-settings');
}

/**
 * The longest token lifetime a scenario waits out (seconds). ThingsBoard's JWT settings accept an
 * access token of 60 s at the shortest (DefaultJwtSettingsValidator.java:45-47), so its access
 * expiry is waited for; its shortest refresh token lives 900 s (42-44), longer than a run should
 * wait, so the refresh expiry is skipped there (NOT TESTED, said in the log) and only its exp claim
 * is checked (AUTH-JWT-02).
 */
const LONGEST_LIFETIME_WAIT_SEC = 90;

/**
 * Which lifetime the scenario waits out: the target's own when the profile states a short one, else
 * the shortest the target's JWT settings accept (profile platform.shortestTokenLifetimesSec), set
 * for the scenario.
 */
async function shortLifetimes(world: IotcWorld, which: 'accessSec' | 'refreshSec') {
  const { tokenLifetimes: stated, shortestTokenLifetimes: shortest } = world.run.target;
  const kind = which === 'accessSec' ? 'access token' : 'refresh token';
  if (stated.accessSec && stated.refreshSec && stated[which]! <= LONGEST_LIFETIME_WAIT_SEC) {
    world.adminAuth.lifetimes = stated;
    return undefined;
  }
  if (!canSetLifetimes(world)) {
    world.log(
      `skipped: the target profile states no ${kind} lifetime of ${LONGEST_LIFETIME_WAIT_SEC} s or less (platform.accessTokenLifetimeSec and platform.refreshTokenLifetimeSec) and lacks the capability jwt-settings (with platform.sysAdmin)`,
    );
    return 'skipped';
  }
  if (shortest[which] > LONGEST_LIFETIME_WAIT_SEC) {
    world.log(
      `skipped: the shortest ${kind} lifetime the target's JWT settings accept is ${shortest[which]} s (platform.shortestTokenLifetimesSec), more than the ${LONGEST_LIFETIME_WAIT_SEC} s a scenario waits`,
    );
    return 'skipped';
  }
  // the access token scenario exchanges its refresh token once the access lifetime has passed: the
  // refresh token outlives that by more than the second a whole-second iat takes off
  const refreshSec =
    which === 'accessSec'
      ? Math.max(shortest.refreshSec, shortest.accessSec + 3)
      : shortest.refreshSec;
  await setLifetimes(world, shortest.accessSec, refreshSec);
  return undefined;
}

Given("the target's token lifetimes are known", async function (this: IotcWorld) {
  const stated = this.run.target.tokenLifetimes;
  if (stated.accessSec) this.adminAuth.lifetimes = stated;
  // other values than the defaults, so that a target ignoring the settings shows (both within
  // ThingsBoard's bounds)
  else if (canSetLifetimes(this)) await setLifetimes(this, 7200, 172800);
  else {
    this.log(
      'skipped: the target profile states no token lifetimes (platform.accessTokenLifetimeSec and platform.refreshTokenLifetimeSec) and lacks the capability jwt-settings (with platform.sysAdmin)',
    );
    return 'skipped';
  }
  return undefined;
});

Given('the target runs with the default token lifetimes', function (this: IotcWorld) {
  if (this.run.target.tokenLifetimes.accessSec || this.run.target.tokenLifetimes.refreshSec) {
    this.log(
      'skipped: the target profile states token lifetimes (platform.accessTokenLifetimeSec, platform.refreshTokenLifetimeSec): the target does not run with the defaults',
    );
    return 'skipped';
  }
  return undefined;
});

Given("the target's access token lifetime is short enough to wait for", function (this: IotcWorld) {
  return shortLifetimes(this, 'accessSec');
});

Given(
  "the target's refresh token lifetime is short enough to wait for",
  function (this: IotcWorld) {
    return shortLifetimes(this, 'refreshSec');
  },
);

function scenarioLifetimes(world: IotcWorld): { accessSec?: number; refreshSec?: number } {
  return world.adminAuth.lifetimes ?? world.run.target.tokenLifetimes;
}

Then(
  'the access token lives {int} s and the refresh token {int} s',
  function (this: IotcWorld, access: number, refresh: number) {
    const secrets = this.adminAuth.secrets;
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
  const secrets = this.adminAuth.secrets;
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

/**
 * Waits until the scenario's lifetime of that token has passed since the login. The lifetime is the
 * behaviour under test: waiting it out is the effect itself. The wait is the lifetime the target
 * states (or was set to), counted from the login, not the token's own exp: a token that claims a
 * longer life must not make the scenario wait for it (a step timeout would hide the defect and
 * leave the timer running).
 */
async function waitLifetime(world: IotcWorld, which: 'accessSec' | 'refreshSec'): Promise<void> {
  const stated = scenarioLifetimes(world)[which];
  const loggedInAt = world.adminAuth.loggedInAt;
  if (!stated || loggedInAt === undefined)
    throw new Error(`no stated ${which} lifetime or no login in this scenario`);
  // exp is in whole seconds from the target's clock: a second more satisfies every reading of "past
  // exp" whatever the skew. A target on this process's clock issued the token before loggedInAt, so
  // iat + lifetime is already past there.
  const margin = world.run.target.sharesClock ? 0 : 1000;
  let until = loggedInAt + stated * 1000 + margin;
  // On a shared clock the token is due at its own exp when that comes first: iat is the login's
  // whole second, so exp (= iat + lifetime, checked against the stated lifetime by the scenarios
  // that read it) falls up to a second before loggedInAt + lifetime, half a second on average. A
  // token is expired from exp on (RFC 7519 4.1.4; jose and the reference: exp <= now), so waiting
  // to exp is as strict, and stricter for a target that grants any grace.
  const token = world.adminAuth.secrets.get(which === 'accessSec' ? 'jwt' : 'refresh token');
  if (world.run.target.sharesClock && token) {
    const { exp } = claimsOf(token);
    if (typeof exp === 'number' && exp * 1000 < until) until = exp * 1000;
  }
  // A scenario with an API key waits the whole lifetime since the key was made too, so that a key
  // expiring like an access token (AUTH-KEY-01) is past its end.
  const { apiKeyMadeAt } = world.adminAuth;
  if (apiKeyMadeAt !== undefined) until = Math.max(until, apiKeyMadeAt + stated * 1000 + margin);
  // a timer may fire a millisecond before the wall clock reaches its end
  for (let now = Date.now(); now < until; now = Date.now())
    await new Promise((resolve) => setTimeout(resolve, until - now));
}

/**
 * A wait step may take the longest lifetime waited out, and a little more (the clock-skew margin).
 */
const WAIT_STEP = { timeout: (LONGEST_LIFETIME_WAIT_SEC + 10) * 1000 };

When('the access token lifetime has passed', WAIT_STEP, async function (this: IotcWorld) {
  await waitLifetime(this, 'accessSec');
  this.adminAuth.accessLifetimeWaited = true;
});

When('the refresh token lifetime has passed', WAIT_STEP, async function (this: IotcWorld) {
  await waitLifetime(this, 'refreshSec');
  this.adminAuth.refreshLifetimeWaited = true;
});

When('the refresh token is exchanged for a new token pair', async function (this: IotcWorld) {
  const offeredAt = Date.now();
  const refreshToken = this.adminAuth.secrets.get('refresh token');
  const answer = await request(
    this,
    'POST',
    '/api/auth/token',
    { 'content-type': 'application/json' },
    { refreshToken },
  );
  // a refusal of a refresh token offered close to its own exp (the harness was starved) decides
  // nothing
  if (answer.status !== 200 && !this.adminAuth.refreshLifetimeWaited)
    refusalNearExpiry(this, refreshToken, offeredAt, 'the refresh token', Date.now());
  assert.equal(answer.status, 200, `the refresh answered ${answer.status}`);
  this.adminAuth.secrets.set(
    'jwt',
    answerOf(loginAnswerSchema, answer, 'POST /api/auth/token').token,
  );
  // the new access token's lifetime has not been waited out: a refusal of it close to its exp is
  // the harness's (refusalNearExpiry), as for the login's token; the flag belonged to the token it
  // replaces
  this.adminAuth.accessLifetimeWaited = false;
});

When('the refresh token is offered for a new token pair', async function (this: IotcWorld) {
  const offeredAt = Date.now();
  const refreshToken = this.adminAuth.secrets.get('refresh token');
  this.adminAuth.answer = await request(
    this,
    'POST',
    '/api/auth/token',
    { 'content-type': 'application/json' },
    { refreshToken },
  );
  if (this.adminAuth.refreshLifetimeWaited || this.adminAuth.answer.status === 200) return;
  refusalNearExpiry(this, refreshToken, offeredAt, 'the refresh token', Date.now());
});

Then('the refresh token lives as long as the target states', function (this: IotcWorld) {
  const { refreshSec } = scenarioLifetimes(this);
  const refreshToken = claimsOf(this.adminAuth.secrets.get('refresh token')!);
  assert.equal(
    refreshToken.exp - refreshToken.iat,
    refreshSec,
    'refresh token lifetime (exp - iat)',
  );
});
