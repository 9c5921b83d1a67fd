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
  const cleanup = () => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
    request.off('close', onClose);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) {
      chunks.push(chunk);
      return;
    }
    cleanup();
    refuse();
    done(tooLarge());
  };
  const onEnd = () => {
    cleanup();
    done(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  };
  const onError = (error: Error) => {
    cleanup();
    done(error);
  };
  const onClose = () => {
    if (request.complete) return;
    cleanup();
    done(new RequestAbortedError());
  };
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
  request.on('close', onClose);
}
