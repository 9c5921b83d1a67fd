/**
 * Request and response plumbing shared by the device API and the admin API: body reading with a
 * size cap, JSON answers (lossless, so a DOUBLE keeps its `.0`), ThingsBoard's error body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type BodyLimit,
  readBody as readCappedBody,
  readBodyThen as readCappedBodyThen,
} from '../../../lib/http-body';
import { PlatformError } from '../core/errors';

/** A device API request body over the payload limit (413). */
export class PayloadTooLargeError extends PlatformError {
  override readonly code = 'IOTC_PLATFORM_PAYLOAD_TOO_LARGE';
  constructor(limit: number) {
    super(`Payload size exceeds the limit of ${limit} bytes`, 413, 31);
  }
}

/**
 * Reads the whole body; rejects with PayloadTooLargeError past `limit` bytes (Content-Length
 * checked first).
 */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return readCappedBody(request, bodyLimit(limit));
}

/**
 * readBody with a callback, called with `context` (lib/http-body.ts readBodyThen): the telemetry
 * endpoint's.
 */
export function readBodyThen<Context>(
  request: IncomingMessage,
  limit: number,
  done: (error: Error | undefined, body: Buffer | undefined, context: Context) => void,
  context: Context,
): void {
  readCappedBodyThen(request, bodyLimit(limit), done, context);
}

/**
 * The limits in use (a handful: the device API's, its RPC's, the admin API's, a planted fault's), each
 * made once, not per request.
 */
const BODY_LIMITS = new Map<number, BodyLimit>();

function bodyLimit(limit: number): BodyLimit {
  let made = BODY_LIMITS.get(limit);
  if (!made)
    BODY_LIMITS.set(limit, (made = { limit, tooLarge: () => new PayloadTooLargeError(limit) }));
  return made;
}

/**
 * 200 with an empty body, as sendEmpty(response, 200) answers it, for a POST (never a HEAD): Node
 * writes `Content-Length: 0` itself, without the header object sendEmpty hands to writeHead (its
 * names and values checked on every answer). The device API's telemetry answer: the hottest path.
 */
export function sendEmptyOk(response: ServerResponse): void {
  response.statusCode = 200;
  response.end();
}

export function sendEmpty(response: ServerResponse, status: number): void {
  response.writeHead(status, { 'content-length': '0' });
  response.end();
}

/** Sends JSON text as is (already serialized, e.g. by stringifyLossless). */
export function sendJsonText(response: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(text, 'utf8');
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(body.length),
  });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendJsonText(response, status, JSON.stringify(value));
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  const body = Buffer.from(text, 'utf8');
  response.writeHead(status, {
    'content-type': 'text/plain;charset=UTF-8',
    'content-length': String(body.length),
  });
  response.end(body);
}

/** ThingsBoard's error body: {status, message, errorCode, timestamp}. */
export function errorBody(error: PlatformError): Record<string, unknown> {
  return {
    status: error.status,
    message: error.message,
    errorCode: error.errorCode,
    timestamp: Date.now(),
  };
}

/**
 * Answers an error with its status and body (ThingsBoard's, unless the caller renders it
 * otherwise).
 */
export function sendError(
  response: ServerResponse,
  error: PlatformError,
  body: (error: PlatformError) => Record<string, unknown> = errorBody,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, error.status, body(error));
}

export function queryOf(url: string | undefined): URLSearchParams {
  const at = url?.indexOf('?') ?? -1;
  return new URLSearchParams(at >= 0 ? url!.slice(at + 1) : '');
}

/** Comma-separated keys of a query parameter (repeated parameters are joined), blanks dropped. */
export function keysParameter(query: URLSearchParams, name: string): string[] | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  return values
    .flatMap((value) => value.split(','))
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
}
