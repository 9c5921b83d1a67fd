@mqtt-device-api
Feature: RPC on the MQTT device API
  A device subscribed to v1/devices/me/rpc/request/+ receives server-side RPCs as {method, params} with the id in the
  topic and replies on v1/devices/me/rpc/response/{id} with any payload. It calls the platform with
  {method, params} on v1/devices/me/rpc/request/{id} and gets the answer on v1/devices/me/rpc/response/{id};
  getSessionLimits, which every SDK device and gateway sends on connect, is answered by the transport itself.

  @MQTT-DEV-RPC-01
  Scenario Outline: Each two-way RPC is delivered once as {method, params} and the device's JSON reply reaches the requester (MQTT <version>)
    Given an MQTT device "valve" connected over MQTT <version>
    When the MQTT device "valve" answers its own RPCs with {"echo": {"a": 1}}
    And the platform sends a two-way RPC "getState" with params {"a": 1} to "valve"
    Then the platform's RPC call to "valve" answers 200 with {"echo": {"a": 1}}
    When the platform sends a two-way RPC "getVersion" with params {} to "valve"
    Then the platform's RPC call to "valve" answers 200 with {"echo": {"a": 1}}
    And the MQTT device "valve" has received exactly the RPC requests:
      | getState   | {"a": 1} |
      | getVersion | {}       |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @MQTT-DEV-RPC-02
  Scenario: An empty reply gives the requester 200 with no body
    Given an MQTT device "valve" connected over MQTT 3.1.1
    When the MQTT device "valve" replies to its own RPCs with the raw payload ""
    And the platform sends a two-way RPC "reboot" with params {} to "valve"
    Then the platform's RPC call to "valve" answers 200 and no body

  @MQTT-DEV-RPC-02 @capability-mqtt5
  Scenario: A reply that is not JSON gives the requester 406, and the session stays usable
    Given an MQTT device "valve" connected over MQTT 5
    When the MQTT device "valve" replies to its own RPCs with the raw payload "ok"
    And the platform sends a two-way RPC "reboot" with params {} to "valve"
    Then the platform's RPC call to "valve" answers 406
    When the MQTT device "valve" publishes its own telemetry [{"after": 1}]
    Then the PUBACK reports success

  @MQTT-DEV-RPC-03 @capability-client-rpc
  Scenario: A client-side RPC is answered on the response topic of its id
    Given an MQTT device "valve" connected over MQTT 5
    When the MQTT device "valve" sends the client-side RPC "getCurrentTime" with params {}
    Then the MQTT device "valve" receives a JSON answer to its client-side RPC

  @MQTT-DEV-RPC-04
  Scenario: getSessionLimits is answered by the transport with the session limits
    Given an MQTT device "valve" connected over MQTT 5
    When the MQTT device "valve" asks for its session limits
    Then "valve" receives its session limits

  @MQTT-DEV-RPC-04
  Scenario: A gateway's session limits also carry the gateway rate limits
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" asks for its session limits
    Then "gw" receives its session limits with the gateway rate limits
