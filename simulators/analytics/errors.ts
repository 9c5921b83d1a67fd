/**
 * One error class per way a report request fails. Each carries the HTTP status it is answered with
 * and a stable `code`; the answer body is `{"status": <http>, "message": "..."}` (the spec shows no
 * error shape: this one is small and clear, and close to the platform's own `{status, message,
 * ...}`).
 */
import { IotcError } from '../../lib/errors';
export abstract class AnalyticsError extends IotcError {
  abstract readonly status: number;
}

/** An analytics request whose Content-Type is not application/json (415). */
export class UnsupportedMediaTypeError extends AnalyticsError {
  readonly status = 415;
  readonly code = 'IOTC_ANALYTICS_UNSUPPORTED_MEDIA_TYPE';
  constructor(contentType: string | undefined) {
    super(`Content-Type '${contentType ?? ''}' is not supported; use application/json`);
  }
}

/** The analytics request carries no valid JWT (403). */
export class InvalidJwtError extends AnalyticsError {
  readonly status = 403;
  readonly code = 'IOTC_ANALYTICS_INVALID_JWT';
  constructor(message = 'JWT is not valid or has expired') {
    super(message);
  }
}

/** The report limiter's pool and queue are full (429). */
export class TooManyRequestsError extends AnalyticsError {
  readonly status = 429;
  readonly code = 'IOTC_ANALYTICS_TOO_MANY_REQUESTS';
  constructor() {
    super('Too many requests: the report pool and queue are full; wait and repeat');
  }
}

/** A buildReport request with missing or invalid fields (400). */
export class BadReportRequestError extends AnalyticsError {
  readonly status = 400;
  readonly code = 'IOTC_ANALYTICS_BAD_REQUEST';
}

/** An analytics request body over the size limit (413). */
export class ReportBodyTooLargeError extends AnalyticsError {
  readonly status = 413;
  readonly code = 'IOTC_ANALYTICS_PAYLOAD_TOO_LARGE';
  constructor(limit: number) {
    super(`Request body is larger than ${limit} bytes`);
  }
}

/** A buildReport request for a view the user cannot see (404). */
export class ViewNotFoundError extends AnalyticsError {
  readonly status = 404;
  readonly code = 'IOTC_ANALYTICS_VIEW_NOT_FOUND';
  constructor(viewConfigId: string) {
    super(`View ${viewConfigId} was not found`);
  }
}

/** An analytics path that is no endpoint (404). */
export class UnknownRouteError extends AnalyticsError {
  readonly status = 404;
  readonly code = 'IOTC_ANALYTICS_UNKNOWN_ROUTE';
  constructor(path: string) {
    super(`No such endpoint: ${path}`);
  }
}

/** An analytics endpoint called with a method it does not serve (405). */
export class MethodNotAllowedError extends AnalyticsError {
  readonly status = 405;
  readonly code = 'IOTC_ANALYTICS_METHOD_NOT_ALLOWED';
  constructor(
    method: string,
    readonly allowed: string,
  ) {
    super(`Method ${method} is not allowed here; use ${allowed}`);
  }
}

/** The platform answered a read with something other than the data or an authentication refusal. */
export class PlatformReadError extends AnalyticsError {
  readonly status = 502;
  readonly code = 'IOTC_ANALYTICS_PLATFORM_READ_FAILED';
}

/**
 * A views file that does not satisfy the views schema; thrown at start, never answered over HTTP.
 */
export class ViewsFileError extends IotcError {
  readonly code = 'IOTC_ANALYTICS_VIEWS_FILE_INVALID';
}
