/**
 * The HTTP device API (interfaces.md "HTTP device API"): /api/v1/{access_token}/... and /api/v1/provision.
 *
 * Order of checks, as the platform: URL and query parameters (400), then the token (401, empty body), then the
 * body (400). interfaces.md is the authority on errors, so a client mistake is 400, never 5xx, and a rejected
 * request stores nothing: a payload is validated whole (schemas/) before any of it is stored.
 *
 * Where ThingsBoard differs (declared deviations of its profiles, never behaviour of this reference):
 * - malformed JSON or a wrong shape: ThingsBoard answers 500 with the parser's message, here 400;
 * - a null value: ThingsBoard drops it silently, here 400 (null is not one of the five value types);
 * - a string that looks like a number: ThingsBoard stores a LONG or DOUBLE (type cast), here a STRING;
 * - long-polls of 30 s or more end with 503 at about 30 s in the ThingsBoard monolith; here they last as asked;
 * - provisioning without deviceName: ThingsBoard makes up a name, here 400 (the field is required);
 * - client-side RPC: ThingsBoard's default rule chain never answers; here a configurable handler answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Router from 'find-my-way';
import { stringifyLossless, typedValueToLossless } from '../../../src/kv/values';
import { claimSchema, clientAttributesSchema, firmwareQuerySchema, longPollQuerySchema, provisionRequestSchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError, PlatformError } from '../core/errors';
import type { Device } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import { queryOf, keysParameter, readBody, sendEmpty, sendError, sendJson, sendJsonText, sendText } from './exchange';
import { parseJson, parseValid, telemetryEntries, typedEntries } from './payloads';

export type ClientRpcHandler = (device: { name: string; id: string }, request: unknown) => unknown | Promise<unknown>;

/** The default client-side RPC handler: answers with the request document itself (an echo). */
export const echoClientRpcHandler: ClientRpcHandler = (_device, request) => request;

const MAX_BODY = 50 * 1024 * 1024;
const MAX_RPC_BODY = 64 * 1024;
const DEFAULT_LONG_POLL_MS = 60_000;

type Params = Record<string, string | undefined>;
type Handler = (request: IncomingMessage, response: ServerResponse, params: Params) => Promise<unknown> | unknown;

export function registerDeviceApi(router: Router.Instance<Router.HTTPVersion.V1>, core: PlatformCore, clientRpc: ClientRpcHandler): void {
  const route = (method: 'GET' | 'POST', path: string, handler: Handler) =>
    router.on(method, path, (request, response, params) => {
      Promise.resolve()
        .then(() => handler(request, response, params as Params))
        .catch((error: unknown) => failed(response, error));
    });

  route('POST', '/api/v1/:token/telemetry', async (request, response, params) => {
    const device = authenticate(core, params, response);
    if (!device) return request.resume();
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    core.saveTelemetry(device, telemetryEntries(text, Date.now()));
    sendEmpty(response, 200);
  });

  route('POST', '/api/v1/:token/attributes', async (request, response, params) => {
    const device = authenticate(core, params, response);
    if (!device) return request.resume();
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    const document = parseValid(text, clientAttributesSchema, 'attributes');
    core.saveAttributes(device, 'CLIENT_SCOPE', typedEntries(document));
    sendEmpty(response, 200);
  });

  route('GET', '/api/v1/:token/attributes', (request, response, params) => {
    const query = queryOf(request.url);
    const device = authenticate(core, params, response);
    if (!device) return;
    const clientKeys = keysParameter(query, 'clientKeys');
    const sharedKeys = keysParameter(query, 'sharedKeys');
    const both = clientKeys === undefined && sharedKeys === undefined;
    const answer: Record<string, Record<string, unknown>> = {};
    const pick = (scope: 'CLIENT_SCOPE' | 'SHARED_SCOPE', keys: string[] | undefined) => {
      const found: Record<string, unknown> = {};
      for (const [key, attribute] of device.attributes[scope]) {
        if (!keys || keys.includes(key)) found[key] = typedValueToLossless(attribute.value);
      }
      return Object.keys(found).length ? found : undefined;
    };
    const client = both || clientKeys ? pick('CLIENT_SCOPE', clientKeys) : undefined;
    const shared = both || sharedKeys ? pick('SHARED_SCOPE', sharedKeys) : undefined;
    if (client) answer.client = client;
    if (shared) answer.shared = shared;
    sendJsonText(response, 200, stringifyLossless(answer));
  });

  route('GET', '/api/v1/:token/attributes/updates', (request, response, params) => {
    const timeoutMs = longPollTimeout(request);
    const device = authenticate(core, params, response);
    if (!device) return;
    longPoll(response, timeoutMs, (finish) => [
      core.on(device, 'shared', ({ updated, deleted }) => {
        const body: Record<string, unknown> = {};
        for (const [key, attribute] of updated) body[key] = typedValueToLossless(attribute.value);
        if (deleted.length) body.deleted = deleted;
        finish(() => sendJsonText(response, 200, stringifyLossless(body)));
      }),
      core.on(device, 'deleted', () => finish(() => sendText(response, 403, 'Device was deleted!'))),
    ]);
  });

  route('GET', '/api/v1/:token/rpc', (request, response, params) => {
    const timeoutMs = longPollTimeout(request);
    const device = authenticate(core, params, response);
    if (!device) return;
    const deliver = (): boolean => {
      const rpc = core.takeRpc(device);
      if (!rpc) return false;
      sendJson(response, 200, { id: rpc.id, method: rpc.method, params: rpc.params });
      return true;
    };
    if (deliver()) return;
    longPoll(response, timeoutMs, (finish) => [
      core.on(device, 'rpc', () => finish(deliver)),
      core.on(device, 'deleted', () => finish(() => sendText(response, 403, 'Device was deleted!'))),
    ]);
  });

  route('POST', '/api/v1/:token/rpc/:id', async (request, response, params) => {
    if (!/^\d{1,9}$/.test(params.id ?? '')) throw new BadRequestError(`Invalid RPC request id: ${params.id}`);
    const device = authenticate(core, params, response);
    if (!device) return request.resume();
    const text = (await readBody(request, MAX_RPC_BODY)).toString('utf8');
    parseJson(text, 'RPC reply');
    core.replyRpc(device, Number(params.id), text);
    sendEmpty(response, 200);
  });

  route('POST', '/api/v1/:token/rpc', async (request, response, params) => {
    const device = authenticate(core, params, response);
    if (!device) return request.resume();
    const text = (await readBody(request, MAX_RPC_BODY)).toString('utf8');
    const document = parseJson(text, 'client-side RPC request');
    const answer = await clientRpc({ name: device.name, id: device.id }, document);
    sendJson(response, 200, answer ?? {});
  });

  route('POST', '/api/v1/:token/claim', async (request, response, params) => {
    const device = authenticate(core, params, response);
    if (!device) return request.resume();
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    const claim = text.trim() === '' ? {} : (parseValid(text, claimSchema, 'claim') as { secretKey?: string; durationMs?: unknown });
    const durationMs = claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
    core.registerClaim(device, claim.secretKey, durationMs);
    sendEmpty(response, 200);
  });

  route('POST', '/api/v1/provision', async (request, response) => {
    const text = (await readBody(request, MAX_BODY)).toString('utf8');
    const provision = parseValid(text, provisionRequestSchema, 'provisioning request') as {
      deviceName: string;
      provisionDeviceKey: string;
      provisionDeviceSecret: string;
      token?: string;
      gateway?: boolean;
    };
    const outcome = core.provision(provision);
    if (outcome.status === 'SUCCESS') {
      sendJson(response, 200, { credentialsValue: outcome.device.token, credentialsType: 'ACCESS_TOKEN', status: 'SUCCESS' });
    } else if (outcome.status === 'NOT_FOUND') {
      sendJson(response, 200, { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' });
    } else {
      sendJson(response, 200, { errorMsg: 'Failed to provision device!', status: 'FAILURE' });
    }
  });

  route('GET', '/api/v1/:token/firmware', (request, response, params) => {
    const query = Object.fromEntries(queryOf(request.url));
    const check = validate(firmwareQuerySchema, query);
    if (!check.ok) throw new BadRequestError(`Invalid firmware request: ${check.errors.join('; ')}`);
    const device = authenticate(core, params, response);
    if (!device) return;
    const ota = core.firmwareOf(device);
    if (!ota || !ota.data) return sendEmpty(response, 404);
    if (ota.title !== query.title || ota.version !== query.version) {
      throw new BadRequestError(`Firmware ${query.title} ${query.version} is not the package assigned to the device`);
    }
    const size = Number(query.size ?? 0);
    const chunk = Number(query.chunk ?? 0);
    const part = size === 0 ? ota.data : ota.data.subarray(Math.min(size * chunk, ota.data.length), Math.min(size * (chunk + 1), ota.data.length));
    response.writeHead(200, {
      'content-type': ota.contentType ?? 'application/octet-stream',
      'content-length': String(part.length),
      'content-disposition': `attachment;filename=${ota.fileName ?? `${ota.title}-${ota.version}.bin`}`,
      'x-filename': ota.fileName ?? `${ota.title}-${ota.version}.bin`,
    });
    response.end(part);
  });
}

/** The device of the path's token; answers 401 with an empty body (as the platform) when there is none. */
function authenticate(core: PlatformCore, params: Params, response: ServerResponse): Device | undefined {
  const device = core.deviceByTokenValue(params.token ?? '');
  if (!device) sendEmpty(response, 401);
  return device;
}

function longPollTimeout(request: IncomingMessage): number {
  const query = Object.fromEntries(queryOf(request.url));
  const check = validate(longPollQuerySchema, query);
  if (!check.ok) throw new BadRequestError(`Invalid timeout parameter: ${check.errors.join('; ')}`);
  const timeout = Number(query.timeout ?? 0);
  return timeout > 0 ? timeout : DEFAULT_LONG_POLL_MS;
}

/**
 * Holds the response open until `subscribe`'s listeners call finish, the timeout passes (408, empty body, as the
 * platform) or the client goes away. `finish(send)` answers once; a send that returns false keeps waiting.
 */
function longPoll(
  response: ServerResponse,
  timeoutMs: number,
  subscribe: (finish: (send: () => boolean | void) => void) => Array<() => void>,
): void {
  let done = false;
  const unsubscribers: Array<() => void> = [];
  const cleanup = () => {
    done = true;
    clearTimeout(timer);
    for (const unsubscribe of unsubscribers) unsubscribe();
  };
  const finish = (send: () => boolean | void) => {
    if (done) return;
    if (send() === false) return;
    cleanup();
  };
  const timer = setTimeout(() => finish(() => sendEmpty(response, 408)), timeoutMs);
  unsubscribers.push(...subscribe(finish));
  response.on('close', cleanup);
}

function failed(response: ServerResponse, error: unknown): void {
  if (error instanceof PlatformError) return sendError(response, error);
  sendError(response, new PlatformError((error as Error)?.message ?? 'Internal error', 500, 2));
}
