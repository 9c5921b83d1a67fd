/**
 * POST /api/v1/provision (no token): a schema-valid request is always answered 200 with the status JSON of
 * platform-facts.md §6 (core/provision-answer.ts, shared with MQTT provisioning); a request missing deviceName,
 * provisionDeviceKey or provisionDeviceSecret (or with wrong types) is 400.
 */
import { provisionAnswer } from '../core/provision-answer';
import { MAX_BODY, type DeviceHandler } from './context';
import { readBody, sendJson } from './exchange';

export const postProvision: DeviceHandler = async (request, response, _params, api) => {
  const text = (await readBody(request, MAX_BODY)).toString('utf8');
  sendJson(response, 200, provisionAnswer(api.core, text, api.quirks));
};
