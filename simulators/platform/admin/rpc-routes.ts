/**
 * Server-side RPC (docs/reference/platform-facts.md §8): v1
 * /api/plugins/rpc/{oneway|twoway}/{deviceId} answers 408 when the device got the request but did
 * not answer and 409 when it never got it; v2 /api/rpc/... answers 504 for both. With
 * `"persistent": true` the RPC is stored and queued and the call answers 200 {"rpcId"} at once
 * (both versions, as ThingsBoard's shared AbstractRpcController); persistent-rpc-routes.ts reads it
 * back.
 */
import { parseLossless } from '../../../lib/kv/values';
import { serverRpcCallSchema, type ServerRpcCall } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError, NotFoundError } from '../core/errors';
import { type AdminRoute, routeWithSteps } from './route';

const DEFAULT_TIMEOUT_MS = 10_000;

function rpcRoute(path: string, version: 1 | 2): AdminRoute {
  return routeWithSteps({
    method: 'POST',
    path,
    summary: `Send a one-way or two-way RPC to a device (v${version})`,
    requestSchema: serverRpcCallSchema,
    steps: {
      /** The status of an RPC the device was not connected to receive: v1 409, v2 504. */
      notConnected: (): number => (version === 1 ? 409 : 504),
    },
    faults: {
      'GW-RULE-03:undelivered-rpc-500': { notConnected: () => () => 500 },
    },
    async handler({ core, device: deviceFor, params, bodyText }, steps) {
      if (params.kind !== 'oneway' && params.kind !== 'twoway') throw new NotFoundError();
      const text = await bodyText();
      let body: unknown;
      let lossless: { params?: unknown; additionalInfo?: unknown };
      try {
        body = JSON.parse(text);
        lossless = parseLossless(text) as { params?: unknown; additionalInfo?: unknown };
      } catch {
        throw new BadRequestError('Invalid request body');
      }
      if (!validate(serverRpcCallSchema, body).ok)
        throw new BadRequestError('Invalid request body');
      const call = body as ServerRpcCall;
      const device = deviceFor(params.deviceId, 'RPC_CALL');
      const rpcCall = {
        method: call.method,
        // kept lossless: the device gets params with the lexemes the caller wrote (42.0 stays 42.0)
        params: lossless.params,
        oneway: params.kind === 'oneway',
        timeoutMs: call.timeout ?? DEFAULT_TIMEOUT_MS,
        expirationTime: call.expirationTime,
      };
      const timeoutStatus = version === 1 ? 408 : 504;
      if (call.persistent === true) {
        // stored and queued: answered at once with its id (AbstractRpcController shares this with
        // v1)
        const record = core.sendPersistentRpc(device, rpcCall, {
          retries: call.retries ?? null,
          additionalInfo: lossless.additionalInfo ?? null,
        });
        // already expired: stored EXPIRED and never sent; the caller's wait ends in TIMEOUT
        if (record.status === 'EXPIRED') return { status: timeoutStatus };
        return { json: { rpcId: record.id } };
      }
      const outcome = await core.sendRpc(device, rpcCall);
      switch (outcome.kind) {
        case 'DELIVERED':
          return;
        case 'SUCCESSFUL': {
          if (outcome.response.trim() === '') return;
          try {
            JSON.parse(outcome.response);
          } catch {
            return { status: 406, text: 'The device response is not valid JSON' };
          }
          return { jsonText: outcome.response };
        }
        case 'TIMEOUT':
          return { status: timeoutStatus };
        case 'NO_ACTIVE_CONNECTION':
          return { status: steps.notConnected() };
      }
    },
  });
}

export const rpcRoutes: AdminRoute[] = [
  rpcRoute('/api/plugins/rpc/:kind/:deviceId', 1),
  rpcRoute('/api/rpc/:kind/:deviceId', 2),
];
