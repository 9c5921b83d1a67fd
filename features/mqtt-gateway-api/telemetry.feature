@mqtt-gateway-api
Feature: Telemetry through the gateway
  v1/gateway/telemetry carries {device name: [{"ts": unix ms (optional), "values": {key: value}}]}. Each entry is
  stored for its device with its timestamp; an entry without ts is stored at the time the platform received it.
  Telemetry for an unknown device creates it with the profile default; unknown keys are created.

  @GW-TEL-01 @GW-RULE-02-TS @GW-RULE-02-KEYS
  Scenario Outline: Timestamped entries are stored with their timestamps, value by value and type by type (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "thermo"
    And the gateway "gw" publishes telemetry for "thermo": [{"ts": 1700000000123, "values": {"temperature": 21.5, "count": 42, "ok": true, "label": "a", "cfg": {"k": [1, 2]}}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "thermo" of the profile "default"
    And the platform eventually holds telemetry of "thermo":
      | key         | ts            | value        | type    |
      | temperature | 1700000000123 | 21.5         | double  |
      | count       | 1700000000123 | 42           | long    |
      | ok          | 1700000000123 | true         | boolean |
      | label       | 1700000000123 | a            | string  |
      | cfg         | 1700000000123 | {"k":[1,2]}  | json    |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-TEL-01-EMPTY
  Scenario: A device with an empty entry array is acknowledged and gets nothing stored
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" connects the device "idle"
    Then the PUBACK reports success
    And the platform eventually holds a device "idle" of the profile "default"
    When the gateway "gw" publishes telemetry for "idle": []
    Then the PUBACK reports success
    When the gateway "gw" publishes telemetry for "idle": [{"ts": 1700000000000, "values": {"iotc_sentinel": 1}}]
    Then the PUBACK reports success
    And the telemetry keys of "idle" are exactly "iotc_sentinel"

  @GW-RULE-02-TS
  Scenario: An entry with a timestamp from the year 10000 on is stored with its timestamp too
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" publishes telemetry for "almanac": [{"ts": 253402300799000, "values": {"last-of-9999": 1}}, {"ts": 253402300800000, "values": {"first-of-10000": 2}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "almanac" of the profile "default"
    And the platform eventually holds telemetry of "almanac":
      | key            | ts              | value | type |
      | last-of-9999   | 253402300799000 | 1     | long |
      | first-of-10000 | 253402300800000 | 2     | long |

  @GW-TEL-02
  Scenario: One publish carries several devices and several entries per device
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/telemetry":
      """
      {"{{north}}": [{"ts": 1700000001000, "values": {"t": 1.5}}, {"ts": 1700000002000, "values": {"t": 2.5}}],
       "{{south}}": [{"ts": 1700000003000, "values": {"t": 3.5}}]}
      """
    Then the PUBACK reports success
    And the platform eventually holds a device "north" of the profile "default"
    And the platform eventually holds a device "south" of the profile "default"
    And the telemetry history of "north" holds "t" at 1700000001000 and 1700000002000
    And the platform eventually holds telemetry of "south":
      | key | ts            | value | type   |
      | t   | 1700000003000 | 3.5   | double |

  @GW-TEL-03
  Scenario Outline: An entry without ts is stored at server time (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" publishes telemetry for "clock": [{"values": {"tick": 7}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "clock" of the profile "default"
    And the platform eventually holds telemetry of "clock":
      | key  | ts     | value | type |
      | tick | server | 7     | long |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-RULE-02 @GW-RULE-02-KEYS
  Scenario Outline: Telemetry for an unknown device creates it with the profile default (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" publishes telemetry for "newcomer": [{"ts": 1700000000500, "values": {"brand_new_key": "x"}}]
    Then the PUBACK reports success
    And the platform eventually holds a device "newcomer" of the profile "default"
    And the platform eventually holds telemetry of "newcomer":
      | key           | ts            | value | type   |
      | brand_new_key | 1700000000500 | x     | string |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |
