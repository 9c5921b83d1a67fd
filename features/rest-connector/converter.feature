@rest-connector @capability-rest-connector
Feature: REST connector json converter
  The json converter builds the device name and profile from deviceInfo and takes attributes and timeseries
  entries from the request: key, type and value expressions, composite and nested expressions, values that come
  out as None are not passed on, timestamps from tsField (dayfirst, yearfirst) or the ts/timestamp property.

  @RC-JSON-03 @RC-JSON-04
  Scenario: Device name and profile read from the request
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-named>>", "profile": "<<profile:rest-profile>>", "temp": 1.5}
      """
    Then the connector answers 200
    And the device "<<rest-named>>" has the device profile "<<profile:rest-profile>>"

  @RC-JSON-03
  Scenario: Without deviceNameExpressionSource the device name is read from the request
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-source-default>>", "v": 2.25}
      """
    Then the connector answers 200
    And the device "<<rest-source-default>>" eventually has telemetry:
      | key   | value |
      | plain | 2.25  |

  @RC-JSON-04
  Scenario: Without deviceProfileExpressionSource the profile is read from the request
    When the client sends GET "/query?name=<<rest-profile-source>>&profile=<<profile:rest-query-profile>>&temp=4.5"
    Then the connector answers 200
    And the device "<<rest-profile-source>>" has the device profile "<<profile:rest-query-profile>>"

  @RC-JSON-03 @RC-JSON-04
  Scenario: Constant sources use the expressions as fixed names
    When the client sends POST "/constant" with JSON:
      """
      {"name": "ignored", "level": 3.25}
      """
    Then the connector answers 200
    And the device "<<rest-constant-device>>" eventually has telemetry:
      | key   | value |
      | level | 3.25  |
    And the device "<<rest-constant-device>>" has the device profile "<<profile:rest-constant-profile>>"

  @RC-ENT-04 @RC-ENT-03 @RC-ENT-01
  Scenario: Composite, nested and dynamic expressions
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-expr>>", "temp": 25.5, "hum": 40, "sensor": {"pressure": 1013.25}, "place": {"city": "Oslo"},
       "dynamicKey": "serial", "dynamicValue": "SN-1"}
      """
    Then the connector answers 200
    And the device "<<rest-expr>>" eventually has telemetry:
      | key      | value   |
      | combined | 40:25.5 |
      | pressure | 1013.25 |
    And the device "<<rest-expr>>" eventually has client attributes:
      | key    | value |
      | city   | Oslo  |
      | serial | SN-1  |

  @RC-CONV-03
  Scenario: Values that come out as None are not passed on
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-none>>", "temp": 20.5, "label": null}
      """
    Then the connector answers 200
    And the device "<<rest-none>>" eventually has telemetry:
      | key         | value |
      | temperature | 20.5  |
    And the device "<<rest-none>>" has no telemetry "humidity, label, combined, pressure, active"
    And the device "<<rest-none>>" has no client attribute "model, city"

  @RC-ENT-02
  Scenario: The entry type gives the stored type
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-typed>>", "temp": 20, "hum": "41", "active": "false", "label": 12}
      """
    Then the connector answers 200
    And the device "<<rest-typed>>" eventually has telemetry:
      | key         | value | stored type |
      | temperature | 20.0  | double      |
      | humidity    | 41    | long        |
      | active      | false | boolean     |
      | label       | 12    | string      |

  @RC-BODY-01 @RC-BODY-02
  Scenario: Multipart fields on the same endpoint are merged and referenced as with JSON
    When the client sends POST "/conv" with multipart parts:
      | part   | value              |
      | name   | <<rest-multipart>> |
      | temp   | 22.5               |
      | hum    | 43                 |
      | active | true               |
      | model  | M2                 |
    Then the connector answers 200
    And the device "<<rest-multipart>>" eventually has telemetry:
      | key         | value   |
      | temperature | 22.5    |
      | humidity    | 43      |
      | active      | true    |
      | combined    | 43:22.5 |
    And the device "<<rest-multipart>>" eventually has client attributes:
      | key   | value |
      | model | M2    |

  @RC-BODY-03 @RC-ENT-02
  Scenario: Multipart values are converted to the configured types
    When the client sends POST "/conv" with multipart parts:
      | part   | value                    |
      | name   | <<rest-multipart-typed>> |
      | temp   | 22.5                     |
      | hum    | 43                       |
      | active | true                     |
    Then the connector answers 200
    And the device "<<rest-multipart-typed>>" eventually has telemetry:
      | key         | value | stored type |
      | temperature | 22.5  | double      |
      | humidity    | 43    | long        |
      | active      | true  | boolean     |

  @RC-BODY-04
  Scenario: File parts of a multipart request are ignored
    When the client sends POST "/conv" with multipart parts:
      | part | value                  | filename    |
      | name | <<rest-file>>          |             |
      | temp | 23.5                   |             |
      | hum  | 99                     | reading.txt |
    Then the connector answers 200
    And the device "<<rest-file>>" eventually has telemetry:
      | key         | value |
      | temperature | 23.5  |
    And the device "<<rest-file>>" has no telemetry "humidity"

  @RC-BODY-05
  Scenario: GET query parameters are parsed
    When the client sends GET "/query?name=<<rest-query>>&temp=18.5&label=a+b%2Bc"
    Then the connector answers 200
    And the device "<<rest-query>>" eventually has telemetry:
      | key         | value |
      | temperature | 18.5  |
      | label       | a b+c |

  @RC-ENT-05 @RC-ENT-06 @RC-ENT-07 @RC-ENT-08 @RC-ENT-09 @RC-ENT-10
  Scenario: tsField datetimes read with dayfirst and yearfirst; without tsField the ts property
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-dates>>", "v": 1.5, "when": "10.11.24", "meta": {"at": "2024-11-10T10:35:12.123Z"}, "ts": 1700000000000}
      """
    Then the connector answers 200
    And the device "<<rest-dates>>" eventually has telemetry:
      | key        | value | ts             |
      | plain      | 1.5   | 1700000000000  |
      | monthFirst | 1.5   | day 2024-10-11 |
      | dayFirst   | 1.5   | day 2024-11-10 |
      | yearFirst  | 1.5   | day 2010-11-24 |
      | nested     | 1.5   | 1731234912123  |

  @RC-ENT-06
  Scenario: Without tsField and ts, the timestamp property gives the time
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-timestamp>>", "v": 2.5, "timestamp": 1700000123456}
      """
    Then the connector answers 200
    And the device "<<rest-timestamp>>" eventually has telemetry:
      | key   | value | ts            |
      | plain | 2.5   | 1700000123456 |
