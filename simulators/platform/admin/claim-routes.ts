/** The customer side of device claiming (docs/reference/platform-facts.md §7). */
import { NotFoundError } from '../core/errors';
import { checkDevice } from './permissions';
import { deviceView } from './views';
import type { AdminRoute } from './route';

export const claimRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/customer/device/:deviceName/claim',
    summary: 'Claim a device that registered a claim, with its secret key',
    async handler({ core, params, user, bodyText }) {
      const text = await bodyText();
      let secretKey = '';
      try {
        const body = text.trim() ? (JSON.parse(text) as { secretKey?: unknown }) : {};
        if (typeof body?.secretKey === 'string') secretKey = body.secretKey;
      } catch {
        return { status: 400, json: 'FAILURE' };
      }
      const device = core.deviceNamed(params.deviceName);
      if (!device) throw new NotFoundError();
      checkDevice(user, device, 'CLAIM_DEVICES');
      const result = core.claim(device, user.customerId, secretKey);
      if (result !== 'SUCCESS') return { status: 400, json: result };
      return { json: { device: deviceView(core, device), response: 'SUCCESS' } };
    },
  },
  {
    method: 'DELETE',
    path: '/api/customer/device/:deviceName/claim',
    summary: 'Give a claimed device back (reclaim)',
    handler({ core, user, params }) {
      const device = core.deviceNamed(params.deviceName);
      if (!device) throw new NotFoundError();
      checkDevice(user, device, 'CLAIM_DEVICES');
      core.reclaim(device);
      return { json: deviceView(core, device) };
    },
  },
];
