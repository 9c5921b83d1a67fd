/**
 * Persistent RPCs read back (ThingsBoard's RpcV2Controller, docs/reference/platform-facts.md §8):
 * - GET /api/rpc/persistent/{rpcId}: the Rpc entity (status, request, response); 404 when there is
 *   none.
 * - GET /api/rpc/persistent/device/{deviceId}?pageSize&page[&rpcStatus]: the device's, a page at a
 *   time, oldest first; the caller needs RPC_CALL on the device. `textSearch`, `sortProperty` and
 *   `sortOrder` are not modelled (ThingsBoard accepts them): the reference always answers in
 *   creation order.
 */
import { stringifyLossless } from '../../../lib/kv/values';
import { PERSISTENT_RPC_STATUSES } from '../../../schemas';
import { BadRequestError, PermissionDeniedError } from '../core/errors';
import { page, persistentRpcView } from './views';
import type { AdminRoute } from './route';

export const persistentRpcRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/api/rpc/persistent/:rpcId',
    summary:
      'A persistent RPC: its status (QUEUED, DELIVERED, SUCCESSFUL, EXPIRED, ...) and the device response',
    handler({ core, user, params }) {
      const record = core.persistentRpc(params.rpcId);
      // READ on an RPC: any user of its tenant (TenantAdminPermissions,
      // CustomerUserPermissions.rpcPermissionChecker)
      if (record.tenantId !== user.tenantId) throw new PermissionDeniedError();
      return { jsonText: stringifyLossless(persistentRpcView(record)) };
    },
  },
  {
    method: 'GET',
    path: '/api/rpc/persistent/device/:deviceId',
    summary: "A device's persistent RPCs (pageSize, page, optional rpcStatus), oldest first",
    handler({ query, params, device: deviceFor }) {
      for (const name of ['pageSize', 'page'])
        if (!query.get(name))
          throw new BadRequestError(`Required request parameter '${name}' is not present`);
      const status = query.get('rpcStatus');
      if (status === 'DELETED') throw new BadRequestError('RpcStatus: DELETED');
      if (status !== null && !(PERSISTENT_RPC_STATUSES as readonly string[]).includes(status))
        throw new BadRequestError(`Invalid value of rpcStatus: ${status}`);
      const device = deviceFor(params.deviceId, 'RPC_CALL');
      const records = [...device.persistentRpcs.values()]
        .filter((record) => status === null || record.status === status)
        .map(persistentRpcView);
      return { jsonText: stringifyLossless(page(records, query)) };
    },
  },
];
