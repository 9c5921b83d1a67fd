/**
 * RPC over HTTP:
 * - GET /api/v1/{token}/rpc?timeout=ms: long-poll; a queued, unexpired server-side RPC is delivered at once, else
 *   the first one sent during the poll: 200 {"id","method","params"} (the RPC becomes DELIVERED); 408 empty at the
 *   timeout; 403 "Device was deleted!" when the device is deleted meanwhile.
 * - POST /api/v1/{token}/rpc/{id}: the device's JSON reply, relayed to the waiting admin caller; 200 empty, also
 *   for an unknown id; 400 for a non-integer id or a body that is not JSON.
 * - POST /api/v1/{token}/rpc: client-side RPC; any JSON document, answered by the ClientRpcHandler.
 */
import { stringifyLossless } from '../../../src/kv/values';
import { BadRequestError } from '../core/errors';
import { MAX_RPC_BODY, authenticate, type DeviceHandler } from './context';
import { readBody, sendEmpty, sendJsonText, sendText } from './exchange';
import { DEVICE_DELETED } from './attribute-updates';
import { longPoll, longPollTimeout } from './long-poll';
import { parseJson } from '../core/payloads';
import type { Device } from '../core/model';
import type { ServerResponse } from 'node:http';
import type { PlatformCore } from '../core/platform-core';

const INT_ID = /^-?\d{1,10}$/;

export const getRpc: DeviceHandler = (request, response, params, api) => {
  const timeoutMs = longPollTimeout(request);
  const device = authenticate(api, params, request, response);
  if (!device) return;
  if (deliver(api.core, device, response)) return;
  longPoll(response, timeoutMs, (finish) => [
    api.core.on(device, 'rpc', () => finish(() => deliver(api.core, device, response))),
    api.core.on(device, 'deleted', () => finish(() => sendText(response, 403, DEVICE_DELETED))),
  ]);
};

/** Sends the device's next pending RPC; false when there is none (another session may have taken it). */
function deliver(core: PlatformCore, device: Device, response: ServerResponse): boolean {
  const rpc = core.takeRpc(device);
  if (!rpc) return false;
  sendJsonText(
    response,
    200,
    stringifyLossless({ id: rpc.id, method: rpc.method, params: rpc.params }),
  );
  return true;
}

export const postRpcReply: DeviceHandler = async (request, response, params, api) => {
  const id = params.id ?? '';
  if (!INT_ID.test(id) || Number(id) > 2147483647 || Number(id) < -2147483648) {
    throw new BadRequestError(`Invalid RPC request id: ${id} is not an integer`);
  }
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, MAX_RPC_BODY)).toString('utf8');
  parseJson(text, 'RPC reply');
  api.core.replyRpc(device, Number(id), text);
  sendEmpty(response, 200);
};

export const postClientRpc: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, MAX_RPC_BODY)).toString('utf8');
  const document = parseJson(text, 'client-side RPC request');
  const answer = await api.clientRpc({ name: device.name, id: device.id }, document);
  if (answer === undefined) return sendEmpty(response, 200);
  // the request itself handed back (the default echo) keeps its exact text: 42.0 stays 42.0
  sendJsonText(response, 200, answer === document ? text : stringifyLossless(answer));
};
