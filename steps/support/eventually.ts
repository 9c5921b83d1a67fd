/**
 * Bounded waiting for an effect: the platform accepts data asynchronously (a 200 means queued), so
 * read-backs retry `check` until it passes or timeoutMs runs out (both from the target profile),
 * then fail with the last error. No fixed sleeps: the wait ends as soon as the check passes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { IotcError } from '../../lib/errors';

/**
 * Thrown by a check when retrying cannot help (an irreversible wrong outcome): `eventually` fails
 * at once.
 */
export class GiveUp extends IotcError {
  readonly code = 'IOTC_CHECK_GAVE_UP';
}

export interface EventuallyOptions {
  timeoutMs: number;
  intervalMs: number;
  /**
   * The check reads only what the harness itself holds (a socket's state, the external API
   * simulator's record of requests) and sends nothing to the target: it is repeated every
   * intervalMs instead of backing off to eight times that, so the wait ends within one interval of
   * the effect rather than up to eight later. Default false: a check that asks the target backs off.
   */
  local?: boolean;
}

export async function eventually<T>(
  check: () => Promise<T> | T,
  options: EventuallyOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    const backoff = options.local ? 1 : Math.min(2 ** attempt, 8);
    await delay(Math.min(options.intervalMs * backoff, left));
  }
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`still failing after ${options.timeoutMs} ms: ${message}`, { cause: lastError });
}

/** True when `promise` settles within `ms` (it ends early when it does); never rejects. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const controller = new AbortController();
  const settled = promise.then(
    () => true,
    () => true,
  );
  const timedOut = delay(ms, false, { signal: controller.signal }).catch(() => false);
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    controller.abort();
  }
}
