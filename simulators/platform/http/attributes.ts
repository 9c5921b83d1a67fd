/**
 * Client-side attributes: POST /api/v1/{token}/attributes stores a JSON object in CLIENT scope; GET answers
 * {"client":{...},"shared":{...}}, a member present only when it has matches. With neither clientKeys nor
 * sharedKeys: every client and shared attribute; with one of them: only that scope. Values keep their JSON type.
 */
import { stringifyLossless, type TypedValue } from '../../../lib/kv/values';
import { attributesAnswer, pickAttributes, setMember } from '../core/render';
import { faultActive } from '../../../faults';
import type { Device } from '../core/model';
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { keysParameter, queryOf, readBody, sendEmpty, sendJsonText } from './exchange';
import { runPayloadJobSoon } from '../core/off-thread';

export const postAttributes: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const text = (await readBody(request, MAX_BODY)).toString('utf8');
  try {
    const entries = (
      (await runPayloadJobSoon({
        kind: 'client-attributes',
        text,
        quirks: api.quirks,
      })) as Array<[string, TypedValue]>
    ).filter(
      ([key, value]) =>
        !(faultActive('HTTP-ATTR-01:json-values-dropped') && value.type === 'JSON') &&
        !(faultActive('HTTP-ATTR-02:first-write-wins') && device.attributes.CLIENT_SCOPE.has(key)),
    );
    if (!faultActive('HTTP-ATTR-01:not-stored'))
      api.core.scheduler.later('save', () =>
        api.core.saveAttributes(device, 'CLIENT_SCOPE', entries),
      );
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
  const answer = attributesAnswer(device, clientKeys, sharedKeys);
  sendJsonText(
    response,
    200,
    stringifyLossless(faultyAnswer(device, answer, clientKeys, sharedKeys)),
  );
};

/** The attribute answer as planted faults (faults/) distort it; unchanged when none is on. */
function faultyAnswer(
  device: Device,
  answer: Record<string, unknown>,
  clientKeys: string[] | undefined,
  sharedKeys: string[] | undefined,
): Record<string, unknown> {
  const faulty = { ...answer };
  const set = (member: string, value: Record<string, unknown> | undefined) => {
    if (value) faulty[member] = value;
    else delete faulty[member];
  };
  if (clientKeys && faultActive('HTTP-ATTR-03:client-keys-ignored'))
    set('client', pickAttributes(device, 'CLIENT_SCOPE', undefined));
  if (sharedKeys && faultActive('HTTP-ATTR-04:shared-keys-ignored'))
    set('shared', pickAttributes(device, 'SHARED_SCOPE', undefined));
  if (sharedKeys && faultActive('HTTP-ATTR-04:shared-read-from-server-scope'))
    set('shared', pickAttributes(device, 'SERVER_SCOPE', sharedKeys));
  if (faulty.client && faultActive('HTTP-ATTR-03:client-member-flattened')) {
    const client = faulty.client as Record<string, unknown>;
    delete faulty.client;
    for (const [key, value] of Object.entries(client)) setMember(faulty, key, value);
  }
  return faulty;
}

function nonEmpty(keys: string[] | undefined): string[] | undefined {
  return keys?.length ? keys : undefined;
}
