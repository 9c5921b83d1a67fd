/**
 * The HTTP long-poll: holds a response open until an event answers it, the timeout passes (408, empty body, as
 * the platform) or the client goes away. Used by attributes/updates and rpc; closing the platform ends it (the
 * server destroys the socket, which runs the cleanup).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { longPollQuerySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from '../core/errors';
import { queryOf, sendEmpty } from './exchange';

/** transport.http.request_timeout: the wait when timeout is absent or 0 (ms). */
export const DEFAULT_LONG_POLL_MS = 60_000;

/** The `timeout` query parameter in ms: a non-negative integer (400 otherwise); absent or 0 → 60000. */
export function longPollTimeout(request: IncomingMessage): number {
  const query = Object.fromEntries(queryOf(request.url));
  const check = validate(longPollQuerySchema, query);
  if (!check.ok) throw new BadRequestError(`Invalid timeout parameter: ${check.errors.join('; ')}`);
  const timeout = Number(query.timeout ?? 0);
  return timeout > 0 ? timeout : DEFAULT_LONG_POLL_MS;
}

/** Answers once; a send that returns false has answered nothing and the poll keeps waiting. */
export type Finish = (send: () => boolean | void) => void;

/** Waits for `subscribe`'s listeners to call finish; they are removed when the poll ends, however it ends. */
export function longPoll(
  response: ServerResponse,
  timeoutMs: number,
  subscribe: (finish: Finish) => Array<() => void>,
): void {
  let done = false;
  let unsubscribers: Array<() => void> = [];
  const cleanup = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    for (const unsubscribe of unsubscribers) unsubscribe();
  };
  const finish: Finish = (send) => {
    if (done) return;
    if (send() === false) return;
    cleanup();
  };
  const timer = setTimeout(() => finish(() => sendEmpty(response, 408)), timeoutMs);
  unsubscribers = subscribe(finish);
  response.on('close', cleanup);
}
