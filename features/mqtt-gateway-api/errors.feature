@mqtt-gateway-api @capability-mqtt5
Feature: Failure status codes of MQTT 5
  With MQTT version 5 the PUBACK of connect, disconnect, attribute publish and telemetry publish carries a status
  code when the operation fails (the code values are not fixed by the specification: any failure code, 0x80 or
  above, is accepted). A failed publish stores nothing.

  @GW-VER-02 @GW-RULE-04 @GW-ERR-01
  Scenario: A connect without a device name fails with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/connect" the payload {"type": "sensor"}
    Then the PUBACK carries a failure reason code

  @GW-RULE-04 @GW-ERR-02
  Scenario: A disconnect whose device is not a string fails with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/disconnect" the payload {"device": 42}
    Then the PUBACK carries a failure reason code

  @GW-RULE-04 @GW-ERR-03
  Scenario: An attribute publish that is not JSON fails with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/attributes" the payload {"{{broken}}": {"k": tru
    Then the PUBACK carries a failure reason code
    And no device "broken" exists on the platform

  @GW-RULE-04 @GW-ERR-04
  Scenario: A telemetry publish whose values are not an object fails with a status code and stores nothing
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "gauge"
    Then the PUBACK reports success
    And the platform eventually holds a device "gauge" of the profile "default"
    When the gateway "gw" publishes telemetry for "gauge": [{"ts": 1700000000000, "values": 5}]
    Then the PUBACK carries a failure reason code
    When the gateway "gw" publishes telemetry for "gauge": [{"ts": 1700000000000, "values": {"iotc_sentinel": 1}}]
    Then the PUBACK reports success
    And the telemetry keys of "gauge" are exactly "iotc_sentinel"

  @GW-RULE-04 @GW-ERR-03
  Scenario: An attribute publish with a null value fails with a status code and stores nothing
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "valve"
    Then the PUBACK reports success
    And the platform eventually holds a device "valve" of the profile "default"
    When the gateway "gw" publishes attributes for "valve": {"kept": "k", "dropped": null}
    Then the PUBACK carries a failure reason code
    And no client attribute was stored for "valve"

  @GW-RULE-04 @GW-ERR-04
  Scenario: A telemetry publish with a null value fails with a status code and stores nothing
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "gauge"
    Then the PUBACK reports success
    And the platform eventually holds a device "gauge" of the profile "default"
    When the gateway "gw" publishes telemetry for "gauge": [{"ts": 1700000000000, "values": {"kept": 1, "dropped": null}}]
    Then the PUBACK carries a failure reason code
    And no telemetry was stored for "gauge"
