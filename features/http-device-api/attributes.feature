@http-device-api
Feature: Attributes over the HTTP device API
  A device uploads client-side attributes with POST /attributes and reads client-side and shared attributes with
  GET /attributes?clientKeys=...&sharedKeys=... The same key may exist in several scopes, each kept apart.

  Background:
    Given a device "meter" with an access token

  @HTTP-ATTR-01 @HTTP-ATTR-02
  Scenario: A later upload updates an existing client-side attribute
    When the device "meter" posts client attributes {"firmware": "v1.0", "interval": 10}
    And the device "meter" posts client attributes {"firmware": "v1.1"}
    Then the response status is 200
    And the platform eventually holds client attributes of "meter":
      | key      | value | type   |
      | firmware | v1.1  | string |
      | interval | 10    | long   |

  @HTTP-ATTR-03
  Scenario: clientKeys answers the requested client-side attributes in the client member
    Given the device "meter" posts client attributes {"a": 1, "b": "two", "c": 3.5}
    And the platform eventually holds client attributes of "meter":
      | key | value | type   |
      | c   | 3.5   | double |
    When the device "meter" requests its attributes with clientKeys "a,c"
    Then the response status is 200
    And the response body is the JSON {"client": {"a": 1, "c": 3.5}}

  @HTTP-ATTR-04
  Scenario: sharedKeys answers the requested shared attributes in the shared member
    Given the platform sets the shared attributes of "meter" to {"targetTemperature": 22.5, "mode": "eco", "other": 1}
    And the platform eventually holds the shared attribute "other" of "meter"
    When the device "meter" requests its attributes with sharedKeys "targetTemperature,mode"
    Then the response status is 200
    And the response body is the JSON {"shared": {"targetTemperature": 22.5, "mode": "eco"}}

  @HTTP-ATTR-03 @HTTP-ATTR-04
  Scenario: Both parameters answer both members
    Given the device "meter" posts client attributes {"reported": true}
    And the platform sets the shared attributes of "meter" to {"desired": false}
    And the platform eventually holds client attributes of "meter":
      | key      | value | type    |
      | reported | true  | boolean |
    When the device "meter" requests its attributes with clientKeys "reported" and sharedKeys "desired"
    Then the response status is 200
    And the response body is the JSON {"client": {"reported": true}, "shared": {"desired": false}}

  @HTTP-ATTR-05
  Scenario: The same key in the client-side, shared and server-side scopes keeps three values
    Given the device "meter" posts client attributes {"limit": "client"}
    And the platform sets the shared attributes of "meter" to {"limit": "shared"}
    And the platform sets the server attributes of "meter" to {"limit": "server"}
    And the platform eventually holds client attributes of "meter":
      | key   | value  | type   |
      | limit | client | string |
    When the device "meter" requests its attributes with clientKeys "limit" and sharedKeys "limit"
    Then the response status is 200
    And the response body is the JSON {"client": {"limit": "client"}, "shared": {"limit": "shared"}}
    # every scope written is read back where it shows: the server-side one only through the administration API
    And the platform eventually holds server attributes of "meter":
      | key   | value  | type   |
      | limit | server | string |
    And the platform eventually holds shared attributes of "meter":
      | key   | value  | type   |
      | limit | shared | string |
