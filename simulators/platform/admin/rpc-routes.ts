/**
 * Server-side RPC (platform-facts.md §8): v1 /api/plugins/rpc/{oneway|twoway}/{deviceId} answers 408 when the
 * device got the request but did not answer and 409 when it never got it; v2 /api/rpc/... answers 504 for both.
 */
import { parseLossless } from '../../../src/kv/values';
import { serverRpcCallSchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError, NotFoundError } from '../core/errors';
import type { AdminRoute } from './route';

const DEFAULT_TIMEOUT_MS = 10_000;

function rpcRoute(path: string, version: 1 | 2): AdminRoute {
  return {
    method: 'POST',
    path,
    summary: `Send a one-way or two-way RPC to a device (v${version})`,
    requestSchema: serverRpcCallSchema,
    async handler({ core, device: deviceFor, params, bodyText }) {
      if (params.kind !== 'oneway' && params.kind !== 'twoway') throw new NotFoundError();
      const text = await bodyText();
      let body: unknown;
      let lossless: { params?: unknown };
      try {
        body = JSON.parse(text);
        lossless = parseLossless(text) as { params?: unknown };
      } catch {
        throw new BadRequestError('Invalid request body');
      }
      if (!validate(serverRpcCallSchema, body).ok)
        throw new BadRequestError('Invalid request body');
      const call = body as {
        method: string;
        params?: unknown;
        timeout?: number;
        expirationTime?: number;
      };
      const device = deviceFor(params.deviceId, 'RPC_CALL');
      const outcome = await core.sendRpc(device, {
        method: call.method,
        // kept lossless: the device gets params with the lexemes the caller wrote (42.0 stays 42.0)
        params: lossless.params ?? {},
        oneway: params.kind === 'oneway',
        timeoutMs: call.timeout ?? DEFAULT_TIMEOUT_MS,
        expirationTime: call.expirationTime,
      });
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
          return { status: version === 1 ? 408 : 504 };
        case 'NO_ACTIVE_CONNECTION':
          return { status: version === 1 ? 409 : 504 };
      }
    },
  };
}

export const rpcRoutes: AdminRoute[] = [
  rpcRoute('/api/plugins/rpc/:kind/:deviceId', 1),
  rpcRoute('/api/rpc/:kind/:deviceId', 2),
];
