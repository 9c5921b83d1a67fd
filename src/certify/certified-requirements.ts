/**
 * The requirements a certification judges, by kind of client: a device's are the `device` requirements of its API
 * (HTTP or MQTT); a gateway's are the `gateway` requirements and the MQTT device requirements its own v1/devices/me/...
 * traffic is judged by (gateway-checks.ts: a gateway is also a device).
 */
import type { Requirement } from '../../schemas';
import { loadCatalogue } from '../report/conformance';
import { GATEWAY_CHECKS } from './gateway-checks';

export function certifiedRequirements(
  role: 'device' | 'gateway',
  transport: 'http' | 'mqtt',
): Requirement[] {
  return loadCatalogue(undefined, ['device', 'gateway']).filter((requirement) =>
    role === 'gateway'
      ? requirement.role === 'gateway' || GATEWAY_CHECKS.has(requirement.id)
      : requirement.role === 'device' &&
        requirement.interface === (transport === 'mqtt' ? 'mqtt-device-api' : 'http-device-api'),
  );
}
