/** Small pieces of one HTTP exchange: answers, the request body, the Content-Type rule and the JWT's place. */
import { readBody as readCappedBody } from '../../lib/http-body';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AnalyticsError,
  BadReportRequestError,
  ReportBodyTooLargeError,
  UnsupportedMediaTypeError,
} from './errors';
import { faultActive } from '../../faults';

const MAX_BODY_BYTES = 64 * 1024;

export function sendJsonText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** `{"status": <http>, "message": "..."}` */
export function sendError(
  response: ServerResponse,
  error: AnalyticsError,
  headers: Record<string, string> = {},
): void {
  sendJsonText(
    response,
    error.status,
    JSON.stringify({ status: error.status, message: error.message }),
    headers,
  );
}

/** application/json, with or without parameters such as charset (Spring also takes application/*+json). */
export function requireJson(request: IncomingMessage): void {
  const contentType = request.headers['content-type'];
  if (faultActive('AN-ERR-02:content-type-unchecked')) return;
  const mediaType = contentType?.split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json' && !/^application\/[^/]+\+json$/.test(mediaType ?? ''))
    throw new UnsupportedMediaTypeError(contentType);
}

/** The JWT from the `jwt` query parameter, else the `jwt` header. */
export function jwtOf(request: IncomingMessage, url: URL): string | undefined {
  const fromQuery = faultActive('AN-02:query-jwt-ignored') ? null : url.searchParams.get('jwt');
  if (fromQuery) return fromQuery;
  if (faultActive('AN-03:header-jwt-ignored')) return undefined;
  const header = request.headers.jwt;
  return (Array.isArray(header) ? header[0] : header) || undefined;
}

/** The body as UTF-8 text, at most MAX_BODY_BYTES; rejects when the client goes away first. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const text = (
    await readCappedBody(request, {
      limit: MAX_BODY_BYTES,
      tooLarge: () => new ReportBodyTooLargeError(MAX_BODY_BYTES),
    })
  ).toString('utf8');
  if (!text.trim())
    throw new BadReportRequestError('Request body is empty; a report request needs viewConfigId');
  return text;
}
