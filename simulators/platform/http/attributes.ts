/**
 * Client-side attributes: POST /api/v1/{token}/attributes stores a JSON object in CLIENT scope; GET answers
 * {"client":{...},"shared":{...}}, a member present only when it has matches. With neither clientKeys nor
 * sharedKeys: every client and shared attribute; with one of them: only that scope. Values keep their JSON type.
 */
import { stringifyLossless } from '../../../src/kv/values';
import { attributesAnswer } from '../core/render';
import { clientAttributesSchema } from '../../../schemas';
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { keysParameter, queryOf, readBody, sendEmpty, sendJsonText } from './exchange';
import { parseValid, typedEntries } from '../core/payloads';

export const postAttributes: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, MAX_BODY)).toString('utf8');
  try {
    const document = parseValid(text, clientAttributesSchema, 'attributes', api.quirks);
    api.core.saveAttributes(device, 'CLIENT_SCOPE', typedEntries(document, api.quirks));
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
  // a blank parameter (`clientKeys=`) is no parameter, as ThingsBoard's DeviceApiController reads it
  const clientKeys = nonEmpty(keysParameter(query, 'clientKeys'));
  const sharedKeys = nonEmpty(keysParameter(query, 'sharedKeys'));
  sendJsonText(response, 200, stringifyLossless(attributesAnswer(device, clientKeys, sharedKeys)));
};

function nonEmpty(keys: string[] | undefined): string[] | undefined {
  return keys?.length ? keys : undefined;
}
