/**
 * The HTTP device API (docs/reference/interfaces.md "HTTP device API"): the ten endpoints under
 * /api/v1/{access_token}/... and /api/v1/provision, one handler module per resource.
 *
 * Order of checks, as the platform: URL and query parameters (400), then the token (401, empty
 * body), then the body (400). docs/reference/interfaces.md is the authority on errors: a client
 * mistake is 400, never 5xx; an unknown resource (e.g. /api/v1/{token}/nope, /api/v2/...) is 404;
 * and a rejected request stores nothing, because a payload is validated whole (schemas/) before any
 * of it is stored. 400 bodies: {status, message, errorCode: 31, timestamp}.
 *
 * Where ThingsBoard differs (future deviation profiles; never behaviour of this reference):
 * 1. malformed JSON or a wrong shape (non-object attributes, primitive telemetry, `values` not an
 *    object, non-object claim): ThingsBoard answers 500 with the parser's message (or empty), here
 *    400;
 * 2. a null value: ThingsBoard drops the key silently, here 400 (null is not one of the five value
 *    types);
 * 3. a string that looks like a number ("42", "1.5"): ThingsBoard stores a LONG or DOUBLE (type
 *    cast on by default), here it stays a STRING;
 * 4. {"ts":N,"values":{...}} with other keys beside them: ThingsBoard ignores the others, here 400
 *    (the schema says the timestamped form is exactly ts and values);
 * 5. Gson is lenient (unquoted keys, single quotes, bare words); here only strict JSON is accepted
 *    (400);
 * 6. long-polls of 30 s or more end with 503 at about 30 s in the ThingsBoard monolith (Spring
 *    async timeout); here they last as asked (408 at the timeout, as ThingsBoard's microservice
 *    transport);
 * 7. provisioning without deviceName: ThingsBoard makes up a random name (and without key/secret
 *    answers 500), here 400 (the three fields are required by docs/reference/interfaces.md);
 * 8. client-side RPC: ThingsBoard's default rule chain never answers (200 {"error":"timeout"} after
 *    60 s, or 503 at 30 s in the monolith) and it needs {method, params}; here any JSON document is
 *    answered at once by the configurable handler (default: the request echoed back);
 * 9. a transport rate limit is 500 with an empty body in ThingsBoard; the reference has no rate
 *    limits;
 * 10. an unknown path or method: ThingsBoard answers 404/405 with Spring's body; here 404 with an
 *     empty body;
 * 11. an invalid query parameter or URL (timeout=abc, rpc id not an integer): ThingsBoard answers
 *     400 too, but with Spring's default body in the microservice transport;
 * 12. a decimal with more than 16 digits of scale: ThingsBoard stores a STRING, here a DOUBLE;
 * 13. POST rpc/{id}: ThingsBoard keeps any body as a raw string, here the reply must be a JSON
 *     document (400).
 */
import type Router from 'find-my-way';
import type { Logger } from 'pino';
import type { StepFaults } from '../../../faults/steps';
import { DEVICE_HTTP_API, type DeviceHttpRole } from '../../../schemas';
import type { PlatformCore } from '../core/platform-core';
import { NO_QUIRKS, type Quirks } from '../quirks';
import {
  type ClientRpcHandler,
  type DeviceApi,
  type DeviceApiSteps,
  type DeviceEndpoint,
  served,
} from './context';
import { POST_TELEMETRY } from './telemetry';
import { GET_ATTRIBUTES, POST_ATTRIBUTES } from './attributes';
import { GET_ATTRIBUTE_UPDATES } from './attribute-updates';
import { GET_RPC, POST_CLIENT_RPC, POST_RPC_REPLY } from './rpc';
import { POST_CLAIM } from './claim';
import { POST_PROVISION } from './provision';
import { GET_FIRMWARE } from './firmware';
import {
  DEVICE_API_FAULTS,
  GET_ATTRIBUTE_UPDATES_FAULTS,
  GET_ATTRIBUTES_FAULTS,
  GET_FIRMWARE_FAULTS,
  GET_RPC_FAULTS,
  POST_ATTRIBUTES_FAULTS,
  POST_CLIENT_RPC_FAULTS,
  POST_PROVISION_FAULTS,
  POST_RPC_REPLY_FAULTS,
  POST_TELEMETRY_FAULTS,
} from './route-faults';

export type { ClientRpcHandler } from './context';

/** The default client-side RPC handler: answers with the request document itself (an echo). */
export const echoClientRpcHandler: ClientRpcHandler = (_device, request) => request;

/**
 * One route of the device API: its row of the protocol table (schemas/device-http.ts; `{param}`
 * becomes the router's `:param`), the endpoint that serves it and its planted faults
 * (route-faults.ts).
 */
function route<Own extends object>(
  role: DeviceHttpRole,
  endpoint: DeviceEndpoint<Own>,
  faults: StepFaults<Own & DeviceApiSteps> = {},
) {
  const { method, path } = DEVICE_HTTP_API[role];
  return {
    method,
    path: path.replace(/\{(\w+)\}/g, ':$1'),
    handler: served(endpoint, DEVICE_API_FAULTS, faults),
  };
}

/** The device API's routes as data: the role in the protocol table, the endpoint, its faults. */
const DEVICE_ROUTES = [
  route('telemetry', POST_TELEMETRY, POST_TELEMETRY_FAULTS),
  route('postAttributes', POST_ATTRIBUTES, POST_ATTRIBUTES_FAULTS),
  route('getAttributes', GET_ATTRIBUTES, GET_ATTRIBUTES_FAULTS),
  route('attributeUpdates', GET_ATTRIBUTE_UPDATES, GET_ATTRIBUTE_UPDATES_FAULTS),
  route('rpcPoll', GET_RPC, GET_RPC_FAULTS),
  route('rpcReply', POST_RPC_REPLY, POST_RPC_REPLY_FAULTS),
  route('clientRpc', POST_CLIENT_RPC, POST_CLIENT_RPC_FAULTS),
  route('claim', POST_CLAIM),
  route('provision', POST_PROVISION, POST_PROVISION_FAULTS),
  route('firmware', GET_FIRMWARE, GET_FIRMWARE_FAULTS),
];

export function registerDeviceApi(
  router: Router.Instance<Router.HTTPVersion.V1>,
  core: PlatformCore,
  clientRpc: ClientRpcHandler,
  logger: Logger,
  quirks: Quirks = NO_QUIRKS,
): void {
  const api: DeviceApi = { core, clientRpc, logger, quirks };
  for (const { method, path, handler } of DEVICE_ROUTES)
    router.on(method, path, handler as Router.Handler<Router.HTTPVersion.V1>, api);
}
