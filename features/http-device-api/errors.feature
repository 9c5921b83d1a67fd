@http-device-api
Feature: Errors of the HTTP device API
  400 for an invalid URL, request parameters or body; 401 for an invalid access token; 404 when the requested
  resource does not exist. A client mistake never gets a server error, and a refused request stores nothing.

  Background:
    Given a device "probe" with an access token

  @HTTP-ERR-01
  Scenario Outline: Invalid telemetry (<case>) is refused with 400 and nothing is stored
    When the device "probe" posts telemetry <body>
    Then the response status is 400
    And no telemetry was stored for "probe"

    Examples:
      | case                       | body                                       |
      | malformed JSON             | {"temperature": 21.5                       |
      | a top-level string         | "temperature"                              |
      | an array of numbers        | [1, 2, 3]                                  |
      | values that is not object  | {"ts": 1700000000000, "values": 42}        |
      | ts that is not an integer  | {"ts": "yesterday", "values": {"a": 1}}    |
      | a null value               | {"a": 1, "b": null}                        |
      | one bad element of many    | [{"a": 1}, {"ts": 1, "values": [1]}]       |

  @HTTP-ERR-01
  Scenario Outline: Invalid client attributes (<case>) are refused with 400 and nothing is stored
    When the device "probe" posts client attributes <body>
    Then the response status is 400
    And no client attribute was stored for "probe"

    Examples:
      | case            | body               |
      | malformed JSON  | {"a": 1,}          |
      | an array        | [{"a": 1}]         |
      | a number        | 42                 |
      | a null value    | {"a": 1, "b": null} |

  @HTTP-ERR-01 @HTTP-RPC-03
  Scenario: A malformed RPC reply document is refused with 400
    When the device "probe" sends POST /api/v1/{token}/rpc/1 with the body {"result": ok
    Then the response status is 400

  @HTTP-ERR-01 @HTTP-RPC-04 @capability-client-rpc
  Scenario: A malformed client-side RPC document is refused with 400
    When the device "probe" sends POST /api/v1/{token}/rpc with the body {"method": "getTime", "params":
    Then the response status is 400

  @HTTP-ERR-01 @HTTP-CLAIM-01 @capability-claiming
  Scenario Outline: An invalid claim payload (<case>) is refused with 400
    When the device "probe" sends POST /api/v1/{token}/claim with the body <body>
    Then the response status is 400

    Examples:
      | case                     | body                               |
      | malformed JSON           | {"secretKey": "k"                  |
      | not an object            | ["k", 1000]                        |
      | durationMs not a number  | {"secretKey": "k", "durationMs": "soon"} |
      | secretKey not a string   | {"secretKey": 42}                  |

  @HTTP-ERR-02
  Scenario Outline: An invalid request parameter (<case>) is refused with 400
    When the device "probe" sends GET /api/v1/{token}/<resource>
    Then the response status is 400

    Examples:
      | case                               | resource                         |
      | updates timeout not a number       | attributes/updates?timeout=abc   |
      | rpc timeout negative               | rpc?timeout=-5                   |
      | firmware without version           | firmware?title=x                 |
      | firmware chunk not a number        | firmware?title=x&version=1&size=a |

  @HTTP-ERR-03
  Scenario: An RPC reply to an id that is not an integer is an invalid URL
    When the device "probe" sends POST /api/v1/{token}/rpc/not-a-number
    Then the response status is 400

  @HTTP-ERR-04
  Scenario Outline: An unknown access token is refused with 401 (<resource>)
    When a client sends <method> /api/v1/no-such-token-xyz/<resource>
    Then the response status is 401

    Examples:
      | method | resource                           |
      | POST   | telemetry                          |
      | POST   | attributes                         |
      | GET    | attributes                         |
      | GET    | attributes/updates?timeout=100     |
      | GET    | rpc?timeout=100                    |
      | POST   | rpc/1                              |
      | POST   | rpc                                |
      | POST   | claim                              |
      | GET    | firmware?title=fw&version=1        |

  @HTTP-ERR-05
  Scenario: An unknown resource is answered 404
    When the device "probe" sends GET /api/v1/{token}/no-such-resource
    Then the response status is 404

  @HTTP-ERR-05
  Scenario: A path with a trailing slash is not the endpoint: it is answered 404
    # ThingsBoard 4.3.1.3 answers 404 {"message":"No static resource api/v1/.../telemetry.","errorCode":32} (Spring 6
    # matches paths exactly); the path without the slash is answered 200 (positive control)
    When the device "probe" sends POST /api/v1/{token}/telemetry/
    Then the response status is 404
    When the device "probe" sends POST /api/v1/{token}/telemetry
    Then the response status is 200
