@http-device-api @key-value-data
Feature: Key-value data
  A key is always a string. A value is one of string, boolean, double, long or JSON (nested objects and arrays
  allowed). What a device sends is what the platform holds: the same value and the same type.

  Background:
    Given a device "sensor" with an access token

  Scenario Outline: A <type> value is stored as a <type>
    When the device "sensor" posts telemetry {"reading": <json>}
    Then the response status is 200
    And the platform eventually holds telemetry of "sensor":
      | key     | value   | type   |
      | reading | <value> | <type> |

    @KV-02
    Examples: strings
      | type   | json           | value        |
      | string | "21.5 degrees" | 21.5 degrees |
      | string | "42"           | 42           |

    @KV-03
    Examples: booleans
      | type    | json  | value |
      | boolean | false | false |

    @KV-04
    Examples: doubles
      | type   | json   | value  |
      | double | 42.0   | 42.0   |
      | double | -0.001 | -0.001 |

    @KV-05
    Examples: longs
      | type | json                | value               |
      | long | 9223372036854775807 | 9223372036854775807 |
      | long | -42                 | -42                 |

    @KV-06
    Examples: JSON documents
      | type | json                              | value                             |
      | json | {"a": {"b": [1, 2.5, "x", null]}} | {"a": {"b": [1, 2.5, "x", null]}} |
      | json | [true, {"k": "v"}]                | [true, {"k": "v"}]                |

  @KV-01
  Scenario: Keys are strings and come back exactly as sent
    When the device "sensor" posts telemetry {"temp.outside": 1, "Temperatur Außen": 2, "温度": 3, "a-b_c:d": 4}
    Then the response status is 200
    And the platform eventually holds telemetry of "sensor":
      | key              | value | type |
      | temp.outside     | 1     | long |
      | Temperatur Außen | 2     | long |
      | 温度             | 3     | long |
      | a-b_c:d          | 4     | long |

  @KV-01
  Scenario: Spaces around a key are part of the key
    When the device "sensor" posts telemetry:
      """
      {" padded ": 1, "trailing ": 2, "inner  spaces": 3}
      """
    Then the response status is 200
    And the telemetry keys of "sensor" are exactly the JSON:
      """
      [" padded ", "trailing ", "inner  spaces"]
      """

  @KV-03 @KV-04 @KV-05 @KV-06 @HTTP-ATTR-01
  Scenario: Client attributes keep the type of every value
    When the device "sensor" posts client attributes {"active": true, "gain": 1.0, "serial": 1234567890123, "config": {"rate": 10, "bands": [1, 2]}}
    Then the response status is 200
    And the platform eventually holds client attributes of "sensor":
      | key    | value                         | type    |
      | active | true                          | boolean |
      | gain   | 1.0                           | double  |
      | serial | 1234567890123                 | long    |
      | config | {"rate": 10, "bands": [1, 2]} | json    |

  @KV-02 @HTTP-ATTR-01
  Scenario: A string client attribute stays a string
    When the device "sensor" posts client attributes {"model": "T-1000"}
    Then the response status is 200
    And the platform eventually holds client attributes of "sensor":
      | key   | value  | type   |
      | model | T-1000 | string |
