/**
 * RPC over HTTP:
 * - GET /api/v1/{token}/rpc?timeout=ms: long-poll; a queued, unexpired server-side RPC is delivered at once, else
 *   the first one sent during the poll: 200 {"id","method","params"} (the RPC becomes DELIVERED); 408 empty at the
 *   timeout; 403 "Device was deleted!" when the device is deleted meanwhile.
 * - POST /api/v1/{token}/rpc/{id}: the device's JSON reply, relayed to the waiting admin caller; 200 empty, also
 *   for an unknown id; 400 for a non-integer id or a body that is not JSON.
 * - POST /api/v1/{token}/rpc: client-side RPC; any JSON document, answered by the ClientRpcHandler.
 */
import { stringifyLossless } from '../../../lib/kv/values';
import { BadRequestError } from '../core/errors';
import { MAX_RPC_BODY, authenticate, type DeviceHandler } from './context';
import { readBody, sendEmpty, sendJsonText, sendText } from './exchange';
import { DEVICE_DELETED } from './attribute-updates';
import { longPoll, longPollTimeout } from './long-poll';
import { parseJson } from '../core/payloads';
import type { Device } from '../core/model';
import type { ServerResponse } from 'node:http';
import type { PlatformCore } from '../core/platform-core';
import { faultActive } from '../../../faults';

const INT_ID = /^-?\d{1,10}$/;

export const getRpc: DeviceHandler = (request, response, params, api) => {
  const timeoutMs = longPollTimeout(request, api.quirks);
  const device = authenticate(api, params, request, response, timeoutMs);
  if (!device) return;
  if (!faultActive('HTTP-RPC-01:queued-not-delivered') && deliver(api.core, device, response))
    return;
  longPoll(
    response,
    timeoutMs,
    (finish) => [
      api.core.on(device, 'rpc', () => finish(() => deliver(api.core, device, response))),
      api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
    ],
    {
      ignored: faultActive('HTTP-RPC-02:timeout-ignored'),
      early: faultActive('HTTP-RPC-02:early-timeout'),
      withBody: faultActive('HTTP-RPC-02:timeout-with-body'),
    },
  );
};

/** Sends the device's next pending RPC; false when there is none (another session may have taken it). */
function deliver(core: PlatformCore, device: Device, response: ServerResponse): boolean {
  const rpc = core.takeRpc(device);
  if (!rpc) return false;
  const request: Record<string, unknown> = { id: rpc.id, method: rpc.method, params: rpc.params };
  if (faultActive('HTTP-RPC-01:params-dropped')) delete request.params;
  if (faultActive('HTTP-RPC-01:id-as-string')) request.id = String(rpc.id);
  sendJsonText(response, 200, stringifyLossless(request));
  return true;
}

/** The RPC body limit (64 KiB); a planted fault lifts it. */
function rpcBodyLimit(): number {
  if (faultActive('ROB-SIZE-01:rpc-limit-exclusive')) return MAX_RPC_BODY - 1;
  return faultActive('ROB-SIZE-01:rpc-size-unchecked') ? Number.POSITIVE_INFINITY : MAX_RPC_BODY;
}

export const postRpcReply: DeviceHandler = async (request, response, params, api) => {
  const id = params.id ?? '';
  const integer = INT_ID.test(id) && Number(id) <= 2147483647 && Number(id) >= -2147483648;
  if (!integer && !faultActive('HTTP-ERR-03:non-integer-rpc-id-accepted')) {
    throw new BadRequestError(`Invalid RPC request id: ${id} is not an integer`);
  }
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, rpcBodyLimit())).toString('utf8');
  const reply = parseJson(text, 'RPC reply');
  if (!faultActive('HTTP-RPC-03:reply-ignored'))
    api.core.replyRpc(
      device,
      Number(id),
      faultActive('HTTP-RPC-03:reply-retyped') ? JSON.stringify(reply) : text,
    );
  sendEmpty(response, 200);
};

export const postClientRpc: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, rpcBodyLimit())).toString('utf8');
  const document = parseJson(text, 'client-side RPC request');
  const answer = await api.clientRpc({ name: device.name, id: device.id }, document);
  if (faultActive('HTTP-RPC-04:text-answer')) return sendText(response, 200, 'OK: answered');
  if (answer === undefined || faultActive('HTTP-RPC-04:empty-answer'))
    return sendEmpty(response, 200);
  // the request itself handed back (the default echo) keeps its exact text: 42.0 stays 42.0
  sendJsonText(response, 200, answer === document ? text : stringifyLossless(answer));
};
