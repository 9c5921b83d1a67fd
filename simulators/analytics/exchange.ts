/**
 * Small pieces of one HTTP exchange: answers, the request body, the Content-Type rule and the JWT's
 * place.
 */
import { readBody as readCappedBody } from '../../lib/http-body';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AnalyticsError,
  BadReportRequestError,
  InvalidJwtError,
  ReportBodyTooLargeError,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
} from './errors';
import { type StepFaults, withFaults } from '../../faults/steps';

const MAX_BODY_BYTES = 64 * 1024;

/** The steps of an exchange that planted faults wrap (the table below). */
interface ExchangeSteps {
  /** The HTTP status an error is answered with. */
  status(error: AnalyticsError): number;
  /** Throws UnsupportedMediaTypeError unless the Content-Type is JSON. */
  requireJson(contentType: string | undefined): void;
  /** The JWT of the `jwt` query parameter, if any. */
  queryJwt(url: URL): string | null;
  /** The JWT of the `jwt` header, if any. */
  headerJwt(request: IncomingMessage): string | undefined;
}

const EXCHANGE_STEPS: ExchangeSteps = {
  status: (error) => error.status,
  requireJson: (contentType) => {
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    if (mediaType !== 'application/json' && !/^application\/[^/]+\+json$/.test(mediaType ?? ''))
      throw new UnsupportedMediaTypeError(contentType);
  },
  queryJwt: (url) => url.searchParams.get('jwt'),
  headerJwt: (request) => {
    const header = request.headers.jwt;
    return (Array.isArray(header) ? header[0] : header) || undefined;
  },
};

/**
 * A status step answering `status` for errors of class `type`, the others as the step it wraps
 * does.
 */
const statusOf =
  (type: abstract new (...args: never[]) => AnalyticsError, status: number) =>
  (step: ExchangeSteps['status']) =>
  (error: AnalyticsError) =>
    error instanceof type ? status : step(error);

const EXCHANGE_FAULTS: StepFaults<ExchangeSteps> = {
  'AN-ERR-01:invalid-jwt-401': { status: statusOf(InvalidJwtError, 401) },
  'AN-ERR-02:unsupported-400': { status: statusOf(UnsupportedMediaTypeError, 400) },
  'AN-ERR-03:rejected-503': { status: statusOf(TooManyRequestsError, 503) },
  'AN-ERR-02:content-type-unchecked': { requireJson: () => () => undefined },
  'AN-02:query-jwt-ignored': { queryJwt: () => () => null },
  'AN-03:header-jwt-ignored': { headerJwt: () => () => undefined },
};

const steps = () => withFaults(EXCHANGE_STEPS, EXCHANGE_FAULTS);

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
  const status = steps().status(error);
  sendJsonText(response, status, JSON.stringify({ status, message: error.message }), headers);
}

/**
 * application/json, with or without parameters such as charset (Spring also takes
 * application/*+json).
 */
export function requireJson(request: IncomingMessage): void {
  steps().requireJson(request.headers['content-type']);
}

/** The JWT from the `jwt` query parameter, else the `jwt` header. */
export function jwtOf(request: IncomingMessage, url: URL): string | undefined {
  const { queryJwt, headerJwt } = steps();
  return queryJwt(url) || headerJwt(request);
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
