/**
 * Bounded waiting for an effect: the platform accepts data asynchronously (a 200 means queued), so read-backs
 * retry `check` until it passes or the target's eventuallyMs runs out, then fail with the last error. No fixed sleeps.
 */
import { setTimeout as delay } from 'node:timers/promises';

export async function eventually<T>(check: () => Promise<T> | T, options: { timeoutMs: number; intervalMs: number }): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await delay(Math.min(options.intervalMs * Math.min(2 ** attempt, 8), Math.max(1, deadline - Date.now())));
  }
  const message = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`still failing after ${options.timeoutMs} ms: ${message}`, { cause: lastError });
}
