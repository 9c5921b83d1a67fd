/**
 * Reading a request body with a size cap, for every server of the reference targets (platform
 * device and admin APIs, REST connector, analytics): one implementation, each caller choosing the
 * error its protocol answers with.
 */
import type { IncomingMessage } from 'node:http';
import { IotcError } from './errors';

/** The client closed the connection before its body was complete. */
export class RequestAbortedError extends IotcError {
  readonly code = 'IOTC_HTTP_REQUEST_ABORTED';
  constructor() {
    super('the client closed the request before its body was complete');
  }
}

export interface BodyLimit {
  /** Largest body in bytes; a Content-Length above it is refused before any byte is read. */
  limit: number;
  /** The error a body past the limit rejects with (the caller's protocol answer, e.g. 413). */
  tooLarge: () => Error;
  /**
   * What happens to the rest of a body past the limit: `drain` reads and drops it, so the answer
   * can still be sent on the connection (the default); `destroy` closes the socket.
   */
  excess?: 'drain' | 'destroy';
}

/**
 * The whole body; rejects with `tooLarge()` past the limit, RequestAbortedError when the client
 * goes away first.
 */
export function readBody(request: IncomingMessage, limit: BodyLimit): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    readBodyThen(request, limit, (error, body) =>
      error ? reject(error) : resolve(body as Buffer),
    ),
  );
}

/**
 * readBody with a callback, called once: with the error, or with the body. For a server's hottest
 * path (the reference's telemetry endpoint): no promise, and no microtask turn between the body's
 * end and its handling.
 */
export function readBodyThen(
  request: IncomingMessage,
  { limit, tooLarge, excess = 'drain' }: BodyLimit,
  done: (error: Error | undefined, body?: Buffer) => void,
): void {
  const refuse = () => {
    if (excess === 'destroy') request.destroy();
    else request.resume();
  };
  if (Number(request.headers['content-length']) > limit) {
    refuse();
    return done(tooLarge());
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // once settled, the listeners stay and do nothing: removing four listeners per request cost more
  // than the rest of the read (the telemetry endpoint's hottest path); the chunks are let go (a
  // large body is not held twice while it is handled)
  let settled = false;
  const settle = (error: Error | undefined, body?: Buffer) => {
    settled = true;
    chunks.length = 0;
    done(error, body);
  };
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size <= limit) {
      chunks.push(chunk);
      return;
    }
    refuse();
    settle(tooLarge());
  };
  const onEnd = () => {
    if (!settled) settle(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  };
  const onError = (error: Error) => {
    if (!settled) settle(error);
  };
  const onClose = () => {
    if (!settled && !request.complete) settle(new RequestAbortedError());
  };
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
  request.on('close', onClose);
}
