@http-device-api @capability-provisioning
Feature: Device provisioning over the HTTP device API
  POST /api/v1/provision carries deviceName, provisionDeviceKey and provisionDeviceSecret and no token. With valid
  credentials the device is created when it does not exist and its credentials are returned.

  @HTTP-PROV-01 @HTTP-PROV-04
  Scenario: A profile that allows new devices creates the device and returns its credentials
    Given a device profile "fleet" with provisioning strategy ALLOW_CREATE_NEW_DEVICES, key "fleet-key" and secret "fleet-secret"
    When a device sends the provisioning request:
      """
      {"deviceName": "<unique:newbie>", "provisionDeviceKey": "<unique:fleet-key>", "provisionDeviceSecret": "fleet-secret"}
      """
    Then the response status is 200
    And the provisioning status is SUCCESS
    And the returned credentials are the access token of the device "newbie" on the platform
    When the device "newbie" posts telemetry {"booted": true}
    Then the response status is 200
    And the platform eventually holds telemetry of "newbie":
      | key    | value | type    |
      | booted | true  | boolean |

  @HTTP-PROV-02
  Scenario: A pre-provisioned device gets its own credentials
    Given a device profile "preset" with provisioning strategy CHECK_PRE_PROVISIONED_DEVICES, key "preset-key" and secret "preset-secret"
    And a device "known" of the profile "preset"
    When a device sends the provisioning request:
      """
      {"deviceName": "<unique:known>", "provisionDeviceKey": "<unique:preset-key>", "provisionDeviceSecret": "preset-secret"}
      """
    Then the response status is 200
    And the provisioning status is SUCCESS
    And the returned credentials are the access token of the device "known" on the platform

  @HTTP-PROV-03
  Scenario Outline: Invalid provisioning credentials provision nothing (<case>)
    Given a device profile "guarded" with provisioning strategy <strategy>, key "guarded-key" and secret "guarded-secret"
    When a device sends the provisioning request:
      """
      {"deviceName": "<unique:intruder>", "provisionDeviceKey": "<key>", "provisionDeviceSecret": "<secret>"}
      """
    Then the response status is 200
    And the provisioning status is NOT_FOUND
    And no device "intruder" exists on the platform

    Examples:
      | case                  | strategy                 | key                  | secret         |
      | wrong secret          | ALLOW_CREATE_NEW_DEVICES | <unique:guarded-key> | not-the-secret |
      | unknown key           | ALLOW_CREATE_NEW_DEVICES | <unique:no-such-key> | guarded-secret |
      | provisioning disabled | DISABLED                 | <unique:guarded-key> | guarded-secret |

  @HTTP-PROV-05
  Scenario Outline: A provisioning request without <field> is invalid
    When a device sends the provisioning request:
      """
      <body>
      """
    Then the response status is 400

    Examples:
      | field                 | body                                                                  |
      | deviceName            | {"provisionDeviceKey": "k", "provisionDeviceSecret": "s"}             |
      | provisionDeviceKey    | {"deviceName": "<unique:x>", "provisionDeviceSecret": "s"}            |
      | provisionDeviceSecret | {"deviceName": "<unique:x>", "provisionDeviceKey": "k"}               |
