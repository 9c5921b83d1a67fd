/**
 * POST /api/v1/provision (no token): a schema-valid request is always answered 200 with the status JSON of
 * platform-facts.md §6; a request missing deviceName, provisionDeviceKey or provisionDeviceSecret (or with wrong
 * types) is 400.
 */
import { provisionRequestSchema } from '../../../schemas';
import type { ProvisionRequest } from '../core/provisioning';
import { MAX_BODY, type DeviceHandler } from './context';
import { readBody, sendEmpty, sendJson } from './exchange';
import { faultActive } from '../../../faults';
import { parseJson, parseValid } from '../core/payloads';
import { PlatformError } from '../core/errors';
import { randomToken } from '../core/tokens';

export const postProvision: DeviceHandler = async (request, response, _params, api) => {
  if (faultActive('HTTP-PROV-04:token-required')) {
    request.resume();
    return sendEmpty(response, 401);
  }
  const text = withMissingFieldsFault((await readBody(request, MAX_BODY)).toString('utf8'));
  const body = api.quirks.provisioningFieldsOptional
    ? thingsboardProvisionRequest(text)
    : (parseValid(text, provisionRequestSchema, 'provisioning request') as ProvisionRequest & {
        credentialsType?: string;
      });
  const outcome = api.core.provision({
    deviceName: body.deviceName,
    provisionDeviceKey: body.provisionDeviceKey,
    provisionDeviceSecret: body.provisionDeviceSecret,
    // only access-token credentials exist here; a token is taken when the request names that type or none
    token:
      body.credentialsType === undefined || body.credentialsType === 'ACCESS_TOKEN'
        ? body.token
        : undefined,
    gateway: body.gateway,
  });
  if (outcome.status === 'SUCCESS') {
    sendJson(response, 200, {
      credentialsValue: outcome.device.token,
      credentialsType: 'ACCESS_TOKEN',
      status: 'SUCCESS',
    });
  } else if (outcome.status === 'NOT_FOUND') {
    sendJson(response, 200, { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' });
  } else {
    sendJson(response, 200, { errorMsg: 'Failed to provision device!', status: 'FAILURE' });
  }
};

/**
 * Quirks mode: ThingsBoard's reading of a provisioning request (platform-facts.md §6). A missing key or secret field
 * throws inside the controller (500, code 2); a missing deviceName becomes a random 20-character name.
 */
function thingsboardProvisionRequest(
  text: string,
): ProvisionRequest & { credentialsType?: string } {
  const body = parseJson(text, 'provisioning request') as Partial<ProvisionRequest> & {
    credentialsType?: string;
  };
  for (const field of ['provisionDeviceKey', 'provisionDeviceSecret'] as const) {
    if (typeof body?.[field] !== 'string')
      throw new PlatformError(`Failed to find the field ${field} in JSON body!`, 500, 2);
  }
  return {
    ...body,
    deviceName: typeof body.deviceName === 'string' ? body.deviceName : randomToken(),
  } as ProvisionRequest & { credentialsType?: string };
}

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
