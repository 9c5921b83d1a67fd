/**
 * Devices: create or save, find by name, list, credentials, delete
 * (docs/reference/platform-facts.md §8).
 */
import { BadRequestError, NotFoundError, PermissionDeniedError } from '../core/errors';
import { credentialsView, deviceView, page } from './views';
import type { AdminRoute } from './route';

interface DeviceBody {
  id?: { id?: string };
  name?: unknown;
  type?: unknown;
  label?: unknown;
  deviceProfileId?: { id?: string } | null;
  firmwareId?: { id?: string } | null;
  additionalInfo?: Record<string, unknown> | null;
}

export const deviceRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/device',
    summary:
      'Create a device (or save it, when the body has an id); assigning firmwareId starts a firmware update',
    async handler({ core, user, query, bodyJson, device: deviceFor }) {
      const body = (await bodyJson()) as DeviceBody | null;
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw new BadRequestError('Invalid request body');
      if (typeof body.name !== 'string' || !body.name.trim())
        throw new BadRequestError('Device name should be specified!');
      const profileId = body.deviceProfileId?.id;
      let device: ReturnType<typeof core.device>;
      if (body.id?.id) {
        device = deviceFor(body.id.id, 'WRITE');
        core.updateDevice(device, {
          name: body.name,
          label: typeof body.label === 'string' ? body.label : null,
          profileId,
          additionalInfo: body.additionalInfo ?? device.additionalInfo,
        });
      } else {
        // ThingsBoard's CREATE operation on a device: tenant administrators only
        if (user.authority !== 'TENANT_ADMIN') throw new PermissionDeniedError();
        device = core.createDevice({
          name: body.name,
          profileId,
          profileName: typeof body.type === 'string' && body.type ? body.type : undefined,
          label: typeof body.label === 'string' ? body.label : null,
          token: query.get('accessToken') ?? undefined,
          additionalInfo: body.additionalInfo ?? null,
        });
      }
      if (body.firmwareId !== undefined) {
        const firmwareId = body.firmwareId?.id ?? null;
        if (firmwareId !== device.firmwareId) core.assignFirmware(device, firmwareId);
      }
      return { json: deviceView(core, device) };
    },
  },
  ...['/api/tenant/device', '/api/tenant/devices'].map(
    (path): AdminRoute => ({
      method: 'GET',
      path,
      summary: 'Find a device by name (deviceName), or list devices (pageSize, page, textSearch)',
      handler({ core, query }) {
        const name = query.get('deviceName');
        if (name !== null) {
          const device = core.deviceNamed(name);
          if (!device) throw new NotFoundError();
          return { json: deviceView(core, device) };
        }
        if (!query.get('pageSize') || query.get('page') === null)
          throw new BadRequestError("Required request parameter 'pageSize' is not present");
        const search = (query.get('textSearch') ?? '').toLowerCase();
        const devices = [...core.devices.values()]
          .filter((device) => device.name.toLowerCase().includes(search))
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((device) => deviceView(core, device));
        return { json: page(devices, query) };
      },
    }),
  ),
  {
    method: 'GET',
    path: '/api/device/:deviceId',
    summary: 'A device by id',
    handler: ({ core, device, params }) => ({
      json: deviceView(core, device(params.deviceId, 'READ')),
    }),
  },
  {
    method: 'GET',
    path: '/api/device/:deviceId/credentials',
    summary: 'The credentials (access token) of a device',
    handler: ({ device, params }) => ({
      json: credentialsView(device(params.deviceId, 'READ_CREDENTIALS')),
    }),
  },
  {
    method: 'DELETE',
    path: '/api/device/:deviceId',
    summary: 'Delete a device; its open sessions end',
    handler({ core, device, params }) {
      core.deleteDevice(device(params.deviceId, 'DELETE').id);
    },
  },
];
