/** Faults that break requirements of the mqtt-device-api interface (features/mqtt-device-api/). */
import type { FaultDefinition } from './definition';

export const MQTT_DEVICE_FAULTS = [
  {
    id: 'MQTT-DEV-TEL-01-EMPTY:empty-array-refused',
    breaks: 'telemetry [] on v1/devices/me/telemetry is refused as a malformed payload',
  },
  // ---- telemetry and attributes
  // -------------------------------------------------------------------------------
  {
    id: 'MQTT-DEV-TEL-01:v311-dropped',
    breaks:
      'telemetry an MQTT 3.1.1 device publishes on v1/devices/me/telemetry is acknowledged with success but not stored',
  },
  {
    id: 'MQTT-DEV-TEL-01:v5-dropped',
    breaks:
      'telemetry an MQTT 5 device publishes on v1/devices/me/telemetry is acknowledged with success but not stored',
  },
  {
    id: 'MQTT-DEV-TEL-01:array-first-element-only',
    breaks: 'telemetry in the array form published over MQTT stores only its first element',
  },
  {
    id: 'MQTT-DEV-TEL-01:object-last-key-dropped',
    breaks: 'telemetry in the object form published over MQTT stores every key but the last one',
  },
  {
    id: 'MQTT-DEV-TEL-01:device-ts-ignored',
    breaks:
      'telemetry in the timestamped form published over MQTT is stored at the server time, not at its ts',
  },
  {
    id: 'MQTT-DEV-TEL-01:server-ts-epoch',
    breaks:
      'telemetry without a ts published over MQTT is stored at ts 0, not at a server time of its arrival',
  },
  {
    id: 'MQTT-DEV-ATTR-01:v311-not-stored',
    breaks:
      'client attributes an MQTT 3.1.1 device publishes on v1/devices/me/attributes are acknowledged with success but not stored',
  },
  {
    id: 'MQTT-DEV-ATTR-01:v5-not-stored',
    breaks:
      'client attributes an MQTT 5 device publishes on v1/devices/me/attributes are acknowledged with success but not stored',
  },
  {
    id: 'MQTT-DEV-ATTR-01:stored-as-shared',
    breaks:
      'client attributes published on v1/devices/me/attributes are stored as shared attributes',
  },
  {
    id: 'MQTT-DEV-ATTR-01:last-key-dropped',
    breaks: 'client attributes published on v1/devices/me/attributes are stored but the last key',
  },
  {
    id: 'MQTT-DEV-ATTR-02:client-keys-ignored',
    breaks:
      'an attribute request with clientKeys is answered with every client-side attribute, not only those asked',
  },
  {
    id: 'MQTT-DEV-ATTR-02:shared-keys-ignored',
    breaks:
      'an attribute request with sharedKeys is answered with every shared attribute, not only those asked',
  },
  {
    id: 'MQTT-DEV-ATTR-02:unasked-scope-answered',
    breaks:
      'an attribute request naming the keys of one scope is also answered with every attribute of the other scope',
  },
  {
    id: 'MQTT-DEV-ATTR-02:empty-request-answers-nothing',
    breaks:
      'an attribute request {} is answered with {}, not with every client and shared attribute',
  },
  {
    id: 'MQTT-DEV-ATTR-02:answer-on-next-id',
    breaks:
      'an attribute request on .../attributes/request/{id} is answered on .../attributes/response/{id + 1}',
  },
  {
    id: 'MQTT-DEV-ATTR-03:first-change-only',
    breaks:
      'a device subscribed to v1/devices/me/attributes receives the first change of its shared attributes, none after it',
  },
  {
    id: 'MQTT-DEV-ATTR-03:delivered-twice',
    breaks: 'each change of a shared attribute is published twice on v1/devices/me/attributes',
  },
  {
    id: 'MQTT-DEV-ATTR-03:unchanged-keys-included',
    breaks:
      'a shared attribute update on v1/devices/me/attributes carries every shared attribute, not only those changed',
  },
  // ---- RPC
  // ----------------------------------------------------------------------------------------------------
  {
    id: 'MQTT-DEV-RPC-01:params-dropped',
    breaks: 'a server-side RPC reaches the device on v1/devices/me/rpc/request/{id} with params {}',
  },
  {
    id: 'MQTT-DEV-RPC-01:delivered-twice',
    breaks: 'a server-side RPC is published twice on v1/devices/me/rpc/request/{id}',
  },
  {
    id: 'MQTT-DEV-RPC-01:reply-not-relayed',
    breaks:
      'a JSON reply on v1/devices/me/rpc/response/{id} is acknowledged but never reaches the requester',
  },
  {
    id: 'MQTT-DEV-RPC-02:reply-must-be-json',
    breaks:
      'An RPC reply on v1/devices/me/rpc/response/{id} that is empty or not JSON is refused (0x99, 3.1.1 close) and never reaches the requester.',
  },
  {
    id: 'MQTT-DEV-RPC-03:answer-on-next-id',
    breaks:
      'a client-side RPC on v1/devices/me/rpc/request/{id} is answered on v1/devices/me/rpc/response/{id + 1}',
  },
  {
    id: 'MQTT-DEV-RPC-03:answer-empty',
    breaks: 'a client-side RPC is answered with an empty payload instead of the JSON answer',
  },
  {
    id: 'MQTT-DEV-RPC-04:echoed',
    breaks:
      'getSessionLimits is not answered by the transport: the client-side RPC handler echoes the request instead.',
  },
  // ---- claim, firmware, provisioning
  // --------------------------------------------------------------------------
  {
    id: 'MQTT-DEV-CLAIM-01:claim-ignored',
    breaks: 'a claim on v1/devices/me/claim is acknowledged with success but registers nothing',
  },
  {
    id: 'MQTT-DEV-CLAIM-01:secret-key-dropped',
    breaks:
      'a claim on v1/devices/me/claim is registered with the empty secret key, not the one it names',
  },
  {
    id: 'MQTT-DEV-CLAIM-01:duration-ignored',
    breaks:
      'a claim on v1/devices/me/claim is registered for device.claim.duration, whatever durationMs it names',
  },
  {
    id: 'MQTT-DEV-CLAIM-01:duration-as-seconds',
    breaks:
      'the durationMs of a claim on v1/devices/me/claim is read as seconds (multiplied by 1000)',
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
