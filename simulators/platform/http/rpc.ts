/**
 * RPC over HTTP:
 * - GET /api/v1/{token}/rpc?timeout=ms: long-poll; a queued, unexpired server-side RPC is delivered
 *   at once, else the first one sent during the poll: 200 {"id","method","params"} (the RPC becomes
 *   DELIVERED); 408 empty at the timeout; 403 "Device was deleted!" when the device is deleted
 *   meanwhile.
 * - POST /api/v1/{token}/rpc/{id}: the device's JSON reply, relayed to the waiting admin caller;
 *   200 empty, also for an unknown id; 400 for a non-integer id or a body that is not JSON.
 * - POST /api/v1/{token}/rpc: client-side RPC; any JSON document, answered by the ClientRpcHandler.
 */
import { stringifyLossless } from '../../../lib/kv/values';
import { BadRequestError } from '../core/errors';
import { MAX_RPC_BODY, authenticate, endpoint } from './context';
import { readBody, sendEmpty, sendJsonText, sendText } from './exchange';
import { DEVICE_DELETED } from './attribute-updates';
import { longPoll, longPollTimeout } from './long-poll';
import { parseJson } from '../core/payloads';
import type { Device, RpcRequest } from '../core/model';
import type { ServerResponse } from 'node:http';
import type { PlatformCore } from '../core/platform-core';

const INT_ID = /^-?\d{1,10}$/;

/**
 * Sends the device's next pending RPC as `render` makes it; false when there is none (another
 * session may have taken it).
 */
function deliver(
  core: PlatformCore,
  device: Device,
  response: ServerResponse,
  render: (rpc: RpcRequest) => Record<string, unknown>,
): boolean {
  const rpc = core.takeRpc(device);
  if (!rpc) return false;
  sendJsonText(response, 200, stringifyLossless(render(rpc)));
  return true;
}

export const GET_RPC = endpoint({
  steps: {
    /** Answers at once with an RPC queued before the poll; false when none is. */
    deliverQueued: deliver,
    /** The RPC as the device receives it: {id, method, params}. */
    request: (rpc: RpcRequest): Record<string, unknown> => ({
      id: rpc.id,
      method: rpc.method,
      params: rpc.params,
    }),
  },
  handle: (exchange, steps) => {
    const { request, response, api } = exchange;
    const timeoutMs = longPollTimeout(request, api.quirks, steps);
    const device = authenticate(exchange, steps, timeoutMs);
    if (!device) return;
    if (steps.deliverQueued(api.core, device, response, steps.request)) return;
    longPoll(
      response,
      steps.pollWaitMs(timeoutMs),
      (finish) => [
        api.core.on(device, 'rpc', () =>
          finish(() => deliver(api.core, device, response, steps.request)),
        ),
        api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
      ],
      steps.pollTimedOut,
    );
  },
});

/**
 * The RPC body limit of transport.http.max_payload_size (64 KiB), for the reply and client-side
 * RPC.
 */
const RPC_BODY = {
  rpcBodyLimit: (): number => MAX_RPC_BODY,
};

export const POST_RPC_REPLY = endpoint({
  steps: {
    ...RPC_BODY,
    /** Whether the path's RPC id is one: an integer of 32 bits (else 400). */
    validId: (id: string): boolean =>
      INT_ID.test(id) && Number(id) <= 2147483647 && Number(id) >= -2147483648,
    /** Relays the device's reply (its exact text) to the waiting admin caller. */
    reply: (core: PlatformCore, device: Device, id: number, text: string, _reply: unknown): void =>
      core.replyRpc(device, id, text),
  },
  handle: async (exchange, steps) => {
    const { request, response, params, api } = exchange;
    const id = params.id ?? '';
    if (!steps.validId(id))
      throw new BadRequestError(`Invalid RPC request id: ${id} is not an integer`);
    const device = authenticate(exchange, steps);
    if (!device) return;
    const text = (await readBody(request, steps.rpcBodyLimit())).toString('utf8');
    const reply = parseJson(text, 'RPC reply');
    steps.reply(api.core, device, Number(id), text, reply);
    sendEmpty(response, 200);
  },
});

export const POST_CLIENT_RPC = endpoint({
  steps: {
    ...RPC_BODY,
    /**
     * Sends the handler's answer: the request's exact text when it is the request itself (42.0
     * stays 42.0).
     */
    answer: (response: ServerResponse, answer: unknown, document: unknown, text: string): void => {
      if (answer === undefined) return sendEmpty(response, 200);
      sendJsonText(response, 200, answer === document ? text : stringifyLossless(answer));
    },
  },
  handle: async (exchange, steps) => {
    const { request, response, api } = exchange;
    const device = authenticate(exchange, steps);
    if (!device) return;
    const text = (await readBody(request, steps.rpcBodyLimit())).toString('utf8');
    const document = parseJson(text, 'client-side RPC request');
    const answer = await api.clientRpc({ name: device.name, id: device.id }, document);
    steps.answer(response, answer, document, text);
  },
});
