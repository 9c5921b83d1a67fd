@mqtt-gateway-api
Feature: Disconnecting devices from the gateway
  {"device": name} on v1/gateway/disconnect makes a connected device not active: the platform stops sending its
  attribute updates and RPC commands to the gateway. A disconnect for an unknown name is ignored.
  The PUBACK of a disconnect may come before the platform stops sending, and updates of different devices may arrive
  in any order: the suite proves the device receives updates first, then that eventually its updates stop while
  another device's still come (updates of the reserved shared attribute iotcProbe, repeated, bounded).

  @GW-DISC-01 @GW-STATE-05 @GW-STATE-06
  Scenario Outline: After a disconnect no attribute update reaches the gateway (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "lamp"
    And the gateway "gw" connects the device "bulb"
    Then the platform eventually holds a device "lamp" of the profile "default"
    And the platform eventually holds a device "bulb" of the profile "default"
    And the platform's attribute updates for "lamp" are proven to reach the gateway "gw"
    And the platform's attribute updates for "bulb" are proven to reach the gateway "gw"
    When the gateway "gw" disconnects the device "lamp"
    Then the PUBACK reports success
    And eventually the attribute updates for "bulb" still reach the gateway "gw" and those for "lamp" no longer do

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-STATE-06
  Scenario: After a disconnect no RPC reaches the gateway
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "lamp"
    And the gateway "gw" connects the device "bulb"
    Then the platform eventually holds a device "lamp" of the profile "default"
    And the platform eventually holds a device "bulb" of the profile "default"
    And the platform's attribute updates for "lamp" are proven to reach the gateway "gw"
    And the platform's attribute updates for "bulb" are proven to reach the gateway "gw"
    When the platform sends a one-way RPC "wake" with params {} to "lamp"
    Then the gateway "gw" receives the RPC "wake" with params {} for "lamp"
    When the gateway "gw" disconnects the device "lamp"
    Then the PUBACK reports success
    And eventually the attribute updates for "bulb" still reach the gateway "gw" and those for "lamp" no longer do
    When the platform sends a two-way RPC "blink" with a timeout of 1000 ms and params {} to "lamp"
    Then the platform's RPC call to "lamp" ends without an answer
    And the gateway "gw" received no RPC "blink" for "lamp"
    When the platform sends a one-way RPC "glow" with params {} to "bulb"
    Then the gateway "gw" receives the RPC "glow" with params {} for "bulb"

  @GW-DISC-01 @GW-STATE-07
  Scenario Outline: A disconnect for an unknown device is ignored (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" disconnects the device "ghost"
    Then the PUBACK reports success
    And no device "ghost" exists on the platform

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |
