import { MAX_JSON_DEPTH } from '../../lib/kv/values';

/**
 * Quirks mode: the reference reproduces the known deviations of a real platform version, so that
 * the deviation machinery (a profile declares a deviation, an alternative scenario verifies it) is
 * itself tested here. The reference's own behaviour (no quirks) is the specification's; a quirks
 * mode never becomes the default.
 */
export interface Quirks {
  /**
   * Status of a malformed or wrongly shaped telemetry or attributes body (ThingsBoard: 500,
   * plain-text message).
   */
  malformedPayloadStatus: 400 | 500;
  /** ThingsBoard drops a null value silently instead of refusing the payload. */
  dropNullValues: boolean;
  /**
   * ThingsBoard stores a string that parses as a number as a LONG or DOUBLE
   * (transport.json.type_cast_enabled).
   */
  castNumericStrings: boolean;
  /**
   * ThingsBoard reads a gateway attribute request only in its own shape ({id, device, client: true|false, key|keys});
   * docs/reference/interfaces.md's shape (client and shared as arrays) fails: MQTT 5 PUBACK 0x83 and DISCONNECT, 3.1.1 close.
   */
  gatewayAttributeRequestThingsboardShapeOnly: boolean;
  /**
   * ThingsBoard stores a number with a `.` or an exponent whose decimal scale is above 16 (more
   * than 16 digits after the point once the exponent is applied: 0.12345678901234567, 1.5e-20) as a
   * STRING holding its plain decimal text (BigDecimal.toPlainString), not as a DOUBLE
   * (common/proto/.../adaptor/JsonConverter.java:283-288, with transport.json.type_cast_enabled
   * on). Observed on 4.3.1.3.
   */
  bigScaleDoublesAsStrings: boolean;
  /**
   * ThingsBoard drops the null members of every object inside a JSON value ({"a": null, "b": 1}
   * reads back as {"b": 1}); nulls inside arrays stay ([null] reads back as [null]): the transport
   * re-parses the value into the rule-engine message (transport-api/.../util/JsonUtils.java:48-49)
   * and writes it with a plain `new Gson()` (DefaultTransportService.java:164, 1148), whose
   * serializeNulls is off. Observed on 4.3.1.3.
   */
  jsonNullMembersDropped: boolean;
  /**
   * ThingsBoard answers telemetry whose ts is 253402300800000 (10000-01-01T00:00:00Z) or later as
   * any other (HTTP 200, PUBACK 0) but stores none of it; up to 253402300799999 it is stored.
   * Observed on 4.3.1.3 (PostgreSQL).
   */
  timestampsFromYear10000Dropped: boolean;
  /**
   * ThingsBoard treats a gateway telemetry element without ts as a plain key-value object (a key
   * named values).
   */
  gatewayEntryWithoutTsIsKeyValues: boolean;
  /**
   * ThingsBoard's provisioning: without deviceName the device gets a random 20-character name;
   * without provisionDeviceKey or provisionDeviceSecret the controller throws (500).
   * docs/reference/platform-facts.md §6.
   */
  provisioningFieldsOptional: boolean;
  /**
   * ThingsBoard processes a QoS 2 PUBLISH and answers PUBACK (MqttTransportHandler acknowledges
   * every packet id), where MQTT wants PUBREC (3.1.1) or, after the CONNACK's maximum QoS 1,
   * DISCONNECT 0x9B (5).
   */
  qos2AnsweredWithPuback: boolean;
  /**
   * Deepest JSON nesting of a device payload. ThingsBoard's transports parse device JSON with
   * Gson's JsonParser.parseString (common/transport/http/.../DeviceApiController.java 186, 206;
   * mqtt/adaptors/ JsonMqttAdaptor.java), whose JsonReader refuses a 256th level
   * (DEFAULT_NESTING_LIMIT 255, "Nesting limit 255 reached", gson 2.13.2 in ThingsBoard's build)
   * with a JsonSyntaxException, answered as any malformed payload (HTTP 500 with the message; MQTT
   * as a bad payload). Jackson (1000) is only the admin API's parser. The reference: Jackson's
   * StreamReadConstraints default, 1000 (lib/kv/values.ts MAX_JSON_DEPTH).
   */
  jsonMaxNestingDepth: number;
  /**
   * ThingsBoard authenticates every /api/** path outside the device API (/api/v1/**,
   * case-sensitive) and the public ones, so a request without a login to /api/v2/..., /api/v0/...
   * or /api/V1/... is 401, not 404 (ThingsboardSecurityConfiguration.java:82, 87, 270).
   */
  unknownApiPathNeedsLogin: boolean;
  /**
   * ThingsBoard never validates a long-poll's timeout: a negative one schedules the session's end
   * at once, so the poll is answered 408 instead of 400 (DeviceApiController.java:248-255,
   * 335-342).
   */
  negativeLongPollTimeoutExpires: boolean;
  /**
   * ThingsBoard reads the device of a gateway disconnect with Gson's getAsString, so a number or
   * boolean is taken as its text ({"device": 42} disconnects "42", PUBACK 0)
   * (AbstractGatewaySessionHandler.java:388-390, 403-406, 767).
   */
  gatewayDisconnectScalarDeviceAsText: boolean;
  /**
   * ThingsBoard follows a refusing MQTT 5 CONNACK with a DISCONNECT carrying the CONNACK's code
   * (0x86 for an unknown token), which is no DISCONNECT reason code: mqtt.js rejects that packet
   * (MqttTransportHandler.java:1361-1362, 228, 245-246). The twin sends both in one write, the case
   * where the client reads them together. Not a deviation: the CONNACK refuses, as
   * docs/reference/interfaces.md wants; the harness must read it so.
   */
  refusingConnackFollowedByDisconnect: boolean;
  /**
   * ThingsBoard evicts a device's claim registration when a customer claims it with a wrong secret
   * key (or after its window): the right key fails afterwards
   * (ClaimDevicesServiceImpl.java:142-147).
   */
  wrongClaimKeyEndsRegistration: boolean;
  /**
   * ThingsBoard's admin API (AUTH-05): `X-Authorization: Basic …` is answered 302 to /oauth2Login
   * (the OAuth2 login entry point), and a refresh token used as a Bearer token 500, from unboxing
   * its missing `enabled` claim (JwtTokenFactory.java:142), instead of 401.
   */
  adminAuthRefusalsAsThingsboard: boolean;
  /**
   * ThingsBoard's MQTT pipeline has no idle handler (MqttTransportServerInitializer.java:40-57): a
   * connection that never sends CONNECT stays open (ROB-CONN-02; MQTT_TIMEOUT is the RPC delivery
   * timeout, MqttTransportHandler.java:1555), and the CONNECT's keep-alive is not enforced.
   */
  mqttNoIdleTimeouts: boolean;
  /**
   * ThingsBoard writes to an MQTT channel without checking that it is writable (no isWritable in
   * the transport): a client that stops reading has everything queued for it and stays connected
   * (ROB-SLOW-01).
   */
  mqttOutputUnbounded: boolean;
  /**
   * ThingsBoard's gateway connect beyond the tenant's device limit is answered PUBACK 0x97 only
   * when the device's creation is still running when the handler looks; when it has already failed,
   * `process` calls get() on the failed future, the exception leaves the handler ("Unexpected
   * Exception") and the connection is closed without a PUBACK
   * (AbstractGatewaySessionHandler.java:877-882 with processOnConnect :259-268;
   * MqttTransportHandler closes the channel). Seen in 1 of 4 runs on 4.3.1.3; the twin always takes
   * the closing branch, the one that differs.
   */
  gatewayConnectOverLimitCloses: boolean;
  /**
   * ThingsBoard never answers telemetry that holds no entry: the transport acknowledges a telemetry
   * message when each of its entries has been queued (DefaultTransportService.java:551-559,
   * MsgPackCallback counting down from the entry count), and with none the callback never runs.
   * Over HTTP (`[]`) the request waits until Spring's async timeout ends it with 503
   * `{"message":null,"errorCode":2,"status":503,...}` (spring.mvc.async.request-timeout, 30 s in
   * thingsboard.yml:916; this figure is the twin's stand-in, in ms, 0 = answered as specified); a
   * gateway publish with a device whose entry array is empty gets no PUBACK
   * (AbstractGatewaySessionHandler.java:427-447: the device's count never reaches zero), though the
   * device is connected and the other devices' data is stored; a device's own `[]` on
   * v1/devices/me/telemetry gets no PUBACK either (observed on 4.3.1.3).
   */
  emptyTelemetryUnansweredMs: number;
}

export const NO_QUIRKS: Quirks = {
  malformedPayloadStatus: 400,
  dropNullValues: false,
  castNumericStrings: false,
  bigScaleDoublesAsStrings: false,
  jsonNullMembersDropped: false,
  timestampsFromYear10000Dropped: false,
  gatewayAttributeRequestThingsboardShapeOnly: false,
  gatewayEntryWithoutTsIsKeyValues: false,
  provisioningFieldsOptional: false,
  qos2AnsweredWithPuback: false,
  jsonMaxNestingDepth: MAX_JSON_DEPTH,
  unknownApiPathNeedsLogin: false,
  negativeLongPollTimeoutExpires: false,
  gatewayDisconnectScalarDeviceAsText: false,
  refusingConnackFollowedByDisconnect: false,
  wrongClaimKeyEndsRegistration: false,
  gatewayConnectOverLimitCloses: false,
  adminAuthRefusalsAsThingsboard: false,
  mqttNoIdleTimeouts: false,
  mqttOutputUnbounded: false,
  emptyTelemetryUnansweredMs: 0,
};

export const QUIRKS_MODES = {
  /**
   * ThingsBoard 4.3 (monolith or microservices): docs/reference/platform-facts.md §2, §3 and §4.5.
   */
  'thingsboard-4.3': {
    malformedPayloadStatus: 500,
    dropNullValues: true,
    castNumericStrings: true,
    bigScaleDoublesAsStrings: true,
    jsonNullMembersDropped: true,
    timestampsFromYear10000Dropped: true,
    gatewayAttributeRequestThingsboardShapeOnly: true,
    gatewayEntryWithoutTsIsKeyValues: true,
    provisioningFieldsOptional: true,
    qos2AnsweredWithPuback: true,
    jsonMaxNestingDepth: 255,
    unknownApiPathNeedsLogin: true,
    negativeLongPollTimeoutExpires: true,
    gatewayDisconnectScalarDeviceAsText: true,
    refusingConnackFollowedByDisconnect: true,
    wrongClaimKeyEndsRegistration: true,
    gatewayConnectOverLimitCloses: true,
    adminAuthRefusalsAsThingsboard: true,
    mqttNoIdleTimeouts: true,
    mqttOutputUnbounded: true,
    emptyTelemetryUnansweredMs: 1000,
  },
} as const satisfies Record<string, Quirks>;

export type QuirksMode = keyof typeof QUIRKS_MODES;
