@http-device-api
Feature: Telemetry upload over the HTTP device API
  A device posts telemetry to /api/v1/{access_token}/telemetry in one of three forms: an object of key to value
  (timestamp assigned by the server), an array of such objects, or {ts, values} with the timestamp in unix
  milliseconds. The platform reads back through the administration API, value by value and type by type.

  Background:
    Given a device "thermo" with an access token

  @HTTP-TEL-01
  Scenario: Telemetry in the object form is stored with a timestamp assigned by the server
    When the device "thermo" posts telemetry {"temperature": 21.5, "humidity": 40, "ok": true, "mode": "eco"}
    Then the response status is 200
    And the platform eventually holds telemetry of "thermo":
      | key         | ts     | value | type    |
      | temperature | server | 21.5  | double  |
      | humidity    | server | 40    | long    |
      | ok          | server | true  | boolean |
      | mode        | server | eco   | string  |

  @HTTP-TEL-02
  Scenario: Telemetry in the array form stores every element with a server timestamp
    When the device "thermo" posts telemetry [{"temperature": 20.5}, {"pressure": 1013}, {"door": "open"}]
    Then the response status is 200
    And the platform eventually holds telemetry of "thermo":
      | key         | ts     | value | type   |
      | temperature | server | 20.5  | double |
      | pressure    | server | 1013  | long   |
      | door        | server | open  | string |

  @HTTP-TEL-02-EMPTY
  Scenario: An empty telemetry array is accepted and stores nothing
    When the device "thermo" posts telemetry []
    Then the response status is 200
    And no telemetry was stored for "thermo"

  @HTTP-TEL-02 @HTTP-TEL-03
  Scenario: The array form may mix timestamped and plain elements
    When the device "thermo" posts telemetry [{"ts": 1700000000000, "values": {"temperature": 19.25}}, {"ts": 1700000001000, "values": {"temperature": 19.5}}, {"voltage": 3.3}]
    Then the response status is 200
    And the telemetry history of "thermo" holds "temperature" at 1700000000000 and 1700000001000
    And the platform eventually holds telemetry of "thermo":
      | key     | ts     | value | type   |
      | voltage | server | 3.3   | double |

  @HTTP-TEL-03
  Scenario: Timestamped telemetry is stored with the device's timestamp
    When the device "thermo" posts telemetry {"ts": 1700000000123, "values": {"temperature": 21.5, "ok": true}}
    Then the response status is 200
    And the platform eventually holds telemetry of "thermo":
      | key         | ts            | value | type    |
      | temperature | 1700000000123 | 21.5  | double  |
      | ok          | 1700000000123 | true  | boolean |

  @HTTP-TEL-03
  Scenario: A timestamp from the year 10000 on is stored with the device's timestamp too
    When the device "thermo" posts telemetry {"ts": 253402300799000, "values": {"last-of-9999": 1}}
    Then the response status is 200
    When the device "thermo" posts telemetry {"ts": 253402300800000, "values": {"first-of-10000": 2}}
    Then the response status is 200
    And the platform eventually holds telemetry of "thermo":
      | key            | ts              | value | type |
      | last-of-9999   | 253402300799000 | 1     | long |
      | first-of-10000 | 253402300800000 | 2     | long |

  @HTTP-GEN-01
  Scenario: The HTTP device API is served over HTTPS as well as HTTP
    Given the target serves the HTTP device API over HTTPS too
    When the device "thermo" posts over HTTPS the telemetry {"secure": true}
    Then the response status is 200
    And the platform eventually holds telemetry of "thermo":
      | key    | ts     | value | type    |
      | secure | server | true  | boolean |
