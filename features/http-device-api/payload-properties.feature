@http-device-api
Feature: Generated payloads of the HTTP device API
  The payloads are generated with fast-check from the JSON Schemas in schemas/ (schemas/arbitrary.ts): keys with
  spaces, dots and unicode; values of all five types with the type explicit (a double always carries a decimal
  point, longs span the whole signed 64-bit range, JSON nests objects and arrays). Each case uses a fresh device,
  reads back through the administration API and deletes the device. The seed and path of each property are
  recorded in the report; FC_SEED and FC_PATH replay a failure, FC_RUNS sets the number of cases.

  Each form is split in three parts of its payloads: booleans and longs only, at least one value, and in the
  timestamped form a ts before the year 10000; no string but a double or JSON value (or a later ts, or no value at
  all); and a string value. Together they are every payload of the form. Each part carries the requirements it checks, so a target that declares the
  deviation of one kind of value (KV-02, KV-04, KV-06) still runs the parts that do not hold it.

  @HTTP-TEL-01 @KV-01 @KV-03 @KV-05
  Scenario: Valid telemetry in the object form with booleans and longs only is accepted and stored exactly
    Then generated valid telemetry in the object form with booleans and longs only is accepted and every key reads back with its value and type

  @HTTP-TEL-01 @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the object form with a double or JSON value and no string value is accepted and stored exactly
    Then generated valid telemetry in the object form with a double or JSON value and no string value is accepted and every key reads back with its value and type

  @HTTP-TEL-01 @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the object form with a string value is accepted and stored exactly
    Then generated valid telemetry in the object form with a string value is accepted and every key reads back with its value and type

  @HTTP-TEL-02 @KV-01 @KV-03 @KV-05
  Scenario: Valid telemetry in the array form with booleans and longs only is accepted and stored exactly
    Then generated valid telemetry in the array form with booleans and longs only is accepted and every key reads back with its value and type

  @HTTP-TEL-02 @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the array form with a double or JSON value and no string value is accepted and stored exactly
    Then generated valid telemetry in the array form with a double or JSON value and no string value is accepted and every key reads back with its value and type

  @HTTP-TEL-02 @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the array form with a string value is accepted and stored exactly
    Then generated valid telemetry in the array form with a string value is accepted and every key reads back with its value and type

  @HTTP-TEL-03 @KV-01 @KV-03 @KV-05
  Scenario: Valid telemetry in the timestamped form with booleans and longs only and a ts before the year 10000 is stored exactly, with the device's timestamp
    Then generated valid telemetry in the timestamped form with booleans and longs only and a ts before the year 10000 is accepted and every key reads back with its value and type

  @HTTP-TEL-03 @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the timestamped form with a double, a JSON value or a ts from the year 10000 on, and no string value is stored exactly, with the device's timestamp
    Then generated valid telemetry in the timestamped form with a double, a JSON value or a ts from the year 10000 on, and no string value is accepted and every key reads back with its value and type

  @HTTP-TEL-03 @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid telemetry in the timestamped form with a string value is stored exactly, with the device's timestamp
    Then generated valid telemetry in the timestamped form with a string value is accepted and every key reads back with its value and type

  @HTTP-ATTR-01 @KV-01 @KV-03 @KV-05
  Scenario: Valid client attributes with booleans and longs only are stored exactly
    Then generated valid client attributes with booleans and longs only are accepted and every key reads back with its value and type

  @HTTP-ATTR-01 @KV-01 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid client attributes with a double or JSON value and no string value are stored exactly
    Then generated valid client attributes with a double or JSON value and no string value are accepted and every key reads back with its value and type

  @HTTP-ATTR-01 @KV-01 @KV-02 @KV-03 @KV-04 @KV-05 @KV-06
  Scenario: Valid client attributes with a string value are stored exactly
    Then generated valid client attributes with a string value are accepted and every key reads back with its value and type

  @HTTP-ERR-01
  Scenario: Malformed telemetry is answered 400 and nothing is stored
    Then generated malformed telemetry is answered 400 and the device holds no telemetry afterwards

  @HTTP-ERR-01
  Scenario: Malformed client attributes are answered 400 and nothing is stored
    Then generated malformed client attributes are answered 400 and the device holds no client attributes afterwards
