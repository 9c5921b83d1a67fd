@mqtt-gateway-api @capability-mqtt5
Feature: Generated gateway payloads over MQTT 5
  The gateway payloads are generated with fast-check from the JSON Schemas of the MQTT gateway API
  (schemas/gateway.ts through schemas/arbitrary.ts): one or two devices per message, several entries per device
  with and without ts, keys with spaces, dots and unicode, values of all five types with the type explicit.
  Every case names fresh devices, reads back through the administration API and deletes the devices. A rejected
  message must store nothing: a valid sentinel for the same devices follows, and once it is stored the devices
  hold nothing else. The seed and path of each property are recorded in the report; FC_SEED and FC_PATH replay a
  failure, FC_RUNS sets the number of cases.

  The valid payloads are split in three parts: ts on every entry (before the year 10000), booleans and longs only,
  and at least one value for every device; ts on every entry, no string value, and a double or JSON value (or a
  later ts, or a device with no value); and the rest (a string value or an entry without ts). Attributes alike,
  without the ts. Each part carries the requirements it checks, so a target that declares the deviation of
  one of them (KV-02, KV-04, KV-06, GW-TEL-03) still runs the parts that do not touch it.

  @GW-TEL-01 @GW-TEL-02 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-03 @KV-05
  Scenario: Valid generated gateway telemetry with ts before the year 10000 on every entry and booleans and longs only is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry with ts before the year 10000 on every entry and booleans and longs only published by "gw" is acknowledged with success and stored exactly for each device

  @GW-TEL-01 @GW-TEL-02 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway telemetry with ts on every entry, no string value, and a double, a JSON value or a ts from the year 10000 on is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry with ts on every entry, no string value, and a double, a JSON value or a ts from the year 10000 on published by "gw" is acknowledged with success and stored exactly for each device

  @GW-TEL-01 @GW-TEL-02 @GW-TEL-03 @GW-RULE-02 @GW-RULE-02-KEYS @GW-RULE-02-TS @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway telemetry with a string value or an entry without ts is acknowledged and stored exactly for each device
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway telemetry with a string value or an entry without ts published by "gw" is acknowledged with success and stored exactly for each device

  @GW-ATTR-01 @GW-ATTR-02 @GW-RULE-02 @GW-RULE-02-KEYS @KV-01 @KV-03 @KV-05
  Scenario: Valid generated gateway attributes with booleans and longs only are acknowledged and stored exactly as client-side attributes
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway attributes with booleans and longs only published by "gw" are acknowledged with success and stored exactly for each device

  @GW-ATTR-01 @GW-ATTR-02 @GW-RULE-02 @GW-RULE-02-KEYS @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid generated gateway attributes with a double or JSON value and no string value are acknowledged and stored exactly as client-side attributes
    Given a gateway "gw" connected over MQTT 5
    Then generated valid gateway attributes with a double or JSON value and no string value published by "gw" are acknowledged with success and stored exactly for each device

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
