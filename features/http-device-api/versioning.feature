@http-device-api
Feature: Versioning and authentication of the HTTP device API
  The API carries the version v1 in its path, and the device access token is a path segment of every request URL.

  Background:
    Given a device "versioned" with an access token

  @HTTP-VER-01 @HTTP-AUTH-01
  Scenario: The v1 path with the token segment is served; another version is not
    When the device "versioned" posts telemetry {"v": 1}
    Then the response status is 200
    When a client sends POST /api/v2/no-such-token/telemetry
    Then the response status is 404

  @HTTP-AUTH-01
  Scenario: Without the token segment there is no device API
    When a client sends POST /api/v1/telemetry
    Then the response status is not a server error
    And the response status is not 200
