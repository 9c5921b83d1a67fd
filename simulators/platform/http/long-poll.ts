/**
 * The HTTP long-poll: holds a response open until an event answers it, the timeout passes (408,
 * empty body, as the platform) or the client goes away. Used by attributes/updates and rpc; closing
 * the platform ends it (the server destroys the socket, which runs the cleanup).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { longPollQuerySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { queryOf, sendEmpty } from './exchange';
import type { Quirks } from '../quirks';

/** transport.http.request_timeout: the wait when timeout is absent or 0 (ms). */
export const DEFAULT_LONG_POLL_MS = 60_000;

/**
 * The long-poll's steps, shared by the device API's endpoints (context.ts DEVICE_API_STEPS): a
 * route's planted faults (route-faults.ts) wrap them to change how its polls read their timeout and
 * end.
 */
export const LONG_POLL_STEPS = {
  /** The query parameters of a poll's URL. */
  pollQuery: (request: IncomingMessage): Record<string, string> =>
    Object.fromEntries(queryOf(request.url)),
  /** The wait of a poll without the timeout parameter: transport.http.request_timeout. */
  pollDefaultMs: (): number => DEFAULT_LONG_POLL_MS,
  /** How long a poll waits for its event: the timeout it was given. */
  pollWaitMs: (timeoutMs: number): number => timeoutMs,
  /** The answer at the timeout: 408, empty body, as the platform. */
  pollTimedOut: (response: ServerResponse): void => sendEmpty(response, 408),
};

/** What reading a poll's timeout takes of the device API's steps. */
type TimeoutSteps = typeof LONG_POLL_STEPS & { invalidParameter: (message: string) => Error };

/**
 * The `timeout` query parameter in ms: a non-negative integer (400 otherwise); absent →
 * pollDefaultMs, 0 → 60000. Quirks mode negativeLongPollTimeoutExpires: a negative integer is taken
 * as it is, and the poll ends at once (408).
 */
export function longPollTimeout(
  request: IncomingMessage,
  quirks: Quirks,
  steps: TimeoutSteps,
): number {
  const query = steps.pollQuery(request);
  if (quirks.negativeLongPollTimeoutExpires && /^-\d+$/.test(query.timeout ?? '')) return 0;
  const check = validate(longPollQuerySchema, query);
  if (!check.ok)
    throw steps.invalidParameter(`Invalid timeout parameter: ${check.errors.join('; ')}`);
  if (query.timeout === undefined) return steps.pollDefaultMs();
  const timeout = Number(query.timeout);
  return timeout > 0 ? timeout : DEFAULT_LONG_POLL_MS;
}

/**
 * Long-polls being held right now, in every platform of this process (read by a planted fault
 * only).
 */
let held = 0;

export function heldLongPolls(): number {
  return held;
}

/** Answers once; a send that returns false has answered nothing and the poll keeps waiting. */
type Finish = (send: () => boolean | void) => void;

/**
 * Waits for `subscribe`'s listeners to call finish, at most `waitMs` (pollWaitMs), then answers
 * `timedOut` (pollTimedOut); the listeners are removed when the poll ends, however it ends.
 */
export function longPoll(
  response: ServerResponse,
  waitMs: number,
  subscribe: (finish: Finish) => Array<() => void>,
  timedOut: (response: ServerResponse) => void,
): void {
  let done = false;
  let unsubscribers: Array<() => void> = [];
  held++;
  const cleanup = () => {
    if (done) return;
    done = true;
    held--;
    clearTimeout(timer);
    for (const unsubscribe of unsubscribers) unsubscribe();
  };
  const finish: Finish = (send) => {
    if (done) return;
    if (send() === false) return;
    cleanup();
  };
  const timer = setTimeout(() => finish(() => timedOut(response)), waitMs);
  unsubscribers = subscribe(finish);
  response.on('close', cleanup);
}
