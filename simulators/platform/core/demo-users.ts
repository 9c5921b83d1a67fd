/**
 * ThingsBoard's demo identities: the system administrator, one tenant administrator, one customer
 * user of it.
 */
import { randomUUID } from 'node:crypto';
import type { User } from './model';

/**
 * ThingsBoard's null UUID: the customerId of records that belong to no customer, the tenantId of
 * the sysadmin.
 */
export const NULL_UUID = '13814000-1dd2-11b2-8080-808080808080';

export function demoUsers(tenantId: string, customerId: string): User[] {
  const user = (
    email: string,
    password: string,
    authority: User['authority'],
    firstName: string,
  ): User => ({
    id: randomUUID(),
    email,
    password,
    authority,
    tenantId: authority === 'SYS_ADMIN' ? NULL_UUID : tenantId,
    customerId: authority === 'CUSTOMER_USER' ? customerId : NULL_UUID,
    firstName,
    lastName: 'Demo',
  });
  return [
    user('sysadmin@thingsboard.org', 'sysadmin', 'SYS_ADMIN', 'System'),
    user('tenant@thingsboard.org', 'tenant', 'TENANT_ADMIN', 'Tenant'),
    user('customer@thingsboard.org', 'customer', 'CUSTOMER_USER', 'Customer'),
  ];
}
