/**
 * The target check before a run: can the admin API be reached and does it accept the profile's
 * user? A run that cannot even log in has nothing to say about conformance, so it stops within
 * seconds with the cause in words (the URL and ECONNREFUSED, a name that does not resolve, no
 * answer, a refused login with the user name) instead of failing every scenario, and `iotc run`
 * still writes a report in which every requirement is NOT TESTED.
 */
import { AdminApiError, AdminClient } from '../admin-client';
import type { Target } from '.';
import { IotcError } from '../../lib/errors';

/** How long the check waits for the admin API before it calls the target unresponsive. */
const PREFLIGHT_TIMEOUT_MS = 10_000;

/**
 * The target's admin API cannot be reached or refuses the login before the run: every requirement
 * NOT TESTED with the reason.
 */
export class TargetUnreachableError extends IotcError {
  readonly code = 'IOTC_TARGET_UNREACHABLE';
}

/** Requests of the logged-in user timed after the login, for the admin API's round trip. */
const ROUND_TRIP_SAMPLES = 3;

/**
 * Resolves when the target's admin API answers and logs the tenant administrator in; else explains
 * why not. Resolves to the admin API's round trip: the quickest of a few requests of the logged-in
 * user on the login's keep-alive connection (undefined when none answered), from which a remote
 * run sizes its workers (src/engine/run.ts workerCount) before any starts; each worker measures
 * every interface again for its waits (steps/support/network.ts).
 */
export async function checkTarget(
  target: Pick<Target, 'name' | 'adminUrl' | 'tenantAdmin' | 'tls'>,
  timeoutMs = PREFLIGHT_TIMEOUT_MS,
): Promise<number | undefined> {
  let admin: AdminClient | undefined;
  try {
    admin = await onceMoreIfReset(() =>
      AdminClient.login(target.adminUrl, target.tenantAdmin, {
        requestTimeoutMs: timeoutMs,
        tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
      }),
    );
  } catch (error) {
    await admin?.close();
    throw new TargetUnreachableError(
      `cannot test target "${target.name}": ${describeFailure(error, target.adminUrl, target.tenantAdmin.username, timeoutMs)}`,
    );
  }
  let quickest: number | undefined;
  try {
    for (let i = 0; i < ROUND_TRIP_SAMPLES; i++) {
      const started = performance.now();
      await admin.session.call('GET', '/api/auth/user');
      quickest = Math.min(quickest ?? Number.POSITIVE_INFINITY, performance.now() - started);
    }
    return quickest;
  } catch {
    return quickest; // a figure only: the login proved the target reachable
  } finally {
    await admin.close();
  }
}

/**
 * Codes of a connection the path broke under a request (a reset, a broken pipe, a socket closed
 * under undici): not a refused connect, a name that does not resolve or a timeout, which a second
 * try at once would only repeat.
 */
const BROKEN_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/**
 * Runs `attempt` (which opens its own connection) and, when the path broke its connection, once
 * more: a run's opening requests (this check, each worker's logins in steps/hooks.ts) get the one
 * retry on a fresh connection that a scenario gets, so one reset on the way to a staging target
 * does not leave the whole run NOT TESTED.
 */
export async function onceMoreIfReset<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!BROKEN_CONNECTION.has(errorCode(error) ?? '')) throw error;
    return attempt();
  }
}

/** The first error code in an error's cause chain (undici wraps the socket's). */
function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && code !== 'IOTC_ADMIN_API') return code;
    current = cause;
  }
  return undefined;
}

function describeFailure(error: unknown, url: string, user: string, timeoutMs: number): string {
  if (error instanceof AdminApiError)
    return error.status === 401
      ? `${url} refused the login of ${user} (401: ${error.serverMessage || 'bad credentials'})`
      : `${url} answered the login of ${user} with ${error.status} ${error.serverMessage}`;
  const code = errorCode(error);
  const host = new URL(url).host;
  switch (code) {
    case 'ECONNREFUSED':
      return `${url} refused the connection (ECONNREFUSED): nothing listens at ${host}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${url}: the host name ${new URL(url).hostname} does not resolve (${code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return `${url} did not answer within ${timeoutMs / 1000} s (${code})`;
    default:
      return `${url}: ${(error as Error).message}${code ? ` (${code})` : ''}`;
  }
}
