/**
 * Who may call each admin route: ThingsBoard's `@PreAuthorize` of the controller method the route
 * imitates (DeviceController, TelemetryController, RpcV1/V2Controller, DeviceProfileController,
 * OtaPackageController, ApiKeyController, TenantProfileController, AuthController). One row per
 * route, one column per authority; the router refuses to start with a route missing here. Passing
 * this check is only the first half: the entity a request names is then checked by permissions.ts
 * (the tenant and customer it belongs to), as ThingsBoard's AccessControlService does after the
 * annotation.
 */
import type { Authority } from '../core/model';

/** 'public' needs no credentials; otherwise the authorities that pass the route check. */
type RouteAccess = 'public' | readonly Authority[];

const ALL: readonly Authority[] = ['SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER'];
const TENANT: readonly Authority[] = ['TENANT_ADMIN'];
const TENANT_OR_CUSTOMER: readonly Authority[] = ['TENANT_ADMIN', 'CUSTOMER_USER'];
const SYSTEM: readonly Authority[] = ['SYS_ADMIN'];
const CUSTOMER: readonly Authority[] = ['CUSTOMER_USER'];

const TELEMETRY = '/api/plugins/telemetry/DEVICE/:deviceId';

const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  'POST /api/auth/login': 'public',
  'POST /api/auth/token': 'public',
  'GET /api/auth/user': ALL,
  'POST /api/device': TENANT_OR_CUSTOMER, // a customer passes here, then WRITE on its own device only
  'GET /api/tenant/device': TENANT,
  'GET /api/tenant/devices': TENANT,
  'GET /api/device/:deviceId': TENANT_OR_CUSTOMER,
  'GET /api/device/:deviceId/credentials': TENANT_OR_CUSTOMER,
  'DELETE /api/device/:deviceId': TENANT,
  [`GET ${TELEMETRY}/values/timeseries`]: ALL, // the system administrator passes here, then fails on the device
  [`GET ${TELEMETRY}/keys/timeseries`]: ALL,
  [`POST ${TELEMETRY}/timeseries/:scope`]: ALL,
  [`GET ${TELEMETRY}/values/attributes`]: ALL,
  [`GET ${TELEMETRY}/values/attributes/:scope`]: ALL,
  [`POST ${TELEMETRY}/:scope`]: ALL,
  [`POST ${TELEMETRY}/attributes/:scope`]: ALL,
  [`DELETE ${TELEMETRY}/:scope`]: ALL,
  // TelemetryController: every route hasAnyAuthority('SYS_ADMIN', 'TENANT_ADMIN', 'CUSTOMER_USER')
  [`GET ${TELEMETRY}/keys/attributes`]: ALL,
  [`GET ${TELEMETRY}/values/timeseries/history`]: ALL,
  [`DELETE ${TELEMETRY}/timeseries/delete`]: ALL,
  'POST /api/plugins/telemetry/:deviceId/:scope': ALL,
  'DELETE /api/plugins/telemetry/:deviceId/:scope': ALL,
  'GET /api/customers': TENANT, // CustomerController 175: hasAuthority('TENANT_ADMIN')
  'POST /api/plugins/rpc/:kind/:deviceId': ALL,
  'POST /api/rpc/:kind/:deviceId': ALL,
  'GET /api/rpc/persistent/:rpcId': TENANT_OR_CUSTOMER,
  'GET /api/rpc/persistent/device/:deviceId': TENANT_OR_CUSTOMER,
  'POST /api/deviceProfile': TENANT,
  'GET /api/deviceProfile/:profileId': TENANT,
  'GET /api/deviceProfileInfo/default': TENANT_OR_CUSTOMER,
  'GET /api/deviceProfiles': TENANT,
  'DELETE /api/deviceProfile/:profileId': TENANT,
  'POST /api/customer/device/:deviceName/claim': CUSTOMER,
  'DELETE /api/customer/device/:deviceName/claim': TENANT_OR_CUSTOMER,
  'POST /api/otaPackage': TENANT,
  'POST /api/otaPackage/:packageId': TENANT,
  'GET /api/otaPackage/info/:packageId': TENANT_OR_CUSTOMER,
  'GET /api/otaPackages': TENANT_OR_CUSTOMER,
  'DELETE /api/otaPackage/:packageId': TENANT,
  'POST /api/apiKey': ALL, // then WRITE on the key's user (permissions.ts)
  'GET /api/apiKeys/:userId': ALL,
  'PUT /api/apiKey/:keyId/description': ALL,
  'PUT /api/apiKey/:keyId/enabled/:enabled': ALL,
  'DELETE /api/apiKey/:keyId': ALL,
  'GET /api/tenantProfileInfo/default': SYSTEM,
  'GET /api/tenantProfile/:tenantProfileId': SYSTEM,
  'GET /api/admin/jwtSettings': SYSTEM, // AdminController: hasAuthority('SYS_ADMIN')
  'POST /api/admin/jwtSettings': SYSTEM,
  'POST /api/tenantProfile': SYSTEM,
};

/**
 * The access row of a route; a route without one is a programming error, found when the router is
 * built.
 */
export function accessOf(route: { method: string; path: string }): RouteAccess {
  const access = ROUTE_ACCESS[`${route.method} ${route.path}`];
  if (access === undefined)
    throw new Error(`admin route ${route.method} ${route.path} has no row in ROUTE_ACCESS`);
  return access;
}
