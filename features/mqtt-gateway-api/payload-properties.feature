@mqtt-gateway-api @capability-mqtt5
Feature: Generated gateway payloads over MQTT 5
  The gateway payloads are generated with fast-check from the JSON Schemas of the MQTT gateway API
  (schemas/gateway.ts through schemas/arbitrary.ts): one or two devices per message, several entries per device
  with and without ts, keys with spaces, dots and unicode, values of all five types with the type explicit.
  Every case names fresh devices, reads back through the administration API and deletes the devices. A rejected
  message must store nothing: a valid sentinel for the same devices follows, and once it is stored the devices
  hold nothing else. The seed and path of each property are recorded in the report; FC_SEED and FC_PATH replay a
  failure, FC_RUNS sets the number of cases.

  The valid payloads are split in two halves: with ts on every entry and without string values, and the rest (a
  string value or an entry without ts). The first half checks neither KV-02 nor GW-TEL-03, so it still runs on a
  target that declares their deviations (a numeric string is stored as a number; an entry without ts is key-value
  data), where the other half is set aside.

  @GW-TEL-01 @GW-TEL-02 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway telemetry with ts and without string values is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry with ts and without string values published by "gw" is acknowledged with success and stored exactly for each device

  @GW-TEL-01 @GW-TEL-02 @GW-TEL-03 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway telemetry with a string value or an entry without ts is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry with a string value or an entry without ts published by "gw" is acknowledged with success and stored exactly for each device

  @GW-ATTR-01 @GW-ATTR-02 @GW-RULE-02 @GW-RULE-02-KEYS @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway attributes without string values are acknowledged and stored exactly as client-side attributes
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway attributes without string values published by "gw" are acknowledged with success and stored exactly for each device

  @GW-ATTR-01 @GW-ATTR-02 @GW-RULE-02 @GW-RULE-02-KEYS @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway attributes with a string value are acknowledged and stored exactly as client-side attributes
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway attributes with a string value published by "gw" are acknowledged with success and stored exactly for each device

  @GW-RULE-04 @GW-ERR-04 @GW-VER-02
  Scenario: Malformed generated gateway telemetry gets a failure reason code and stores nothing
    Given a gateway "gw" connected over MQTT 5
    Then generated malformed gateway telemetry published by "gw" gets a failure reason code and nothing is stored

  @GW-RULE-04 @GW-ERR-03 @GW-VER-02
  Scenario: Malformed generated gateway attributes get a failure reason code and store nothing
    Given a gateway "gw" connected over MQTT 5
    Then generated malformed gateway attributes published by "gw" get a failure reason code and nothing is stored
