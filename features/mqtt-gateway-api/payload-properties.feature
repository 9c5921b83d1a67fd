@mqtt-gateway-api @capability-mqtt5
Feature: Generated gateway payloads over MQTT 5
  The gateway payloads are generated with fast-check from the JSON Schemas of the MQTT gateway API
  (schemas/gateway.ts through schemas/arbitrary.ts): one or two devices per message, several entries per device
  with and without ts, keys with spaces, dots and unicode, values of all five types with the type explicit.
  Every case names fresh devices, reads back through the administration API and deletes the devices. A rejected
  message must store nothing: a valid sentinel for the same devices follows, and once it is stored the devices
  hold nothing else. The seed and path of each property are recorded in the report; FC_SEED and FC_PATH replay a
  failure, FC_RUNS sets the number of cases.

  @GW-TEL-01 @GW-TEL-02 @GW-TEL-03 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway telemetry is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry published by "gw" is acknowledged with success and stored exactly for each device

  @GW-ATTR-01 @GW-ATTR-02 @GW-RULE-02 @GW-RULE-02-KEYS @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway attributes are acknowledged and stored exactly as client-side attributes
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway attributes published by "gw" are acknowledged with success and stored exactly for each device

  @GW-RULE-04 @GW-ERR-04 @GW-VER-02
  Scenario: Malformed generated gateway telemetry gets a failure reason code and stores nothing
    Given a gateway "gw" connected over MQTT 5
    Then generated malformed gateway telemetry published by "gw" gets a failure reason code and nothing is stored

  @GW-RULE-04 @GW-ERR-03 @GW-VER-02
  Scenario: Malformed generated gateway attributes get a failure reason code and store nothing
    Given a gateway "gw" connected over MQTT 5
    Then generated malformed gateway attributes published by "gw" get a failure reason code and nothing is stored
