@mqtt-gateway-api
Feature: The gateway is also an ordinary device
  The gateway may publish its own telemetry and attributes, receive configuration (shared attribute) updates and
  execute RPC commands through the MQTT device API (v1/devices/me/...), on the same connection.

  @GW-GEN-02
  Scenario Outline: The gateway publishes its own telemetry and attributes (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" publishes its own telemetry {"ts": 1700000000042, "values": {"uptime": 3600}}
    Then the PUBACK reports success
    When the gateway "gw" publishes its own client attributes {"version": "v3.8"}
    Then the PUBACK reports success
    And the platform eventually holds telemetry of "gw":
      | key    | ts            | value | type |
      | uptime | 1700000000042 | 3600  | long |
    And the platform eventually holds client attributes of "gw":
      | key     | value | type   |
      | version | v3.8  | string |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-GEN-03
  Scenario: The gateway receives its own configuration updates
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" subscribes to its own shared attribute updates
    Then the platform's attribute updates are proven to reach the gateway "gw" on its own subscription
    When the platform sets the shared attributes of "gw" to {"pollInterval": 30}
    Then the gateway "gw" receives its own shared attribute update {"pollInterval": 30}

  @GW-GEN-04
  Scenario: The gateway executes RPC commands addressed to itself
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" answers its own RPCs with {"restarted": true}
    And the platform sends a two-way RPC "restart" with params {} to "gw"
    Then the platform's RPC call to "gw" answers 200 with {"restarted": true}
