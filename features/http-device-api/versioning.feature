@http-device-api
Feature: Versioning and authentication of the HTTP device API
  The API carries the version v1 in its path, and the device access token is a path segment of every request URL.

  Background:
    Given a device "versioned" with an access token

  @HTTP-VER-01 @HTTP-AUTH-01
  Scenario: The v1 path with the device's token segment is served
    When the device "versioned" posts telemetry {"v": 1}
    Then the response status is 200
    And the platform eventually holds telemetry of "versioned":
      | key | value | type |
      | v   | 1     | long |

  @HTTP-VER-01 @HTTP-ERR-05
  Scenario Outline: Another version segment (<version>) is not the HTTP device API
    When the device "versioned" sends POST /api/<version>/{token}/telemetry
    Then the response status is 404

    Examples:
      | version |
      | v2      |
      | v0      |
      | V1      |

  @HTTP-AUTH-01 @HTTP-ERR-04
  Scenario: The token is the device's own: a token of no device is refused with 401
    When a client sends POST /api/v1/no-such-token-xyz/telemetry
    Then the response status is 401

  @HTTP-AUTH-01
  Scenario: The token is matched exactly: the device's token with the case of its letters swapped is refused with 401
    When a client posts telemetry with the access token of "versioned" in another case
    Then the response status is 401
    When the device "versioned" posts telemetry {"exact": 1}
    Then the response status is 200

  @HTTP-AUTH-01
  Scenario: Without the token segment there is no device API: the path has no endpoint (404)
    # ThingsBoard 4.3.1.3 answers 404 {"message":"No static resource api/v1/telemetry.","errorCode":32}: no handler
    # maps /api/v1/telemetry; a 401 would take "telemetry" for a token, a 200 would serve a device without one
    When a client sends POST /api/v1/telemetry
    Then the response status is 404
