/**
 * The rule that keeps a short-lived token's expiry from failing a requirement
 * (steps/support/admin-auth.ts sentNearExpiry, used by refusalNearExpiry and the analytics steps):
 * a refusal decides only when the request left well before the token's exp AND its answer came
 * before the exp. A starved target (an embedded one shares the harness's process) may judge a
 * request sent in time after the exp: that refusal is the expiry's, so it decides nothing. A
 * token without an exp never expires.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DECIDES_BEFORE_EXP_MS,
  refusalNearExpiry,
  sentNearExpiry,
} from '../../steps/support/admin-auth';
import { HARNESS_STARVED, INCONCLUSIVE_PREFIX } from '../../steps/support/timing';
import type { IotcWorld } from '../../steps/world';

function token(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS512' })}.${part(claims)}.signature`;
}

function world(sharesClock: boolean, stalledMs = 0): IotcWorld {
  return {
    run: { target: { sharesClock } },
    adminAuth: {},
    stalls: { stalledBetween: () => stalledMs },
  } as unknown as IotcWorld;
}

const exp = 1_800_000_000;
const expMs = exp * 1000;
const jwt = token({ sub: 'tenant@thingsboard.org', iat: exp - 2, exp });

test('a request sent and answered well before the exp decides (its refusal is the target judging a valid token)', () => {
  const sentAt = expMs - DECIDES_BEFORE_EXP_MS - 500;
  assert.equal(sentNearExpiry(world(true), jwt, sentAt, sentAt + 100), false);
  assert.equal(sentNearExpiry(world(true), jwt, sentAt), false);
});

test('a request sent within the last second before the exp decides nothing', () => {
  assert.equal(sentNearExpiry(world(true), jwt, expMs - DECIDES_BEFORE_EXP_MS + 1), true);
});

test('a request sent in time but answered at or after the exp decides nothing (a starved target judged it late)', () => {
  const sentAt = expMs - DECIDES_BEFORE_EXP_MS - 800;
  assert.equal(sentNearExpiry(world(true), jwt, sentAt, expMs - 1), false);
  assert.equal(sentNearExpiry(world(true), jwt, sentAt, expMs), true);
});

test('a target on another clock may be a second ahead: the answer rule moves a second earlier', () => {
  const sentAt = expMs - DECIDES_BEFORE_EXP_MS - 1500;
  assert.equal(sentNearExpiry(world(false), jwt, sentAt, expMs - 1001), false);
  assert.equal(sentNearExpiry(world(false), jwt, sentAt, expMs - 1000), true);
});

test('a token without an exp, or not a JWT, never explains a refusal', () => {
  assert.equal(sentNearExpiry(world(true), token({ sub: 'x' }), expMs, expMs), false);
  assert.equal(sentNearExpiry(world(true), 'opaque-key', expMs, expMs), false);
  assert.equal(sentNearExpiry(world(true), undefined, expMs, expMs), false);
});

test("a refusal that cannot decide is INCONCLUSIVE, naming the starvation only when the stalls within the token's life explain the lateness", () => {
  const sentAt = expMs - DECIDES_BEFORE_EXP_MS - 800;
  // decided: nothing thrown, the caller judges the refusal
  refusalNearExpiry(world(true, 5000), jwt, sentAt, 'the access token', sentAt + 100);
  // answered 300 ms past the exp: a stall of 301 ms or more explains it
  const late = expMs + 300;
  assert.throws(
    () => refusalNearExpiry(world(true, 301), jwt, sentAt, 'the access token', late),
    (error: Error) =>
      error.message.startsWith(`${INCONCLUSIVE_PREFIX} ${HARNESS_STARVED}`) &&
      error.message.includes(
        'the access token was sent 200 ms after its issue and answered 2100 ms later',
      ),
  );
  assert.throws(
    () => refusalNearExpiry(world(true, 200), jwt, sentAt, 'the access token', late),
    (error: Error) =>
      error.message.startsWith(INCONCLUSIVE_PREFIX) &&
      !error.message.includes(HARNESS_STARVED) &&
      error.message.endsWith('(the target was slow)'),
  );
});
