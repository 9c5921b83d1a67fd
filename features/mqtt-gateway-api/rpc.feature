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
    Then the platform's RPC call to "lamp" answers 200 with {"applied": 70, "ok": true}

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

  @GW-RULE-03
  Scenario: A device that is not connected through the gateway receives no RPC through it
    Given a gateway "gw" connected over MQTT 5
    And a device "loner" with an access token
    When the platform sends a two-way RPC "ping" with a timeout of 1000 ms and params {} to "loner"
    Then the gateway "gw" receives no RPC for "loner" within 300 ms
