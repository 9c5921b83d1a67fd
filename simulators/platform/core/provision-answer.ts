/**
 * A provisioning request's text → the status document the platform answers
 * (docs/reference/platform-facts.md §6), the same over HTTP (POST /api/v1/provision, 200) and MQTT
 * (/provision/response). A request missing deviceName, provisionDeviceKey or provisionDeviceSecret
 * (or with wrong types) throws BadRequestError; in quirks mode (provisioningFieldsOptional)
 * ThingsBoard's reading: a missing key or secret field throws a PlatformError 500, a missing
 * deviceName becomes a random 20-character name.
 */
import { provisionRequestSchema } from '../../../schemas';
import type { Quirks } from '../quirks';
import { PlatformError } from './errors';
import { parseJson, parseValid } from './payloads';
import type { PlatformCore } from './platform-core';
import type { ProvisionRequest } from './provisioning';
import { randomToken } from './tokens';

type ProvisionBody = ProvisionRequest & { credentialsType?: string };

export function provisionAnswer(
  core: PlatformCore,
  text: string,
  quirks: Quirks,
): Record<string, string> {
  const body = quirks.provisioningFieldsOptional
    ? thingsboardProvisionRequest(text)
    : parseValid(text, provisionRequestSchema, 'provisioning request');
  const outcome = core.provision({
    deviceName: body.deviceName,
    provisionDeviceKey: body.provisionDeviceKey,
    provisionDeviceSecret: body.provisionDeviceSecret,
    // only access-token credentials exist here; a token is taken when the request names that type
    // or none
    token:
      body.credentialsType === undefined || body.credentialsType === 'ACCESS_TOKEN'
        ? body.token
        : undefined,
    gateway: body.gateway,
  });
  if (outcome.status === 'SUCCESS')
    return {
      credentialsValue: outcome.device.token,
      credentialsType: 'ACCESS_TOKEN',
      status: 'SUCCESS',
    };
  if (outcome.status === 'NOT_FOUND')
    return { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' };
  return { errorMsg: 'Failed to provision device!', status: 'FAILURE' };
}

/**
 * Quirks mode: ThingsBoard's reading of a provisioning request (docs/reference/platform-facts.md
 * §6). A missing key or secret field throws inside the controller (500, code 2); a missing
 * deviceName becomes a random 20-character name.
 */
function thingsboardProvisionRequest(text: string): ProvisionBody {
  const body = parseJson(text, 'provisioning request') as Partial<ProvisionBody>;
  for (const field of ['provisionDeviceKey', 'provisionDeviceSecret'] as const) {
    if (typeof body?.[field] !== 'string')
      throw new PlatformError(`Failed to find the field ${field} in JSON body!`, 500, 2);
  }
  return {
    ...body,
    deviceName: typeof body.deviceName === 'string' ? body.deviceName : randomToken(),
  } as ProvisionBody;
}
