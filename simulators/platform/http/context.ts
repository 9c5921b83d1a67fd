/**
 * What every device API handler gets: the request, the response, the path parameters and the API's shared state
 * (find-my-way's route store), so handlers are plain module functions and no closure is made per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { PlatformCore } from '../core/platform-core';
import { PlatformError } from '../core/errors';
import type { Device } from '../core/model';
import { PayloadTooLargeError, sendEmpty, sendError, sendJson, sendText } from './exchange';
import { BadRequestError } from '../core/errors';
import type { Quirks } from '../quirks';
import { faultActive } from '../../../faults';
import { heldLongPolls } from './long-poll';

/** Answers client-side RPC (POST /api/v1/{token}/rpc): the request document (plain JSON values) → the answer. */
export type ClientRpcHandler = (
  device: { name: string; id: string },
  request: unknown,
) => unknown | Promise<unknown>;

export interface DeviceApi {
  core: PlatformCore;
  clientRpc: ClientRpcHandler;
  logger: Logger;
  quirks: Quirks;
}

export type Params = Record<string, string | undefined>;
export type DeviceHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: Params,
  api: DeviceApi,
) => void | Promise<void>;

/** HTTP transport limits (transport.http.max_payload_size): 64 KiB for rpc, 50 MiB for the rest. */
export const MAX_BODY = 50 * 1024 * 1024;
export const MAX_RPC_BODY = 64 * 1024;

/**
 * The device of the path's token; answers 401 with an empty body (as the platform) when there is none. A long-poll
 * passes its timeout, which only a planted fault uses (an unknown token waiting like a device).
 */
export function authenticate(
  api: DeviceApi,
  params: Params,
  request: IncomingMessage,
  response: ServerResponse,
  longPollMs?: number,
): Device | undefined {
  const token = params.token ?? '';
  const device = api.core.deviceByTokenValue(token) ?? caseFoldedFault(api, token);
  if (!device) {
    request.resume(); // the body of a refused request is drained, never read
    if (longPollMs !== undefined && faultActive('HTTP-ERR-04:long-poll-unknown-token-waits')) {
      const timer = setTimeout(() => sendEmpty(response, 408), longPollMs);
      response.on('close', () => clearTimeout(timer));
      return undefined;
    }
    sendEmpty(response, faultActive('HTTP-ERR-04:unknown-token-403') ? 403 : 401);
  }
  return device;
}

/** Planted fault: a token that differs from a device's only in case is taken as that device's. */
function caseFoldedFault(api: DeviceApi, token: string): Device | undefined {
  if (!faultActive('HTTP-AUTH-01:token-case-folded')) return undefined;
  const folded = token.toLowerCase();
  for (const device of api.core.devices.values())
    if (device.token.toLowerCase() === folded) return device;
  return undefined;
}

/** Wraps a handler so that any error becomes an answer: PlatformError as itself, anything else 500 code 2. */
export function guarded(handler: DeviceHandler) {
  return (
    request: IncomingMessage,
    response: ServerResponse,
    params: Params,
    api: DeviceApi,
  ): void => {
    if (faultActive('ROB-POLL-01:busy-while-polls-held') && heldLongPolls() >= 100) {
      request.resume();
      return sendEmpty(response, 503);
    }
    try {
      const pending = handler(request, response, params, api);
      if (pending) pending.catch((error: unknown) => failed(request, response, error, api));
    } catch (error) {
      failed(request, response, error, api);
    }
  };
}

/**
 * Quirks mode: a payload the platform cannot parse is answered 500 with the parser's message as plain text, as
 * ThingsBoard does (docs/reference/platform-facts.md §3). Only for the handlers that parse device payloads.
 */
export function payloadFailure(error: unknown, response: ServerResponse, api: DeviceApi): boolean {
  if (!(error instanceof BadRequestError) || api.quirks.malformedPayloadStatus === 400)
    return false;
  sendText(response, api.quirks.malformedPayloadStatus, error.message);
  return true;
}

function failed(
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  api: DeviceApi,
): void {
  request.resume();
  if (
    faultActive('HTTP-ERR-01:malformed-json-500') &&
    error instanceof BadRequestError &&
    error.message.includes('malformed JSON')
  )
    return sendError(response, new PlatformError(error.message, 500, 2));
  // the HTTP transport's PayloadSizeFilter answers before any controller, the message as a JSON string (the admin
  // API's error handler writes the error object)
  if (error instanceof PayloadTooLargeError && !response.headersSent)
    return sendJson(response, 413, error.message);
  if (error instanceof PlatformError) return sendError(response, error);
  api.logger.error({ err: error, url: request.url }, 'device API request failed');
  sendError(response, new PlatformError((error as Error)?.message ?? 'Internal error', 500, 2));
}
