/**
 * POST /api/v1/provision (no token): a schema-valid request is always answered 200 with the status JSON of
 * docs/reference/platform-facts.md §6 (core/provision-answer.ts, shared with MQTT provisioning); a request missing deviceName,
 * provisionDeviceKey or provisionDeviceSecret (or with wrong types) is 400.
 */
import { provisionAnswer } from '../core/provision-answer';
import type { ProvisionRequest } from '../core/provisioning';
import { MAX_BODY, type DeviceHandler } from './context';
import { readBody, sendEmpty, sendJson } from './exchange';
import { faultActive } from '../../../faults';
import { randomToken } from '../core/tokens';

export const postProvision: DeviceHandler = async (request, response, _params, api) => {
  if (faultActive('HTTP-PROV-04:token-required')) {
    request.resume();
    return sendEmpty(response, 401);
  }
  const text = withMissingFieldsFault((await readBody(request, MAX_BODY)).toString('utf8'));
  sendJson(response, 200, provisionAnswer(api.core, text, api.quirks));
};

/**
 * Planted faults HTTP-PROV-05 (faults/): a missing required field is filled in (a made-up name, an empty key or
 * secret, which find no profile) instead of making the request invalid. The text is unchanged when none is on.
 */
function withMissingFieldsFault(text: string): string {
  const fills: Array<[keyof ProvisionRequest, string]> = [];
  if (faultActive('HTTP-PROV-05:device-name-optional')) fills.push(['deviceName', randomToken()]);
  if (faultActive('HTTP-PROV-05:key-optional')) fills.push(['provisionDeviceKey', '']);
  if (faultActive('HTTP-PROV-05:secret-optional')) fills.push(['provisionDeviceSecret', '']);
  if (fills.length === 0) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return text;
  const record = body as Record<string, unknown>;
  for (const [field, value] of fills) if (!(field in record)) record[field] = value;
  return JSON.stringify(record);
}
