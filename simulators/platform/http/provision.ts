/**
 * POST /api/v1/provision (no token): a schema-valid request is always answered 200 with the status
 * JSON of docs/reference/platform-facts.md §6 (core/provision-answer.ts, shared with MQTT
 * provisioning); a request missing deviceName, provisionDeviceKey or provisionDeviceSecret (or with
 * wrong types) is 400.
 */
import { provisionAnswer } from '../core/provision-answer';
import { MAX_BODY, endpoint } from './context';
import { readBody, sendJson } from './exchange';

export const POST_PROVISION = endpoint({
  steps: {
    /** The request's text as it is provisioned: as sent. */
    text: (text: string): string => text,
  },
  handle: async ({ request, response, api }, steps) => {
    const text = steps.text((await readBody(request, MAX_BODY)).toString('utf8'));
    sendJson(response, 200, provisionAnswer(api.core, text, api.quirks));
  },
});
