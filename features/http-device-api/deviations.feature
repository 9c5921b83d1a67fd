@http-device-api
Feature: Declared deviations of real platform versions
  A target profile may declare that the platform knowingly differs from the specification for a requirement
  (deviations in its profile). Then the specification's scenarios of that requirement do not run; these do, and
  check that the platform does what the profile declares instead. Against a target that declares no deviation they
  are skipped. A declared deviation whose scenario fails is reported FAIL, never waved through.

  Background:
    Given a device "legacy" with an access token

  @deviation-HTTP-ERR-01
  Scenario: Malformed telemetry is answered 500 with the parser's message, and nothing is stored
    When the device "legacy" posts telemetry {"temperature": 21.5
    Then the response status is 500
    And no telemetry was stored for "legacy"

  @deviation-HTTP-ERR-01
  Scenario: A null value is dropped silently and the other keys are stored
    When the device "legacy" posts telemetry {"kept": 1, "dropped": null}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key  | value | type |
      | kept | 1     | long |
    And the telemetry keys of "legacy" are exactly "kept"

  @deviation-KV-02
  Scenario: A string that parses as a number is stored as a number
    When the device "legacy" posts telemetry {"count": "42", "ratio": "1.5", "notation": "1e3", "word": "abc"}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key      | value | type   |
      | count    | 42    | long   |
      | ratio    | 1.5   | double |
      | notation | 1e3   | string |
      | word     | abc   | string |

  @deviation-KV-04
  Scenario: A double with more than 16 decimals is stored as a string of its plain decimal text; others stay doubles
    When the device "legacy" posts telemetry {"short": 0.1234567890123456, "long": 0.12345678901234567, "tiny": 1.5e-20, "small": 1.5e-5}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key   | value                   | type   |
      | short | 0.1234567890123456      | double |
      | long  | 0.12345678901234567     | string |
      | tiny  | 0.000000000000000000015 | string |
      | small | 0.000015                | double |

  @deviation-KV-06
  Scenario: The null members of objects inside a JSON value are dropped; nulls inside arrays stay
    When the device "legacy" posts telemetry {"doc": {"a": null, "b": 1, "c": {"d": null, "e": [null, 2]}}, "list": [null, {"f": null}]}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key  | value                           | type |
      | doc  | {"b": 1, "c": {"e": [null, 2]}} | json |
      | list | [null, {}]                      | json |

  @deviation-HTTP-TEL-03
  Scenario: Timestamped telemetry from the year 10000 on is answered 200 but not stored; earlier timestamps are
    When the device "legacy" posts telemetry {"ts": 253402300799000, "values": {"last-of-9999": 1}}
    Then the response status is 200
    When the device "legacy" posts telemetry {"ts": 253402300800000, "values": {"first-of-10000": 2}}
    Then the response status is 200
    When the device "legacy" posts telemetry {"iotc-after": 3}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key          | ts              | value | type |
      | last-of-9999 | 253402300799000 | 1     | long |
      | iotc-after   | server          | 3     | long |
    And the telemetry keys of "legacy" are exactly "last-of-9999, iotc-after"

  @deviation-HTTP-PROV-05 @capability-provisioning
  Scenario: Without deviceName provisioning proceeds; without the key or the secret the platform answers 500
    When a device sends the provisioning request:
      """
      {"provisionDeviceKey": "iotc-no-such-provision-key", "provisionDeviceSecret": "iotc-no-such-secret"}
      """
    Then the response status is 200
    And the provisioning status is NOT_FOUND
    When a device sends the provisioning request:
      """
      {"deviceName": "<unique:unkeyed>", "provisionDeviceSecret": "s"}
      """
    Then the response status is 500
    When a device sends the provisioning request:
      """
      {"deviceName": "<unique:unkeyed>", "provisionDeviceKey": "k"}
      """
    Then the response status is 500
    And no device "unkeyed" exists on the platform

  @deviation-HTTP-ERR-05 @HTTP-VER-01
  Scenario Outline: Another version segment (<version>) asks for a login (401) and stores nothing; an unknown resource of v1 is 404
    When the device "legacy" sends POST /api/<version>/{token}/telemetry with the body {"iotc_version": 2}
    Then the response status is 401
    And the response is ThingsBoard's error JSON with errorCode 10
    When the device "legacy" sends GET /api/v1/{token}/no-such-resource
    Then the response status is 404
    When the device "legacy" sends POST /api/v1/{token}/telemetry with the body {"iotc_served": 1}
    Then the response status is 200
    And the platform eventually holds telemetry of "legacy":
      | key         | value | type |
      | iotc_served | 1     | long |
    And the telemetry keys of "legacy" are exactly "iotc_served"

    Examples:
      | version |
      | v2      |
      | v0      |
      | V1      |

  @deviation-HTTP-ERR-02
  Scenario: A negative RPC timeout is taken as it is and the poll ends with 408; the other invalid parameters are refused with 400
    When the device "legacy" sends GET /api/v1/{token}/rpc?timeout=-5
    Then the response status is 408
    When the device "legacy" sends GET /api/v1/{token}/attributes/updates?timeout=abc
    Then the response status is 400
    When the device "legacy" sends GET /api/v1/{token}/firmware?title=x
    Then the response status is 400
    When the device "legacy" sends GET /api/v1/{token}/firmware?title=x&version=1&size=a
    Then the response status is 400

  @deviation-HTTP-TEL-02-EMPTY
  Scenario: An empty telemetry array is never answered: the request times out 503 and nothing is stored
    When the device "legacy" posts an empty telemetry array, waiting out the platform's request timeout
    Then the response status is 503
    And the response is ThingsBoard's error JSON with errorCode 2
    And no telemetry was stored for "legacy"
