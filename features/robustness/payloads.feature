@robustness @capability-robustness
Feature: Oversized and deeply nested payloads
  A payload beyond the platform's limits is refused before anything of it is stored, and it holds up no other
  client: a well-behaved device is served while it is handled. The limits are ThingsBoard's (docs/reference/platform-facts.md):
  HTTP bodies of 52428800 bytes under /api/v1/ and 65536 for an RPC reply (413 beyond), MQTT packets of 65536
  bytes (the connection ends beyond), JSON nested 1000 levels (an error beyond).

  @ROB-SIZE-01
  Scenario Outline: An HTTP body over the payload limit of <path> is answered 413 and stores nothing
    Given a device "big" with an access token
    And a device "calm" with an access token
    When the device "big" starts posting a JSON body of <bytes> bytes to <path>
    Then the device "calm" is served meanwhile
    And the oversized request is answered 413
    And after a sentinel, only the sentinel is stored for "big"

    Examples:
      | path                       | bytes    |
      | /api/v1/{token}/telemetry  | 52428801 |
      | /api/v1/{token}/attributes | 52428801 |
      | /api/v1/{token}/claim      | 52428801 |
      | /api/v1/{token}/rpc/1      | 65537    |
      | /api/v1/{token}/rpc        | 65537    |

  @ROB-SIZE-01
  Scenario: An RPC reply of exactly 65536 bytes is within the limit and answered 200
    Given a device "big" with an access token
    When the device "big" starts posting a JSON body of 65536 bytes to /api/v1/{token}/rpc/1
    Then the posted request is answered 200

  @ROB-SIZE-02 @capability-mqtt5
  Scenario: An MQTT packet of exactly 65536 bytes is within the limit: acknowledged and stored
    Given a device "meter" that is not a gateway, connected over MQTT 5
    When "meter" publishes a packet of exactly 65536 bytes on "v1/devices/me/telemetry"
    Then the PUBACK reports success
    And the telemetry keys of "meter" are exactly "iotc_big"

  @ROB-SIZE-02 @capability-mqtt5
  Scenario Outline: An MQTT packet over 65536 bytes on the device topic <topic> ends the connection and stores nothing
    Given a device "meter" that is not a gateway, connected over MQTT 5
    And a device "calm" with an access token
    When "meter" publishes a message of 70000 bytes on "<topic>"
    Then the publish is refused with a failure reason code or a closed connection
    And the target closes the MQTT connection of "meter"
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "meter"

    Examples:
      | topic                    |
      | v1/devices/me/telemetry  |
      | v1/devices/me/attributes |

  @ROB-SIZE-02 @capability-mqtt5
  Scenario Outline: An MQTT packet over 65536 bytes on the gateway topic <topic> ends the connection and stores nothing
    Given a gateway "gw" connected over MQTT 5
    And a device "calm" with an access token
    When the gateway "gw" connects the device "sub"
    Then the PUBACK reports success
    When "gw" publishes a message of 70000 bytes on "<topic>" for "sub"
    Then the publish is refused with a failure reason code or a closed connection
    And the target closes the MQTT connection of "gw"
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "sub"

    Examples:
      | topic                 |
      | v1/gateway/telemetry  |
      | v1/gateway/attributes |

  @ROB-NEST-01
  Scenario Outline: JSON nested 1000 levels deep, the bound itself, posted to <path> is accepted and stored whole
    Given a device "deep" with an access token
    When the device "deep" posts to <path> a JSON document nested 1000 levels deep
    Then the response status is 200
    And the device "deep" eventually holds "iotc_deep" nested 1000 levels deep in its <stored>

    Examples:
      | path                       | stored            |
      | /api/v1/{token}/telemetry  | telemetry         |
      | /api/v1/{token}/attributes | client attributes |

  @deviation-ROB-NEST-01
  Scenario Outline: JSON nested 255 levels deep posted to <path> is accepted and stored whole, 256 levels are refused and store nothing
    Given a device "deep" with an access token
    When the device "deep" posts to <path> a JSON document nested 255 levels deep
    Then the response status is 200
    And the device "deep" eventually holds "iotc_deep" nested 255 levels deep in its <stored>
    Given a device "deeper" with an access token
    And a device "calm" with an access token
    When the device "deeper" posts to <path> a JSON document nested 256 levels deep
    Then the answer is an error status
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "deeper"

    Examples:
      | path                       | stored            |
      | /api/v1/{token}/telemetry  | telemetry         |
      | /api/v1/{token}/attributes | client attributes |

  @ROB-NEST-01
  Scenario Outline: JSON nested 1001 levels deep posted to <path> is refused and stores nothing
    Given a device "deep" with an access token
    And a device "calm" with an access token
    When the device "deep" posts to <path> a JSON document nested 1001 levels deep
    Then the answer is an error status
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "deep"

    Examples:
      | path                       |
      | /api/v1/{token}/telemetry  |
      | /api/v1/{token}/attributes |

  @ROB-NEST-01 @capability-mqtt5
  Scenario Outline: JSON nested 1001 levels deep on the device topic <topic> is refused and stores nothing
    Given a device "meter" that is not a gateway, connected over MQTT 5
    And a device "calm" with an access token
    When "meter" publishes a message nested 1001 levels deep on "<topic>"
    Then the publish is refused with a failure reason code or a closed connection
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "meter"

    Examples:
      | topic                    |
      | v1/devices/me/telemetry  |
      | v1/devices/me/attributes |

  @ROB-NEST-01 @capability-mqtt5
  Scenario Outline: JSON nested 1001 levels deep on the gateway topic <topic> is refused and stores nothing
    Given a gateway "gw" connected over MQTT 5
    And a device "calm" with an access token
    When the gateway "gw" connects the device "sub"
    Then the PUBACK reports success
    When "gw" publishes a message nested 1001 levels deep on "<topic>" for "sub"
    Then the publish is refused with a failure reason code or a closed connection
    And the device "calm" is served meanwhile
    And after a sentinel, only the sentinel is stored for "sub"

    Examples:
      | topic                 |
      | v1/gateway/telemetry  |
      | v1/gateway/attributes |

  @ROB-UTF8-01
  Scenario: Telemetry over HTTP whose string holds bytes that are not UTF-8 is refused or decoded with U+FFFD
    Given a device "garbled" with an access token
    And a device "calm" with an access token
    When the device "garbled" sends telemetry whose "iotc_text" holds bytes that are not UTF-8
    Then the telemetry "iotc_text" of "garbled" is refused, or stored with U+FFFD for each invalid byte
    And the device "calm" is served meanwhile

  @ROB-UTF8-01 @capability-mqtt5
  Scenario: Telemetry over MQTT whose string holds bytes that are not UTF-8 is refused or decoded with U+FFFD
    Given a device "garbled" that is not a gateway, connected over MQTT 5
    And a device "calm" with an access token
    When "garbled" publishes telemetry whose "iotc_text" holds bytes that are not UTF-8
    Then the telemetry "iotc_text" of "garbled" is refused, or stored with U+FFFD for each invalid byte
    And the device "calm" is served meanwhile
