/**
 * Faults that break requirements of the mqtt-gateway-api interface (features/mqtt-gateway-api/).
 */
import type { FaultDefinition } from './definition';

export const GATEWAY_FAULTS = [
  // ---- the gateway and its connection
  // -----------------------------------------------------------------------
  {
    id: 'GW-GEN-01:one-device-per-gateway',
    breaks:
      'a gateway connection serves one device: connecting a second device (explicitly or by its data) fails',
  },
  {
    id: 'GW-GEN-02:own-telemetry-dropped',
    breaks:
      "a gateway's own telemetry on v1/devices/me/telemetry is acknowledged with success but not stored",
  },
  {
    id: 'GW-GEN-02:own-attributes-dropped',
    breaks:
      "a gateway's own client attributes on v1/devices/me/attributes are acknowledged with success but not stored",
  },
  {
    id: 'GW-GEN-03:own-updates-withheld',
    breaks:
      'a gateway subscribed to v1/devices/me/attributes receives none of its own shared attribute updates',
  },
  {
    id: 'GW-GEN-04:own-rpc-withheld',
    breaks:
      'a gateway subscribed to v1/devices/me/rpc/request/+ receives none of the RPCs addressed to itself',
  },
  {
    id: 'GW-AUTH-01:unknown-token-accepted',
    breaks: 'a CONNECT whose user name is no access token is accepted',
  },
  {
    id: 'GW-AUTH-01:tls-token-from-password',
    breaks:
      'over TLS (mqtts) the access token is read from the MQTT password instead of the user name',
  },
  {
    id: 'GW-VER-01:prefix-v2',
    breaks: 'the gateway topics are served under v2/gateway/ instead of v1/gateway/',
  },
  {
    id: 'GW-VER-02:v5-acked-as-v3',
    breaks:
      'an MQTT 5 gateway publish that fails is acknowledged as in MQTT 3.1.1: a plain PUBACK or a closed connection, no status code',
  },
  {
    id: 'GW-RULE-04:v5-failure-unacknowledged',
    breaks: 'an MQTT 5 gateway publish that fails gets no PUBACK at all',
  },
  // ---- connect and disconnect
  // -------------------------------------------------------------------------------
  {
    id: 'GW-CONN-01:type-required',
    breaks: 'a connect without type is refused as malformed (type treated as required)',
  },
  {
    id: 'GW-CONN-02:type-ignored',
    breaks: 'a connect with type creates the device with the profile default',
  },
  {
    id: 'GW-CONN-03:default-profile-misnamed',
    breaks: 'a connect without type gives the device a profile named gateway instead of default',
  },
  {
    id: 'GW-STATE-01:existing-device-not-routed',
    breaks:
      'a connect of a device that exists already is acknowledged but does not connect it (no updates, no RPCs)',
  },
  {
    id: 'GW-STATE-01:existing-device-profile-replaced',
    breaks: 'a connect with type of a device that exists already replaces its profile',
  },
  {
    id: 'GW-STATE-02:connect-creates-nothing',
    breaks: 'a connect of an unknown device name is acknowledged but creates no device',
  },
  {
    id: 'GW-STATE-03:absent-profile-default',
    breaks:
      'a connect naming a device profile that is absent gives the device the profile default and creates no profile',
  },
  {
    id: 'GW-STATE-04:routing-waits-for-data',
    breaks:
      'an explicit connect routes nothing: updates and RPCs reach the gateway only once it published data for the device',
  },
  {
    id: 'GW-DISC-01:disconnect-refused',
    breaks: 'every disconnect is refused as malformed',
  },
  {
    id: 'GW-STATE-05:disconnect-ignored',
    breaks: 'a disconnect is acknowledged but the device stays connected',
  },
  {
    id: 'GW-STATE-06:updates-still-routed',
    breaks: "after a disconnect the device's shared attribute updates still reach the gateway",
  },
  {
    id: 'GW-STATE-06:rpc-still-routed',
    breaks: "after a disconnect the device's RPCs still reach the gateway",
  },
  {
    id: 'GW-STATE-07:disconnect-creates-device',
    breaks: 'a disconnect for an unknown device name creates that device',
  },
  {
    id: 'GW-LIM-01:limit-one-early',
    breaks: 'a gateway connect is refused one device before the limit is reached',
  },
  {
    id: 'GW-LIM-01:limit-not-enforced',
    breaks: "a gateway connect creates the device beyond the tenant's device limit",
  },
  // ---- attributes
  // -------------------------------------------------------------------------------------------
  {
    id: 'GW-ATTR-01:stored-as-shared',
    breaks: 'gateway attributes are stored as shared attributes instead of client-side ones',
  },
  {
    id: 'GW-ATTR-01:first-key-dropped',
    breaks: 'the first attribute of each device in a gateway attributes publish is not stored',
  },
  {
    id: 'GW-ATTR-02:first-device-only',
    breaks: 'an attributes publish stores the attributes of its first device only',
  },
  {
    id: 'GW-RULE-02-UPD:put-if-absent',
    breaks: 'a gateway attributes publish does not overwrite an attribute that exists',
  },
  {
    id: 'GW-ATTR-03:data-member-renamed',
    breaks: 'a shared attribute update is published as {device, values} instead of {device, data}',
  },
  {
    id: 'GW-ATTR-03:update-duplicated',
    breaks: 'every shared attribute update is published to the gateway twice',
  },
  {
    id: 'GW-ATTR-03:all-shared-attributes',
    breaks:
      'data of an update holds every shared attribute of the device, not only the updated ones',
  },
  {
    id: 'GW-ATTR-03:v3-updates-withheld',
    breaks: 'an MQTT 3.1.1 gateway receives no shared attribute updates of its devices',
  },
  {
    id: 'GW-EVT-01:first-update-only',
    breaks: 'only the first shared attribute update after a connect reaches the gateway',
  },
  {
    id: 'GW-EVT-02:updates-to-every-gateway',
    breaks:
      'a shared attribute update is published to every gateway connection, also to gateways that never connected the device',
  },
  {
    id: 'GW-ATTRREQ-01:shared-keys-ignored',
    breaks:
      'the shared array of an attribute request is ignored: the answer holds no shared attribute',
  },
  {
    id: 'GW-ATTRREQ-01:shared-required',
    breaks: 'an attribute request without shared is refused as malformed',
  },
  {
    id: 'GW-ATTRREQ-01:key-filter-ignored',
    breaks:
      'the key names of an attribute request are ignored: every attribute of each requested scope is answered',
  },
  {
    id: 'GW-ATTRREQ-02:answer-topic-wrong',
    breaks: 'an attribute request is answered on v1/gateway/attributes/reply',
  },
  {
    id: 'GW-ATTRREQ-02:id-not-echoed',
    breaks: 'the answer to an attribute request carries another id than the request',
  },
  // ---- telemetry
  // --------------------------------------------------------------------------------------------
  {
    id: 'GW-TEL-01:first-key-dropped',
    breaks: 'the first key of each telemetry entry is not stored',
  },
  {
    id: 'GW-TEL-01:ts-as-seconds',
    breaks: 'ts is read as unix seconds: entries are stored at ts × 1000',
  },
  {
    id: 'GW-TEL-01-EMPTY:empty-entries-refused',
    breaks:
      'a gateway telemetry publish with a device whose entry array is empty is refused as a malformed payload',
  },
  {
    id: 'GW-TEL-02:first-entry-only',
    breaks: 'only the first entry of each device in a telemetry publish is stored',
  },
  {
    id: 'GW-TEL-02:first-device-only',
    breaks: 'a telemetry publish stores the entries of its first device only',
  },
  {
    id: 'GW-TEL-03:entry-without-ts-dropped',
    breaks: 'a telemetry entry without ts is acknowledged but not stored',
  },
  {
    id: 'GW-TEL-03:entry-without-ts-at-epoch',
    breaks: 'a telemetry entry without ts is stored at ts 0 instead of the time of receipt',
  },
  {
    id: 'GW-RULE-02-TS:ts-ignored',
    breaks: 'gateway telemetry is stored at the time of receipt, whatever its ts',
  },
  {
    id: 'GW-RULE-02:unknown-device-data-dropped',
    breaks:
      'attributes or telemetry for an unknown device are acknowledged but neither the device nor the data is stored',
  },
  {
    id: 'GW-RULE-02:implicit-profile-not-default',
    breaks:
      'a device created by its attributes or telemetry gets a profile named gateway-device instead of default',
  },
  {
    id: 'GW-RULE-02-KEYS:new-keys-dropped',
    breaks:
      'gateway attributes and telemetry store only keys the device has already; new keys are dropped',
  },
  // ---- RPC
  // --------------------------------------------------------------------------------------------------
  {
    id: 'GW-RPC-01:params-dropped',
    breaks: 'an RPC reaches the gateway with params {} whatever the caller sent',
  },
  {
    id: 'GW-RPC-01:id-as-string',
    breaks: 'the id of an RPC on v1/gateway/rpc is a string, not an integer',
  },
  {
    id: 'GW-RPC-01:rpc-duplicated',
    breaks: 'every RPC is published to the gateway twice',
  },
  {
    id: 'GW-RPC-02:reply-data-dropped',
    breaks: 'a gateway RPC reply is relayed to the caller as {} instead of its data',
  },
  {
    id: 'GW-RPC-02:reply-id-ignored',
    breaks:
      "a gateway RPC reply answers the device's oldest RPC awaiting an answer, whatever its id",
  },
  {
    id: 'GW-EVT-03:rpc-on-wrong-topic',
    breaks: 'an RPC to a device behind the gateway is published on v1/gateway/rpc/request',
  },
  {
    id: 'GW-RULE-03:rpc-to-every-gateway',
    breaks:
      'an RPC is published to every gateway connection subscribed to v1/gateway/rpc, not only the one that connected the device',
  },
  {
    id: 'GW-RULE-03:undelivered-rpc-500',
    breaks:
      'a two-way RPC that no session could take ends 500 instead of 409 (v1) / 504 (v2): the caller cannot tell it from a crash',
  },
  // ---- claiming
  // ---------------------------------------------------------------------------------------------
  {
    id: 'GW-CLAIM-01:claim-ignored',
    breaks: 'a gateway claim is acknowledged but registers nothing',
  },
  {
    id: 'GW-CLAIM-01:wrong-key-ends-registration',
    breaks:
      'a customer claim with a wrong secret key ends the registration: the right key fails afterwards, inside the window',
  },
  {
    id: 'GW-CLAIM-01:secret-key-dropped',
    breaks: 'the secretKey of a gateway claim is ignored: the registration holds the empty key',
  },
  {
    id: 'GW-CLAIM-02:default-key-device-name',
    breaks: "a gateway claim without secretKey registers the device's name as its key",
  },
  {
    id: 'GW-CLAIM-03:default-ten-years',
    breaks:
      'a gateway claim without durationMs is open for ten years instead of device.claim.duration',
  },
  {
    id: 'GW-CLAIM-03:duration-ignored',
    breaks: 'the durationMs of a gateway claim is ignored: device.claim.duration is used',
  },
  {
    id: 'GW-CLAIM-03:duration-as-seconds',
    breaks: 'the durationMs of a gateway claim is read as seconds',
  },
  // ---- MQTT 5 failure status codes
  // --------------------------------------------------------------------------
  {
    id: 'GW-ERR-01:missing-device-success',
    breaks: 'an MQTT 5 connect without device is acknowledged with success (nothing is created)',
  },
  {
    id: 'GW-ERR-01:quota-success',
    breaks:
      'an MQTT 5 connect beyond the device limit is acknowledged with success (the device is still not created)',
  },
  {
    id: 'GW-ERR-02:disconnect-failure-success',
    breaks: 'an MQTT 5 disconnect that fails is acknowledged with success',
  },
  {
    id: 'GW-ERR-03:attributes-failure-success',
    breaks: 'an MQTT 5 attributes publish that fails is acknowledged with success (nothing stored)',
  },
  {
    id: 'GW-ERR-04:telemetry-failure-success',
    breaks: 'an MQTT 5 telemetry publish that fails is acknowledged with success (nothing stored)',
  },
] as const satisfies readonly FaultDefinition[];
