/**
 * What the administration-API authentication steps share (admin-auth, token-lifetimes and
 * api-documentation steps): requests with the scenario's credentials (world.adminAuth, never
 * printed), placeholders for them, the tenant administrator's login.
 */
import { adminRequest, type AdminResponse, type Method } from '../../src/admin-client';
import { loginAnswerSchema } from '../../schemas/target-answers';
import type { IotcWorld } from '../world';
import { answerOf } from './answer-of';
import { Inconclusive, refuseIfStallExplains } from './timing';

export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The JWT the scenario obtained from the admin login (for the analytics steps); never print it. */
export function scenarioJwt(world: IotcWorld): string {
  const jwt = world.adminAuth.secrets.get('jwt');
  if (!jwt)
    throw new Error(
      'no JWT in this scenario: log in with "a JWT from the tenant administrator\'s login" first',
    );
  return jwt;
}
/**
 * The request each answer of `request` answered ('GET /api/auth/user'), for messages about the
 * answer.
 */
const requests = new WeakMap<AdminResponse, string>();

export async function request(
  world: IotcWorld,
  method: Method,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
  timeoutMs = world.run.target.timeouts.requestMs,
): Promise<AdminResponse> {
  const answer = await adminRequest(world.run.target.adminUrl, method, path, {
    headers,
    body,
    timeoutMs,
    recorder: world.exchanges.record,
  });
  requests.set(answer, `${method} ${path}`);
  return answer;
}

/**
 * 'GET /api/auth/user' for an answer of `request` (its path may hold a secret: answerOf redacts
 * it).
 */
export function requestOf(answer: AdminResponse): string {
  return requests.get(answer) ?? 'the administration API';
}

/**
 * Replaces <jwt>, <refresh token>, <api key>, <device id> in a header value or path with the
 * scenario's values.
 */
export function fill(world: IotcWorld, template: string): string {
  return template.replace(/<([a-z ]+)>/g, (_match, name: string) => {
    if (name === 'device id') return world.device('subject').record.id;
    const value = world.adminAuth.secrets.get(name);
    if (value === undefined) throw new Error(`no ${name} in this scenario`);
    return value;
  });
}

export function claimsOf(jwt: string): { iat: number; exp: number; sub?: string } {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/**
 * How close to a token's exp a request meant to succeed (the positive control, before the token's
 * lifetime was waited out) may start and still decide: closer, a refusal may be the expiry itself,
 * reached because the harness was slow between the login and the request. The embedded profiles'
 * shortest lifetimes (2 s, exp counted from a whole-second iat) leave the first request a second or
 * more, unless the login's second ends before it is sent (a few ms: about one login in a hundred, and
 * only a refusal then is INCONCLUSIVE).
 */
export const DECIDES_BEFORE_EXP_MS = 1000;

/**
 * A refusal of a request made with a token the scenario still means to be valid decides nothing
 * when the request started too close to the token's exp, or was answered after it
 * (sentNearExpiry): INCONCLUSIVE, naming how long after the token's issue it was sent. When the
 * harness's event loop (for an embedded target, the target's too) stood still, within the token's
 * life, longer than the request missed the time to decide by, the starvation is named (the timing
 * model's HARNESS_STARVED: a busy machine, not a verdict either way). The one rule for every
 * positive control of a short-lived token (access or refresh, admin API or analytics).
 */
export function refusalNearExpiry(
  world: IotcWorld,
  token: string | undefined,
  sentAt: number,
  what: string,
  answeredAt?: number,
): void {
  const overshootMs = pastDecidingMs(world, token, sentAt, answeredAt);
  if (overshootMs === undefined || overshootMs < 0) return;
  const { iat } = claimsOf(token!);
  const issuedAt = iat ? iat * 1000 : (world.adminAuth.loggedInAt ?? sentAt);
  const doing = `${what} was sent ${sentAt - issuedAt} ms after its issue${answeredAt === undefined ? '' : ` and answered ${answeredAt - sentAt} ms later`}`;
  refuseIfStallExplains(
    { harnessMs: world.stalls.stalledBetween(issuedAt, answeredAt ?? sentAt) },
    // the stall explains the lateness when, without it, the request would have decided
    overshootMs + 1,
    `${doing}, too close to its exp to tell a refusal from its expiry`,
  );
  throw new Inconclusive(
    `${doing}, too close to its exp to tell a refusal from its expiry (the target was slow)`,
  );
}

/**
 * Whether a refusal of a request sent at `sentAt` with `token` may be the token's expiry rather
 * than the target's judgement (refusalNearExpiry's rule), false for a token without an exp: the
 * request started too close to the exp (the harness slow between the login and the request), or
 * its answer came at or after the exp (`answeredAt`: the target read or judged it late, starved
 * on a busy machine; an embedded target shares the harness's process). A target that does not
 * share this clock may be a second ahead.
 */
export function sentNearExpiry(
  world: IotcWorld,
  token: string | undefined,
  sentAt: number,
  answeredAt?: number,
): boolean {
  return (pastDecidingMs(world, token, sentAt, answeredAt) ?? -1) >= 0;
}

/**
 * By how many ms the request missed the time it had to decide (sentNearExpiry's rule), negative
 * when it decides; undefined for a token without an exp.
 */
function pastDecidingMs(
  world: IotcWorld,
  token: string | undefined,
  sentAt: number,
  answeredAt?: number,
): number | undefined {
  if (!token?.includes('.')) return undefined;
  const { exp } = claimsOf(token);
  if (!exp) return undefined;
  const skewMs = world.run.target.sharesClock ? 0 : 1000;
  return Math.max(
    sentAt - (exp * 1000 - DECIDES_BEFORE_EXP_MS - skewMs),
    answeredAt === undefined ? -Infinity : answeredAt - (exp * 1000 - skewMs),
  );
}

export async function login(world: IotcWorld, password?: string): Promise<AdminResponse> {
  const { username, password: right } = world.run.target.tenantAdmin;
  const answer = await request(
    world,
    'POST',
    '/api/auth/login',
    { 'content-type': 'application/json' },
    { username, password: password ?? right },
  );
  world.adminAuth.answer = answer;
  if (answer.status === 200) {
    const body = answerOf(loginAnswerSchema, answer, 'POST /api/auth/login');
    world.adminAuth.secrets.set('jwt', body.token);
    world.adminAuth.secrets.set('refresh token', body.refreshToken);
    world.adminAuth.loggedInAt = Date.now();
  }
  return answer;
}
