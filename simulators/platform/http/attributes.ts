/**
 * Client-side attributes: POST /api/v1/{token}/attributes stores a JSON object in CLIENT scope; GET answers
 * {"client":{...},"shared":{...}}, a member present only when it has matches. With neither clientKeys nor
 * sharedKeys: every client and shared attribute; with one of them: only that scope. Values keep their JSON type.
 */
import { stringifyLossless, type TypedValue } from '../../../src/kv/values';
import { attributesAnswer } from '../core/render';
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { keysParameter, queryOf, readBody, sendEmpty, sendJsonText } from './exchange';
import { runPayloadJobSoon } from '../core/off-thread';

export const postAttributes: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, MAX_BODY)).toString('utf8');
  try {
    const entries = await runPayloadJobSoon({
      kind: 'client-attributes',
      text,
      quirks: api.quirks,
    });
    api.core.saveAttributes(device, 'CLIENT_SCOPE', entries as Array<[string, TypedValue]>);
  } catch (error) {
    if (payloadFailure(error, response, api)) return;
    throw error;
  }
  sendEmpty(response, 200);
};

export const getAttributes: DeviceHandler = (request, response, params, api) => {
  const query = queryOf(request.url);
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const clientKeys = keysParameter(query, 'clientKeys');
  const sharedKeys = keysParameter(query, 'sharedKeys');
  sendJsonText(response, 200, stringifyLossless(attributesAnswer(device, clientKeys, sharedKeys)));
};
