@mqtt-gateway-api
Feature: Server-side RPC through the gateway
  An RPC to a device connected through the gateway arrives on v1/gateway/rpc as
  {"device", "data": {"id", "method", "params"}}; the gateway answers on v1/gateway/rpc with
  {"device", "id", "data"} and the platform relays the reply to the requester. A device must be connected through
  the gateway to receive RPC commands.

  @GW-RPC-01 @GW-RPC-02 @GW-EVT-03 @GW-STATE-04
  Scenario Outline: A two-way RPC reaches the gateway and its reply returns to the caller (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "lamp"
    Then the PUBACK reports success
    And the platform eventually holds a device "lamp" of the profile "default"
    When the platform sends a two-way RPC "setBrightness" with params {"level": 70} to "lamp"
    Then the gateway "gw" receives the RPC "setBrightness" with params {"level": 70} for "lamp"
    When the gateway "gw" replies to that RPC for "lamp" with {"applied": 70, "ok": true}
    Then the PUBACK reports success
    And the platform's RPC call to "lamp" answers 200 with {"applied": 70, "ok": true}
    And the gateway "gw" received the RPC "setBrightness" for "lamp" exactly once

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-RPC-01 @GW-EVT-03
  Scenario: A one-way RPC reaches the gateway
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "siren"
    Then the platform eventually holds a device "siren" of the profile "default"
    When the platform sends a one-way RPC "beep" with params {"times": 2} to "siren"
    Then the gateway "gw" receives the RPC "beep" with params {"times": 2} for "siren"
    And the platform's RPC call to "siren" answers 200

  @GW-RPC-02
  Scenario: A reply answers the RPC whose id it carries
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "lamp"
    Then the platform eventually holds a device "lamp" of the profile "default"
    When the platform sends a two-way RPC "first" with params {} to "lamp"
    Then the gateway "gw" receives the RPC "first" with params {} for "lamp"
    When the platform sends a two-way RPC "second" with params {} to "lamp"
    Then the gateway "gw" receives the RPC "second" with params {} for "lamp"
    When the gateway "gw" replies to the RPC "second" for "lamp" with {"answers": "second"}
    And the gateway "gw" replies to the RPC "first" for "lamp" with {"answers": "first"}
    Then the platform's RPC call "second" to "lamp" answers 200 with {"answers": "second"}
    And the platform's RPC call "first" to "lamp" answers 200 with {"answers": "first"}

  @GW-RULE-03
  Scenario: A device that is not connected through the gateway receives no RPC through it
    Given a gateway "gw" connected over MQTT 5
    And a device "loner" with an access token
    When the gateway "gw" connects the device "bulb"
    Then the platform eventually holds a device "bulb" of the profile "default"
    When the platform sends a two-way RPC "ping" with a timeout of 1000 ms and params {} to "loner"
    Then the platform's RPC call to "loner" ends without an answer
    When the platform sends a one-way RPC "glow" with params {} to "bulb"
    Then the gateway "gw" receives the RPC "glow" with params {} for "bulb"
    And before that, the gateway "gw" received no RPC for "loner"

  @GW-RULE-03
  Scenario: A device connected through another gateway receives no RPC through this one
    Given a gateway "gw" connected over MQTT 5
    And a gateway "other" connected over MQTT 5
    When the gateway "other" connects the device "lamp"
    Then the PUBACK reports success
    When the gateway "gw" connects the device "bulb"
    Then the PUBACK reports success
    And the platform eventually holds a device "lamp" of the profile "default"
    And the platform eventually holds a device "bulb" of the profile "default"
    When the platform sends a one-way RPC "blink" with params {} to "lamp"
    Then the gateway "other" receives the RPC "blink" with params {} for "lamp"
    When the platform sends a one-way RPC "glow" with params {} to "bulb"
    Then the gateway "gw" receives the RPC "glow" with params {} for "bulb"
    And before that, the gateway "gw" received no RPC for "lamp"
