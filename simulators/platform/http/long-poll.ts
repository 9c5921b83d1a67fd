/**
 * The HTTP long-poll: holds a response open until an event answers it, the timeout passes (408, empty body, as
 * the platform) or the client goes away. Used by attributes/updates and rpc; closing the platform ends it (the
 * server destroys the socket, which runs the cleanup).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { longPollQuerySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError, PlatformError } from '../core/errors';
import { queryOf, sendEmpty, sendJson } from './exchange';
import { faultActive } from '../../../faults';
import { NO_QUIRKS, type Quirks } from '../quirks';

/** transport.http.request_timeout: the wait when timeout is absent or 0 (ms). */
const DEFAULT_LONG_POLL_MS = 60_000;

/**
 * The `timeout` query parameter in ms: a non-negative integer (400 otherwise); absent or 0 → 60000. Quirks mode
 * negativeLongPollTimeoutExpires: a negative integer is taken as it is, and the poll ends at once (408).
 */
export function longPollTimeout(request: IncomingMessage, quirks: Quirks = NO_QUIRKS): number {
  const query = Object.fromEntries(queryOf(request.url));
  if (faultActive('HTTP-ERR-02:negative-timeout-accepted') && /^-\d+$/.test(query.timeout ?? ''))
    query.timeout = '0';
  if (quirks.negativeLongPollTimeoutExpires && /^-\d+$/.test(query.timeout ?? '')) return 0;
  const check = validate(longPollQuerySchema, query);
  if (!check.ok) {
    const message = `Invalid timeout parameter: ${check.errors.join('; ')}`;
    if (faultActive('HTTP-ERR-02:invalid-parameter-500')) throw new PlatformError(message, 500, 2);
    throw new BadRequestError(message);
  }
  if (query.timeout === undefined && defaultNotApplied(request.url ?? '')) return 0;
  const timeout = Number(query.timeout ?? 0);
  return timeout > 0 ? timeout : DEFAULT_LONG_POLL_MS;
}

/** Planted faults: a poll without the optional timeout parameter ends at once (408), the default not applied. */
function defaultNotApplied(url: string): boolean {
  return /\/attributes\/updates(\?|$)/.test(url)
    ? faultActive('HTTP-UPD-01:no-timeout-ends-at-once')
    : faultActive('HTTP-RPC-01:no-timeout-ends-at-once');
}

/** Long-polls being held right now, in every platform of this process (read by a planted fault only). */
let held = 0;

export function heldLongPolls(): number {
  return held;
}

const NO_FAULTS: TimeoutFaults = { ignored: false, early: false, withBody: false };

/** Answers once; a send that returns false has answered nothing and the poll keeps waiting. */
type Finish = (send: () => boolean | void) => void;

/** How a poll's planted timeout faults (faults/) change it: the timeout ignored or cut short, a body at 408. */
interface TimeoutFaults {
  ignored: boolean;
  early: boolean;
  withBody: boolean;
}

/** The timeout a poll really waits: as asked, unless a planted fault ignores it (60 s) or cuts it to a quarter. */
function faultyTimeout(timeoutMs: number, faults: TimeoutFaults): number {
  if (faults.ignored) return DEFAULT_LONG_POLL_MS;
  return faults.early ? timeoutMs / 4 : timeoutMs;
}

/** Waits for `subscribe`'s listeners to call finish; they are removed when the poll ends, however it ends. */
export function longPoll(
  response: ServerResponse,
  timeoutMs: number,
  subscribe: (finish: Finish) => Array<() => void>,
  faults?: TimeoutFaults,
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
  const timedOut = faults?.withBody
    ? () => sendJson(response, 408, { error: 'timeout' })
    : () => sendEmpty(response, 408);
  const timer = setTimeout(() => finish(timedOut), faultyTimeout(timeoutMs, faults ?? NO_FAULTS));
  unsubscribers = subscribe(finish);
  response.on('close', cleanup);
}
