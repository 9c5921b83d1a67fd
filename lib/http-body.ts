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
    readBodyThen(
      request,
      limit,
      (error, body) => (error ? reject(error) : resolve(body as Buffer)),
      undefined,
    ),
  );
}

/** A body being read: what readBodyThen's listeners share, kept on the request (READING). */
interface Reading<Context> {
  readonly limit: BodyLimit;
  readonly done: (error: Error | undefined, body: Buffer | undefined, context: Context) => void;
  readonly context: Context;
  /** The first chunk (most bodies are one), then every chunk once there is a second. */
  first: Buffer | undefined;
  chunks: Buffer[] | undefined;
  size: number;
}

const READING = Symbol('iotc body reading');
type ReadRequest = IncomingMessage & { [READING]?: Reading<unknown> };

/**
 * readBody with a callback, called once with `context`: with the error, or with the body. For a
 * server's hottest path (the reference's telemetry endpoint): no promise, no microtask turn between
 * the body's end and its handling, and no closure per request: the four listeners are module
 * functions that find the read's state on the request (`this`, the emitter), and the caller's
 * state travels as `context` (a closure and its context per listener were about 0.8 KiB of the
 * 9 KiB a telemetry request allocated; bench/README.md "The HTTP request's allocations").
 */
export function readBodyThen<Context>(
  request: IncomingMessage,
  limit: BodyLimit,
  done: (error: Error | undefined, body: Buffer | undefined, context: Context) => void,
  context: Context,
): void {
  if (Number(request.headers['content-length']) > limit.limit) {
    refuse(request, limit);
    return done(limit.tooLarge(), undefined, context);
  }
  (request as ReadRequest)[READING] = {
    limit,
    done,
    context,
    first: undefined,
    chunks: undefined,
    size: 0,
  } as Reading<unknown>;
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
  request.on('close', onClose);
}

function refuse(request: IncomingMessage, { excess = 'drain' }: BodyLimit): void {
  if (excess === 'destroy') request.destroy();
  else request.resume();
}

/** Ends the read: its listeners removed and its state let go; the state, to tell its caller. */
function stop(request: ReadRequest): Reading<unknown> {
  const reading = request[READING] as Reading<unknown>;
  request.off('data', onData);
  request.off('end', onEnd);
  request.off('error', onError);
  request.off('close', onClose);
  request[READING] = undefined;
  return reading;
}

function onData(this: ReadRequest, chunk: Buffer): void {
  const reading = this[READING] as Reading<unknown>;
  reading.size += chunk.length;
  if (reading.size <= reading.limit.limit) {
    if (reading.chunks) reading.chunks.push(chunk);
    else if (reading.first) reading.chunks = [reading.first, chunk];
    else reading.first = chunk;
    return;
  }
  stop(this);
  reading.first = reading.chunks = undefined;
  refuse(this, reading.limit);
  reading.done(reading.limit.tooLarge(), undefined, reading.context);
}

function onEnd(this: ReadRequest): void {
  const { first, chunks, done, context } = stop(this);
  done(undefined, chunks ? Buffer.concat(chunks) : (first ?? Buffer.alloc(0)), context);
}

function onError(this: ReadRequest, error: Error): void {
  const { done, context } = stop(this);
  done(error, undefined, context);
}

function onClose(this: ReadRequest): void {
  if (this.complete) return;
  const { done, context } = stop(this);
  done(new RequestAbortedError(), undefined, context);
}
