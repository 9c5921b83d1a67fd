@mqtt-gateway-api
Feature: Connecting devices through the gateway
  A gateway keeps one MQTT connection with its own access token as the user name and publishes
  {"device": name, "type": profile} to v1/gateway/connect. An unknown device is created; a named profile that is
  absent is created; without a type the profile "default" is used.

  @GW-AUTH-01 @GW-VER-01
  Scenario Outline: The gateway connects with its access token as the MQTT user name (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "meter"
    Then the PUBACK reports success
    And the platform eventually holds a device "meter" of the profile "default"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-AUTH-01
  Scenario Outline: An unknown access token is refused (MQTT <version>)
    When a gateway connects over MQTT <version> with the access token "iotc-no-such-token"
    Then the MQTT connection is refused

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-CONN-01 @GW-CONN-02 @GW-STATE-01 @GW-STATE-02 @GW-STATE-03
  Scenario Outline: A connect with a type creates the device with that profile, creating the profile (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "boiler" with the type "heating"
    Then the PUBACK reports success
    And the platform eventually holds a device "boiler" of the profile "heating"
    And the platform holds a device profile "heating"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-CONN-01 @GW-CONN-03 @GW-STATE-02
  Scenario Outline: A connect without a type uses the profile default (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "meter"
    Then the PUBACK reports success
    And the platform eventually holds a device "meter" of the profile "default"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-STATE-01
  Scenario: Connecting a device that exists keeps its profile
    Given a gateway "gw" connected over MQTT 5
    And a device "pump" with an access token
    When the gateway "gw" connects the device "pump" with the type "other"
    Then the PUBACK reports success
    And the device "pump" still has the profile "default"
    And the platform's attribute updates for "pump" are proven to reach the gateway "gw"
    When the platform sets the shared attributes of "pump" to {"speed": 3}
    Then the gateway "gw" receives an attribute update for "pump" with {"speed": 3}

  @GW-GEN-01
  Scenario: One gateway connection carries the data of many devices
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" connects the device "a"
    And the gateway "gw" connects the device "b"
    And the gateway "gw" connects the device "c"
    And the gateway "gw" publishes on "v1/gateway/telemetry":
      """
      {"{{a}}": [{"ts": 1700000000001, "values": {"n": 1}}],
       "{{b}}": [{"ts": 1700000000002, "values": {"n": 2}}],
       "{{c}}": [{"ts": 1700000000003, "values": {"n": 3}}]}
      """
    Then the PUBACK reports success
    And the platform eventually holds a device "a" of the profile "default"
    And the platform eventually holds a device "b" of the profile "default"
    And the platform eventually holds a device "c" of the profile "default"
    And the platform eventually holds telemetry of "a":
      | key | ts            | value | type |
      | n   | 1700000000001 | 1     | long |
    And the platform eventually holds telemetry of "b":
      | key | ts            | value | type |
      | n   | 1700000000002 | 2     | long |
    And the platform eventually holds telemetry of "c":
      | key | ts            | value | type |
      | n   | 1700000000003 | 3     | long |

  @GW-AUTH-01
  Scenario Outline: The gateway connects over TLS (mqtts) (MQTT <version>)
    Given the target serves MQTT over TLS too
    And a gateway "gw" connected over mqtts with MQTT <version>
    When the gateway "gw" publishes telemetry for "secure": [{"ts": 1700000000777, "values": {"sealed": true}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "secure" of the profile "default"
    And the platform eventually holds telemetry of "secure":
      | key    | ts            | value | type    |
      | sealed | 1700000000777 | true  | boolean |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |
