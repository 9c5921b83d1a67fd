@mqtt-device-api
Feature: Claim, provisioning and firmware over MQTT
  A device claims itself on v1/devices/me/claim. A client connected with the user name provision publishes a
  provisioning request on /provision/request and gets the status document on /provision/response, as ThingsBoard's
  SDK does it (MQTT 3.1.1, QoS 0). A device downloads its assigned firmware chunk by chunk on
  v2/fw/request/{id}/chunk/{n} → v2/fw/response/{id}/chunk/{n}.

  @MQTT-DEV-CLAIM-01 @capability-claiming
  Scenario: A device claimed over MQTT can be claimed by the customer with the secret key
    Given an MQTT device "tracker" connected over MQTT 5
    When the MQTT device "tracker" publishes the claim {"secretKey": "s3cret", "durationMs": 60000}
    Then the PUBACK reports success
    And the customer can claim "tracker" with the secret key "s3cret"

  @MQTT-DEV-CLAIM-01 @capability-claiming
  Scenario: A claim published over MQTT ends after its durationMs
    Given an MQTT device "tracker" connected over MQTT 3.1.1
    And an MQTT device "control" connected over MQTT 3.1.1
    When the MQTT device "tracker" publishes the claim {"secretKey": "brief", "durationMs": 400}
    Then the PUBACK reports success
    When the MQTT device "control" publishes the claim {"secretKey": "brief", "durationMs": 400}
    Then the PUBACK reports success
    And the customer can claim "control" with the secret key "brief" within its 400 ms claim window
    And once its 400 ms claim window has ended, the customer cannot claim "tracker" with the secret key "brief"

  @MQTT-DEV-PROV-01 @capability-provisioning
  Scenario: Provisioning over MQTT creates the device and answers its credentials
    Given a device profile "mqtt-fleet" with provisioning strategy ALLOW_CREATE_NEW_DEVICES, key "mqtt-key" and secret "mqtt-secret"
    When a device sends the provisioning request over MQTT:
      """
      {"deviceName": "<unique:sensor-m1>", "provisionDeviceKey": "<unique:mqtt-key>", "provisionDeviceSecret": "mqtt-secret"}
      """
    Then the provisioning status is SUCCESS
    And the returned credentials are the access token of the device "sensor-m1" on the platform

  @MQTT-DEV-PROV-01 @capability-provisioning
  Scenario: Provisioning over MQTT answers NOT_FOUND for a wrong secret and FAILURE for an existing device
    Given a device profile "mqtt-fleet" with provisioning strategy ALLOW_CREATE_NEW_DEVICES, key "mqtt-key" and secret "mqtt-secret"
    When a device sends the provisioning request over MQTT:
      """
      {"deviceName": "<unique:sensor-m2>", "provisionDeviceKey": "<unique:mqtt-key>", "provisionDeviceSecret": "wrong"}
      """
    Then the provisioning status is NOT_FOUND
    And no device "sensor-m2" exists on the platform
    When a device sends the provisioning request over MQTT:
      """
      {"deviceName": "<unique:sensor-m2>", "provisionDeviceKey": "<unique:mqtt-key>", "provisionDeviceSecret": "mqtt-secret"}
      """
    Then the provisioning status is SUCCESS
    When a device sends the provisioning request over MQTT:
      """
      {"deviceName": "<unique:sensor-m2>", "provisionDeviceKey": "<unique:mqtt-key>", "provisionDeviceSecret": "mqtt-secret"}
      """
    Then the provisioning status is FAILURE

  @MQTT-DEV-FW-01 @capability-firmware
  Scenario: A device downloads its assigned firmware over MQTT in chunks
    Given an MQTT device "tracker" connected over MQTT 5
    And a firmware package "tracker-fw" version "2.0" of 3000 bytes for the profile of "tracker"
    When the platform assigns the firmware "tracker-fw" version "2.0" to "tracker"
    Then the MQTT device "tracker" downloads the firmware "tracker-fw" version "2.0" over MQTT in chunks of 1024 bytes and gets the whole package
