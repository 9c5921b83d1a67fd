/**
 * The requirements a certification judges, by kind of client: a device's are the `device`
 * requirements of its API (HTTP or MQTT); a gateway's are the `gateway` requirements and the MQTT
 * device requirements its own v1/devices/me/... traffic is judged by (gateway-checks.ts: a gateway
 * is also a device).
 */
import type { Requirement } from '../../schemas';
import { loadCatalogue } from '../report/conformance';
import { GATEWAY_CHECKS } from './gateway-checks';
import { behaviourRequirementApplies } from './client-behaviour-checks';

export function certifiedRequirements(
  role: 'device' | 'gateway',
  transport: 'http' | 'mqtt',
  /**
   * What was asked beyond the interfaces (client-behaviour-checks.ts): --tls, --duration (MQTT
   * devices).
   */
  beyond: { tls?: boolean; overTime?: boolean } = {},
): Requirement[] {
  return loadCatalogue(undefined, ['device', 'gateway']).filter((requirement) =>
    requirement.interface === 'client-tls' || requirement.interface === 'client-behaviour'
      ? behaviourRequirementApplies(requirement.id, {
          transport,
          tls: beyond.tls === true,
          overTime: beyond.overTime === true,
        }) &&
        // a gateway: TLS and its behaviour over time (CLI-BEH-01..04); its one connection is
        // GW-CLI-07's, and its traffic is no HTTP polling
        (role === 'device' || !['CLI-BEH-05', 'CLI-BEH-06'].includes(requirement.id))
      : role === 'gateway'
        ? requirement.role === 'gateway' || GATEWAY_CHECKS.has(requirement.id)
        : requirement.role === 'device' &&
          requirement.interface === (transport === 'mqtt' ? 'mqtt-device-api' : 'http-device-api'),
  );
}
