/**
 * Customers (CustomerController 175-191, `GET /api/customers`, TENANT_ADMIN): the tenant's
 * customers as a page. The reference has one customer, the one its demo customer user belongs to,
 * titled as in ThingsBoard's demo data.
 */
import { BadRequestError } from '../core/errors';
import type { PlatformCore } from '../core/platform-core';
import { page } from './views';
import type { AdminRoute } from './route';

/**
 * When the platform started: the customer's createdTime (it exists from the start, as the demo
 * data).
 */
const STARTED = Date.now();

const DEMO_CUSTOMER_TITLE = 'Customer A';

/**
 * ThingsBoard's Customer JSON (the fields of Customer and ContactBased, as GET /api/customers
 * answers them).
 */
function customerView(core: PlatformCore) {
  return {
    id: { entityType: 'CUSTOMER', id: core.customerId },
    createdTime: STARTED,
    country: null,
    state: null,
    city: null,
    address: null,
    address2: null,
    zip: null,
    phone: null,
    email: null,
    title: DEMO_CUSTOMER_TITLE,
    tenantId: { entityType: 'TENANT', id: core.tenantId },
    externalId: null,
    version: 1,
    name: DEMO_CUSTOMER_TITLE,
    additionalInfo: null,
  };
}

export const customerRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/api/customers',
    summary: "The tenant's customers (pageSize, page, textSearch)",
    handler({ core, query }) {
      for (const name of ['pageSize', 'page'])
        if (query.get(name) === null)
          throw new BadRequestError(
            `Required request parameter '${name}' for method parameter type int is not present`,
          );
      const search = (query.get('textSearch') ?? '').toLowerCase();
      const customers = [customerView(core)].filter((customer) =>
        customer.title.toLowerCase().includes(search),
      );
      return { json: page(customers, query) };
    },
  },
];
