/** Faults that break requirements of the mqtt-device-api interface (features/mqtt-device-api/). */
import type { FaultDefinition } from '..';

export const MQTT_DEVICE_FAULTS = [
  {
    id: 'MQTT-DEV-RPC-02:reply-must-be-json',
    breaks:
      'An RPC reply on v1/devices/me/rpc/response/{id} that is empty or not JSON is refused (0x99, 3.1.1 close) and never reaches the requester.',
  },
  {
    id: 'MQTT-DEV-RPC-04:echoed',
    breaks:
      'getSessionLimits is not answered by the transport: the client-side RPC handler echoes the request instead.',
  },
  {
    id: 'MQTT-DEV-FW-01:chunk-size-ignored',
    breaks: 'A firmware chunk request gets the whole file whatever chunk size it names.',
  },
  {
    id: 'MQTT-DEV-PROV-01:status-only',
    breaks:
      'The answer on /provision/response of a successful provisioning carries the status but not the credentials.',
  },
] as const satisfies readonly FaultDefinition[];
