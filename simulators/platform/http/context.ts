/**
 * What every device API handler gets: the request, the response, the path parameters and the API's
 * shared state (find-my-way's route store), so handlers are plain module functions and no closure
 * is made per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { PlatformCore } from '../core/platform-core';
import { PlatformError } from '../core/errors';
import type { Device } from '../core/model';
import { PayloadTooLargeError, sendEmpty, sendError, sendJson, sendText } from './exchange';
import { BadRequestError } from '../core/errors';
import type { Quirks } from '../quirks';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { LONG_POLL_STEPS } from './long-poll';

/**
 * Answers client-side RPC (POST /api/v1/{token}/rpc): the request document (plain JSON values) →
 * the answer.
 */
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
/** HTTP transport limits (transport.http.max_payload_size): 64 KiB for rpc, 50 MiB for the rest. */
export const MAX_BODY = 50 * 1024 * 1024;
export const MAX_RPC_BODY = 64 * 1024;

/** One request to the device API: what an endpoint's steps work on. */
export interface DeviceExchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly params: Params;
  readonly api: DeviceApi;
}

/**
 * The steps every endpoint of the device API shares: admission, the token's device, the answer to
 * an unknown token, the error of an invalid query parameter, the long-poll's timing (long-poll.ts)
 * and the answer to a thrown error. A route's planted faults (route-faults.ts) may wrap them as
 * well as the endpoint's own steps.
 */
export const DEVICE_API_STEPS = {
  /**
   * Whether the request is served at all: always (the reference has no request threads to run out
   * of).
   */
  admit: (_exchange: DeviceExchange): boolean => true,
  /** The device whose access token is `token`. */
  deviceOf: (api: DeviceApi, token: string): Device | undefined =>
    api.core.deviceByTokenValue(token),
  /**
   * Answers a token that names no device: 401, empty body, as the platform (a long-poll passes its
   * timeout).
   */
  unknownToken: (exchange: DeviceExchange, _longPollMs: number | undefined): void =>
    sendEmpty(exchange.response, 401),
  /** The error of a query parameter the endpoint cannot take: 400. */
  invalidParameter: (message: string): Error => new BadRequestError(message),
  ...LONG_POLL_STEPS,
  /** Answers an error a handler threw: PlatformError as itself, anything else 500 code 2. */
  failed: (exchange: DeviceExchange, error: unknown): void => failed(exchange, error),
};
export type DeviceApiSteps = typeof DEVICE_API_STEPS;

/** An endpoint of the device API: its own steps (behaviour only) and the handler that runs them. */
export interface DeviceEndpoint<Own extends object> {
  readonly steps: Own;
  readonly handle: (exchange: DeviceExchange, steps: Own & DeviceApiSteps) => void | Promise<void>;
}

/** Every step an endpoint's handler gets: its own and the shared ones. */
export type EndpointSteps<Endpoint> =
  Endpoint extends DeviceEndpoint<infer Own> ? Own & DeviceApiSteps : never;

/** An endpoint, its step names inferred. */
export function endpoint<Own extends object>(definition: DeviceEndpoint<Own>): DeviceEndpoint<Own> {
  return definition;
}

/**
 * The device of the path's token; when there is none the body is drained and the token refused
 * (unknownToken).
 */
export function authenticate(
  exchange: DeviceExchange,
  steps: DeviceApiSteps,
  longPollMs?: number,
): Device | undefined {
  const device = steps.deviceOf(exchange.api, exchange.params.token ?? '');
  if (!device) {
    exchange.request.resume(); // the body of a refused request is drained, never read
    steps.unknownToken(exchange, longPollMs);
  }
  return device;
}

/**
 * An endpoint as a route's handler: per request, its steps with the faults of the shared table and
 * of the route's own table that are on (faults/steps.ts; nothing allocated when none is), and any
 * error it throws answered.
 */
export function served<Own extends object>(
  definition: DeviceEndpoint<Own>,
  shared: StepFaults<DeviceApiSteps>,
  faults: StepFaults<Own & DeviceApiSteps>,
) {
  const all = { ...DEVICE_API_STEPS, ...definition.steps } as Own & DeviceApiSteps;
  return (
    request: IncomingMessage,
    response: ServerResponse,
    params: Params,
    api: DeviceApi,
  ): void => {
    const steps = withFaults(withFaults(all, shared as StepFaults<Own & DeviceApiSteps>), faults);
    const exchange: DeviceExchange = { request, response, params, api };
    if (!steps.admit(exchange)) return;
    answeringErrors(exchange, steps, definition.handle, steps);
  };
}

/**
 * Runs a handler, or the part of one after a callback, with its last argument: what it throws, or
 * its promise rejects with, is answered (`failed`).
 */
export function answeringErrors<Argument>(
  exchange: DeviceExchange,
  steps: DeviceApiSteps,
  run: (exchange: DeviceExchange, argument: Argument) => void | Promise<void>,
  argument: Argument,
): void {
  try {
    const pending = run(exchange, argument);
    if (pending) pending.catch((error: unknown) => steps.failed(exchange, error));
  } catch (error) {
    steps.failed(exchange, error);
  }
}

/**
 * Quirks mode: a payload the platform cannot parse is answered 500 with the parser's message as
 * plain text, as ThingsBoard does (docs/reference/platform-facts.md §3). Only for the handlers that
 * parse device payloads.
 */
export function payloadFailure(error: unknown, response: ServerResponse, api: DeviceApi): boolean {
  if (!(error instanceof BadRequestError) || api.quirks.malformedPayloadStatus === 400)
    return false;
  sendText(response, api.quirks.malformedPayloadStatus, error.message);
  return true;
}

function failed({ request, response, api }: DeviceExchange, error: unknown): void {
  request.resume();
  // the HTTP transport's PayloadSizeFilter answers before any controller, the message as a JSON
  // string (the admin API's error handler writes the error object)
  if (error instanceof PayloadTooLargeError && !response.headersSent)
    return sendJson(response, 413, error.message);
  if (error instanceof PlatformError) return sendError(response, error);
  api.logger.error({ err: error, url: request.url }, 'device API request failed');
  sendError(response, new PlatformError((error as Error)?.message ?? 'Internal error', 500, 2));
}
