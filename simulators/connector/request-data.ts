/**
 * From an HTTP request to the one key-value object converters read (docs/reference/interfaces.md
 * "Request body rules"): JSON and multipart/form-data on the same endpoint with no extra
 * configuration, multipart fields merged (file parts ignored with an info log), url-encoded forms,
 * and the query parameters, which win over body fields (docs/reference/rest-connector-facts.md §3).
 * GET requests read only the query. Raw bodies are kept for custom converters.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { Logger } from 'pino';
import type { RequestData } from './converted';
import { IotcError } from '../../lib/errors';
import { readBody as readCappedBody } from '../../lib/http-body';
import { withFaults } from '../../faults/steps';
import {
  REQUEST_DATA_FAULTS,
  REQUEST_DATA_STEPS,
  type RequestDataSteps,
} from './request-data-steps';

/**
 * A request body that cannot be read: malformed JSON (400) or a media type no converter takes
 * (415).
 */
export class RequestBodyError extends IotcError {
  readonly code = 'IOTC_REQUEST_BODY';
  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A body that is not UTF-8 text, refused before any converter runs (500): gateway 3.8.3's aiohttp
 * decoding.
 */
export class BinaryBodyRefusedError extends IotcError {
  readonly code = 'IOTC_BINARY_BODY_REFUSED';
  constructor() {
    super('the body is not UTF-8 text');
  }
}

/**
 * A JSON body that is no object where gateway 3.8.3 fails on it uncaught (its handler takes the
 * first element of an array and updates a dict with it), so its web server answers its own 500 page
 * (quirks mode only).
 */
export class UncaughtBodyError extends IotcError {
  readonly code = 'IOTC_UNCAUGHT_BODY';
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function readRequestData(
  request: IncomingMessage,
  url: URL,
  /**
   * refuseBinary: a body that is not UTF-8 is refused before any converter; nonObjectUncaught: a
   * JSON body that is no object fails uncaught (both gateway 3.8 quirks modes).
   */
  options: {
    rawBody: boolean;
    logger: Logger;
    refuseBinary?: boolean;
    nonObjectUncaught?: boolean;
  },
): Promise<RequestData> {
  const receivedAt = Date.now();
  // read from several handlers, so the faults are applied here, per request (cheap: none are on
  // outside the matrix)
  const steps = withFaults(REQUEST_DATA_STEPS, REQUEST_DATA_FAULTS);
  const query: Record<string, unknown> = {};
  for (const [name, value] of steps.queryParameters(url))
    if (!Object.hasOwn(query, name)) query[name] = value; // a repeated name keeps its first value
  const method = request.method ?? 'GET';
  const contentType = request.headers['content-type'];
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (method === 'GET' || method === 'HEAD') {
    request.resume();
    return { method, data: steps.getData(query), body: Buffer.alloc(0), contentType, receivedAt };
  }
  if (!steps.accepted(mediaType)) {
    request.resume();
    throw new RequestBodyError(415, `${mediaType} is not accepted here`);
  }
  if (mediaType === 'multipart/form-data' || mediaType === 'application/x-www-form-urlencoded') {
    const fields = await readForm(request, options.logger, steps);
    return {
      method,
      data: { ...fields, ...query },
      body: Buffer.alloc(0),
      contentType,
      receivedAt,
    };
  }
  const body = await readBody(request);
  if (options.refuseBinary && !isUtf8(body)) throw new BinaryBodyRefusedError();
  if (options.rawBody) return { method, data: query, body, contentType, receivedAt };
  if (body.length === 0) return { method, data: query, body, contentType, receivedAt };
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new RequestBodyError(400, `the body is not JSON: ${(error as Error).message}`);
    }
    // gateway 3.8.3 converts the first element of a JSON array and updates a dict with what it got
    // (rest_connector.py _convert_data_from_request, :633-643 of 3.8.3): a scalar, null or [] fails
    // there, uncaught
    if (options.nonObjectUncaught && Array.isArray(parsed)) parsed = parsed[0];
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw options.nonObjectUncaught
        ? new UncaughtBodyError('the JSON body is no object')
        : new RequestBodyError(400, 'the JSON body must be an object');
    return {
      method,
      data: { ...(parsed as Record<string, unknown>), ...query },
      body,
      contentType,
      receivedAt,
    };
  }
  throw new RequestBodyError(
    415,
    `unsupported media type ${mediaType}: send application/json or multipart/form-data`,
  );
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return readCappedBody(request, {
    limit: MAX_BODY_BYTES,
    tooLarge: () => new RequestBodyError(400, 'the body is too large'),
    excess: 'destroy',
  });
}

/**
 * Multipart and url-encoded fields as one object; a part with Content-Type application/json is
 * parsed.
 */
function readForm(
  request: IncomingMessage,
  logger: Logger,
  steps: RequestDataSteps,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, unknown> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, limits: { fieldSize: MAX_BODY_BYTES } });
    } catch (error) {
      request.resume();
      reject(new RequestBodyError(400, `malformed form body: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (!steps.keepsField(fields, name)) return;
      if (info.mimeType === 'application/json') {
        try {
          fields[name] = JSON.parse(value);
          return;
        } catch {
          // kept as text
        }
      }
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) =>
      steps.filePart(name, stream, fields, logger, info.filename),
    );
    parser.on('close', () => resolve(fields));
    parser.on('error', (error: Error) =>
      reject(new RequestBodyError(400, `malformed form body: ${error.message}`)),
    );
    request.pipe(parser);
  });
}
