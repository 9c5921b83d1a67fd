@mqtt-gateway-api @capability-claiming
Feature: Claiming devices through the gateway
  v1/gateway/claim carries {device name: {"secretKey" (default ""), "durationMs" (default device.claim.duration)}};
  during durationMs a customer can claim the device with that secret key. The device should be connected first.
  The platform may register a claim after the PUBACK, so the customer claims until the registration is there; a
  claim that must fail is tried only after a control device's claim, made the same way, was claimed successfully and
  its measured registration delay has passed.

  @GW-CLAIM-01
  Scenario Outline: A customer claims a device the gateway registered for claiming (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "tracker"
    And the gateway "gw" connects the device "control"
    And the gateway "gw" publishes a claim for "tracker": {"secretKey": "gw-s3cret", "durationMs": 60000}
    Then the PUBACK reports success
    When the gateway "gw" publishes a claim for "control": {"secretKey": "gw-s3cret", "durationMs": 60000}
    Then the PUBACK reports success
    And the platform eventually holds a device "tracker" of the profile "default"
    And the platform eventually holds a device "control" of the profile "default"
    And the customer can claim "control" with the secret key "gw-s3cret"
    And the customer cannot claim "tracker" with the secret key "wrong-key"
    And the customer can claim "tracker" with the secret key "gw-s3cret"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-CLAIM-02 @GW-CLAIM-03
  Scenario: Without secretKey and durationMs the key is empty and the window is device.claim.duration
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "tag"
    And the gateway "gw" publishes a claim for "tag": {}
    Then the PUBACK reports success
    And the platform eventually holds a device "tag" of the profile "default"
    And the customer can claim "tag" with the secret key ""

  @GW-CLAIM-03
  Scenario: The registration ends after durationMs
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "badge"
    And the gateway "gw" connects the device "control"
    And the platform eventually holds a device "badge" of the profile "default"
    And the platform eventually holds a device "control" of the profile "default"
    And the gateway "gw" publishes a claim for "badge": {"secretKey": "brief", "durationMs": 400}
    Then the PUBACK reports success
    When the gateway "gw" publishes a claim for "control": {"secretKey": "brief", "durationMs": 400}
    Then the PUBACK reports success
    And the customer can claim "control" with the secret key "brief" within its 400 ms claim window
    And once its 400 ms claim window has ended, the customer cannot claim "badge" with the secret key "brief"

  @GW-CLAIM-03
  Scenario: Without durationMs the registration ends after device.claim.duration
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" connects the device "fob"
    And the gateway "gw" connects the device "control"
    And the gateway "gw" publishes a claim for "fob": {"secretKey": "default-window"}
    Then the PUBACK reports success
    When the gateway "gw" publishes a claim for "control": {"secretKey": "default-window"}
    Then the PUBACK reports success
    And the platform eventually holds a device "fob" of the profile "default"
    And the platform eventually holds a device "control" of the profile "default"
    And the customer can claim "control" with the secret key "default-window"
    And once the platform's device.claim.duration has ended, the customer cannot claim "fob" with the secret key "default-window"
