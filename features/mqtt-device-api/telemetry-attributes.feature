@mqtt-device-api
Feature: Telemetry and attributes on the MQTT device API
  A device connects with its access token as the MQTT user name and publishes on v1/devices/me/...: telemetry in the
  three forms of the HTTP device API, client-side attributes, attribute requests answered by id, and shared-attribute
  updates once subscribed. The payloads are those ThingsBoard's Python SDK sends (its send_telemetry wraps an object
  in an array; its firmware progress is a flat object of strings).

  @MQTT-DEV-TEL-01
  Scenario Outline: Telemetry in the array, timestamped and object forms is stored (MQTT <version>)
    Given an MQTT device "meter" connected over MQTT <version>
    When the MQTT device "meter" publishes its own telemetry [{"temperature": 21.5}, {"pressure": 1013}]
    Then the PUBACK reports success
    And the platform eventually holds telemetry of "meter":
      | key         | ts     | value | type   |
      | temperature | server | 21.5  | double |
      | pressure    | server | 1013  | long   |
    When the MQTT device "meter" publishes its own telemetry {"ts": 1700000000123, "values": {"humidity": 40}}
    Then the PUBACK reports success
    And the platform eventually holds telemetry of "meter":
      | key      | ts            | value | type |
      | humidity | 1700000000123 | 40    | long |
    When the MQTT device "meter" publishes its own telemetry {"current_fw_title": "Initial", "current_fw_version": "v0", "fw_state": "IDLE", "fw_error": ""}
    Then the PUBACK reports success
    And the platform eventually holds telemetry of "meter":
      | key                | ts     | value   | type   |
      | current_fw_title   | server | Initial | string |
      | current_fw_version | server | v0      | string |
      | fw_state           | server | IDLE    | string |
      | fw_error           | server |         | string |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @MQTT-DEV-TEL-01-EMPTY
  Scenario: Telemetry as an empty array is acknowledged and stores nothing
    Given an MQTT device "meter" connected over MQTT 3.1.1
    When the MQTT device "meter" publishes its own telemetry []
    Then the PUBACK reports success
    When the MQTT device "meter" publishes its own telemetry {"iotc_sentinel": 1}
    Then the PUBACK reports success
    And the telemetry keys of "meter" are exactly "iotc_sentinel"

  @deviation-MQTT-DEV-TEL-01-EMPTY
  Scenario: ThingsBoard never acknowledges telemetry as an empty array; the connection stays and serves on
    Given an MQTT device "meter" connected over MQTT 3.1.1
    When the MQTT device "meter" publishes its own telemetry {"iotc_before": 1}
    Then the PUBACK reports success
    When the MQTT device "meter" publishes its own telemetry []
    Then the publish gets no PUBACK and the connection stays open
    When the MQTT device "meter" publishes its own telemetry {"iotc_sentinel": 1}
    Then the PUBACK reports success
    And the telemetry keys of "meter" are exactly "iotc_before, iotc_sentinel"

  @MQTT-DEV-ATTR-01
  Scenario Outline: Client-side attributes are stored (MQTT <version>)
    Given an MQTT device "meter" connected over MQTT <version>
    When the MQTT device "meter" publishes its own client attributes {"firmware": "v1.0", "model": "X", "slots": 4}
    Then the PUBACK reports success
    And the platform eventually holds client attributes of "meter":
      | key      | value | type   |
      | firmware | v1.0  | string |
      | model    | X     | string |
      | slots    | 4     | long   |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @MQTT-DEV-ATTR-02
  Scenario: An attribute request by id is answered with the requested client and shared attributes
    Given an MQTT device "meter" connected over MQTT 3.1.1
    And the platform sets the shared attributes of "meter" to {"interval": 5, "mode": "eco"}
    When the MQTT device "meter" publishes its own client attributes {"model": "X", "serial": "SN-1"}
    Then the PUBACK reports success
    And the platform eventually holds client attributes of "meter":
      | key    | value | type   |
      | model  | X     | string |
      | serial | SN-1  | string |
    When the MQTT device "meter" requests its attributes with clientKeys "model" and sharedKeys "interval"
    Then the MQTT device "meter" receives the attributes {"client": {"model": "X"}, "shared": {"interval": 5}}
    When the MQTT device "meter" requests its attributes with sharedKeys "mode,interval" only
    Then the MQTT device "meter" receives the attributes {"shared": {"interval": 5, "mode": "eco"}}
    When the MQTT device "meter" requests all its attributes
    Then the MQTT device "meter" receives the attributes {"client": {"model": "X", "serial": "SN-1"}, "shared": {"interval": 5, "mode": "eco"}}

  @MQTT-DEV-ATTR-03
  Scenario: A subscribed device receives each change of its shared attributes, once and only what changed
    Given an MQTT device "meter" connected over MQTT 5
    When the MQTT device "meter" subscribes to its own shared attribute updates
    Then the platform's attribute updates are proven to reach the MQTT device "meter" on its own subscription
    When the platform sets the shared attributes of "meter" to {"interval": 10, "mode": "eco"}
    Then the MQTT device "meter" receives its own shared attribute update {"interval": 10, "mode": "eco"}
    When the platform sets the shared attributes of "meter" to {"interval": 20}
    Then the MQTT device "meter" has received exactly the shared attribute updates:
      | {"interval": 10, "mode": "eco"} |
      | {"interval": 20}                |
