@mqtt-gateway-api @capability-tenant-limits
Feature: The device limit of a gateway connect
  The gateway connect is subject to the tenant's device limit: exceeding it fails the connect and no device is
  created; with MQTT 5 the PUBACK carries a failure status code. (The scenarios lower the tenant's limit to the
  current device count and restore it afterwards, so they run only where the target profile allows it. Each creates
  a device up to the limit first: the positive control that the connect creates devices, whose measured delay is the
  window in which "no device exists" watches for one created late.)

  @GW-LIM-01
  Scenario: A connect up to the device limit creates the device, one beyond it creates none (MQTT 3.1.1)
    Given a gateway "gw" connected over MQTT 3.1.1
    And the tenant's device limit allows 1 more device
    When the gateway "gw" connects the device "last-one"
    Then the PUBACK reports success
    And the platform eventually holds a device "last-one" of the profile "default"
    When the gateway "gw" connects the device "one-too-many"
    Then no device "one-too-many" exists on the platform

  @GW-LIM-01 @GW-ERR-01 @GW-RULE-04 @capability-mqtt5
  Scenario: A connect beyond the device limit fails with a status code and creates no device (MQTT 5)
    Given a gateway "gw" connected over MQTT 5
    And the tenant's device limit allows 1 more device
    When the gateway "gw" connects the device "last-one"
    Then the PUBACK reports success
    And the platform eventually holds a device "last-one" of the profile "default"
    When the gateway "gw" connects the device "one-too-many"
    Then the PUBACK carries a failure reason code
    And no device "one-too-many" exists on the platform
    And the gateway "gw" is still connected

  @deviation-GW-ERR-01 @GW-LIM-01 @capability-mqtt5
  Scenario: ThingsBoard refuses a connect beyond the device limit with a status code or by closing the connection
    Given a gateway "gw" connected over MQTT 5
    And the tenant's device limit allows 1 more device
    When the gateway "gw" connects the device "last-one"
    Then the PUBACK reports success
    And the platform eventually holds a device "last-one" of the profile "default"
    When the gateway "gw" connects the device "one-too-many"
    Then the publish is refused with a failure reason code or a closed connection
    And no device "one-too-many" exists on the platform
