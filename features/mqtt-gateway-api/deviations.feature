@mqtt-gateway-api
Feature: Declared deviations of real platform versions (MQTT gateway API)
  Where a target profile declares that the platform knowingly differs from the specification, these scenarios run
  instead of the specification's and check that the declared alternative holds. Against a target that declares no
  deviation they are skipped.

  @deviation-GW-ATTRREQ-01 @GW-ATTRREQ-02 @capability-mqtt5
  Scenario: An attribute request in ThingsBoard's shape is answered; the specification's shape is refused
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes attributes for "dial": {"unit": "bar"}
    Then the PUBACK reports success
    And the platform eventually holds a device "dial" of the profile "default"
    And the platform eventually holds client attributes of "dial":
      | key  | value | type   |
      | unit | bar   | string |
    When the gateway "gw" requests attributes of "dial" with {"client": true, "key": "unit"}
    Then the gateway "gw" receives on v1/gateway/attributes/response an answer with the id of its request for "dial"
    And the gateway's attribute answer for "gw" holds {"unit": "bar"}
    When the gateway "gw" publishes on "v1/gateway/attributes/request" the payload {"id": 90, "device": "{{dial}}", "client": ["unit"]}
    Then the publish is refused with a failure reason code or a closed connection

  @deviation-GW-TEL-03
  Scenario: An entry without ts is stored as a key named values at server time
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" publishes telemetry for "clock": [{"values": {"tick": 7}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "clock" of the profile "default"
    And the platform eventually holds telemetry of "clock":
      | key    | ts     | value      | type |
      | values | server | {"tick":7} | json |

  @deviation-GW-RULE-02-TS @GW-TEL-01 @GW-TEL-02 @GW-RULE-02 @GW-RULE-02-KEYS
  Scenario: A gateway entry from the year 10000 on is acknowledged but not stored; earlier entries are
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" publishes telemetry for "almanac": [{"ts": 253402300799000, "values": {"last-of-9999": 1}}, {"ts": 253402300800000, "values": {"first-of-10000": 2}}]
    Then the PUBACK reports success
    When the gateway "gw" publishes telemetry for "almanac": [{"ts": 1700000000000, "values": {"iotc-after": 3}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "almanac" of the profile "default"
    And the platform eventually holds telemetry of "almanac":
      | key          | ts              | value | type |
      | last-of-9999 | 253402300799000 | 1     | long |
      | iotc-after   | 1700000000000   | 3     | long |
    And the telemetry keys of "almanac" are exactly "last-of-9999, iotc-after"

  @deviation-GW-ERR-03 @GW-VER-02 @GW-RULE-04 @capability-mqtt5
  Scenario: A null attribute value is dropped with success; attributes that are not JSON fail with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes attributes for "valve": {"kept": "k", "dropped": null}
    Then the PUBACK reports success
    And the platform eventually holds a device "valve" of the profile "default"
    And the platform eventually holds client attributes of "valve":
      | key  | value | type   |
      | kept | k     | string |
    When the gateway "gw" publishes on "v1/gateway/attributes" the payload {"{{valve}}": {"k": tru
    Then the PUBACK carries a failure reason code

  @deviation-GW-ERR-04 @GW-VER-02 @GW-RULE-04 @capability-mqtt5
  Scenario: A null telemetry value is dropped with success; values that are not an object fail with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes telemetry for "gauge": [{"ts": 1700000000000, "values": {"kept": 1, "dropped": null}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "gauge" of the profile "default"
    And the telemetry keys of "gauge" are exactly "kept"
    When the gateway "gw" publishes telemetry for "gauge": [{"ts": 1700000000000, "values": 5}]
    Then the PUBACK carries a failure reason code

  @deviation-GW-ERR-02 @GW-VER-02 @GW-RULE-04 @capability-mqtt5
  Scenario: A disconnect whose device is a number succeeds (the number is read as a name); one without a device fails with a status code
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/disconnect" the payload {"device": 42}
    Then the PUBACK reports success
    And the gateway "gw" is still connected
    When the gateway "gw" publishes on "v1/gateway/disconnect" the payload {"type": "sensor"}
    Then the PUBACK carries a failure reason code

  @deviation-GW-CLAIM-01 @capability-claiming
  Scenario: A customer claim with a wrong secret key ends the registration: the right key fails afterwards
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "tracker"
    And the gateway "gw" connects the device "control"
    And the gateway "gw" publishes a claim for "tracker": {"secretKey": "gw-s3cret", "durationMs": 60000}
    Then the PUBACK reports success
    When the gateway "gw" publishes a claim for "control": {"secretKey": "gw-s3cret", "durationMs": 60000}
    Then the PUBACK reports success
    And the platform eventually holds a device "tracker" of the profile "default"
    And the platform eventually holds a device "control" of the profile "default"
    And the customer can claim "control" with the secret key "gw-s3cret"
    And the customer cannot claim "tracker" with the secret key "wrong-key"
    And the customer cannot claim "tracker" with the secret key "gw-s3cret"

  @deviation-GW-ERR-01 @GW-VER-02 @GW-RULE-04 @capability-mqtt5
  Scenario: A connect without a device name fails with a status code (the device-limit case: device-limit.feature)
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/connect" the payload {"type": "sensor"}
    Then the PUBACK carries a failure reason code

  @deviation-GW-TEL-01-EMPTY
  Scenario: A device with an empty entry array gets the publish no PUBACK; the connection stays and serves on
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" connects the device "idle"
    Then the PUBACK reports success
    And the platform eventually holds a device "idle" of the profile "default"
    When the gateway "gw" publishes telemetry for "idle": []
    Then the publish gets no PUBACK and the connection stays open
    When the gateway "gw" publishes telemetry for "idle": [{"ts": 1700000000000, "values": {"iotc_sentinel": 1}}]
    Then the PUBACK reports success
    And the telemetry keys of "idle" are exactly "iotc_sentinel"
