/**
 * The entity check that follows the route check (access.ts), as ThingsBoard's AccessControlService
 * does it (TenantAdminPermissions, CustomerUserPermissions, SysAdminPermissions):
 * - a device: the system administrator has no device permission at all; a tenant administrator may
 *   do anything to a device of its tenant; a customer user may read, write attributes and time
 *   series, save and call RPCs on a device assigned to its own customer, never delete it, and may
 *   (re)claim any device of its tenant by name (CLAIM_DEVICES skips the customer check in
 *   ThingsBoard too);
 * - a user (whose API keys are managed): the system administrator any user but customer users; a
 *   tenant administrator the users of its tenant except the system administrator; a customer user
 *   reads the users of its customer and writes only itself.
 */
import { PermissionDeniedError } from '../core/errors';
import type { Device, User } from '../core/model';

export type DeviceOperation =
  | 'READ'
  | 'READ_CREDENTIALS'
  | 'READ_ATTRIBUTES'
  | 'READ_TELEMETRY'
  | 'WRITE'
  | 'WRITE_ATTRIBUTES'
  | 'WRITE_TELEMETRY'
  | 'DELETE'
  | 'RPC_CALL'
  | 'CLAIM_DEVICES';

const CUSTOMER_DEVICE_OPERATIONS: ReadonlySet<DeviceOperation> = new Set([
  'READ',
  'READ_CREDENTIALS',
  'READ_ATTRIBUTES',
  'READ_TELEMETRY',
  'WRITE',
  'WRITE_ATTRIBUTES',
  'WRITE_TELEMETRY',
  'RPC_CALL',
  'CLAIM_DEVICES',
]);

function mayOnDevice(user: User, device: Device, operation: DeviceOperation): boolean {
  switch (user.authority) {
    case 'SYS_ADMIN':
      return false;
    case 'TENANT_ADMIN':
      return device.tenantId === user.tenantId;
    case 'CUSTOMER_USER':
      return (
        CUSTOMER_DEVICE_OPERATIONS.has(operation) &&
        device.tenantId === user.tenantId &&
        (operation === 'CLAIM_DEVICES' || device.customerId === user.customerId)
      );
  }
}

export function checkDevice(user: User, device: Device, operation: DeviceOperation): Device {
  if (!mayOnDevice(user, device, operation)) throw new PermissionDeniedError();
  return device;
}

function mayOnUser(actor: User, target: User, operation: 'READ' | 'WRITE'): boolean {
  switch (actor.authority) {
    case 'SYS_ADMIN':
      return target.authority !== 'CUSTOMER_USER';
    case 'TENANT_ADMIN':
      return target.authority !== 'SYS_ADMIN' && target.tenantId === actor.tenantId;
    case 'CUSTOMER_USER':
      return (
        target.authority === 'CUSTOMER_USER' &&
        target.customerId === actor.customerId &&
        (operation === 'READ' || target.id === actor.id)
      );
  }
}

export function checkUser(actor: User, target: User, operation: 'READ' | 'WRITE'): User {
  if (!mayOnUser(actor, target, operation)) throw new PermissionDeniedError();
  return target;
}
