@rest-connector @capability-rest-connector
Feature: REST connector custom converter
  converter.type custom selects a converter written for a device: converter.extension names its class, and the
  whole converter section (extensionConfig included) is passed to it on initialization. The conformance
  rest.json's /custom endpoint uses the shipped byte-decoding converter: a big-endian float in bytes 0-3
  (totaliser), a little-endian unsigned 16-bit integer in bytes 4-5 (counter) and a signed byte times 0.5 in
  byte 6 (offset), which the section's own member attributeKeys sends as a client attribute.

  @RC-CONV-02 @RC-CUST-01 @RC-CUST-03 @RC-CUST-04 @RC-CUST-05
  Scenario: The named custom converter decodes the request with the configuration of its section
    When the client sends POST "/custom?name=<<rest-bytes>>" with the bytes "41480000 2c01 fc"
    Then the connector answers 200
    And the device "<<rest-bytes>>" eventually has telemetry:
      | key       | value |
      | totaliser | 12.5  |
      | counter   | 300   |
    And the device "<<rest-bytes>>" eventually has client attributes:
      | key    | value |
      | offset | -2.0  |

  @RC-CONV-01
  Scenario: A converter section without a type is the json converter
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-json-default>>", "v": 4.5, "ts": 1700000000500}
      """
    Then the connector answers 200
    And the device "<<rest-json-default>>" eventually has telemetry:
      | key   | value | ts            |
      | plain | 4.5   | 1700000000500 |

  @RC-CUST-03
  Scenario: Each endpoint gets the converter class its converter.extension names
    When the client sends POST "/custom/text?name=<<rest-text>>" with the body "flow=4.5;state=open" of type "text/plain"
    Then the connector answers 200
    And the device "<<rest-text>>" eventually has telemetry:
      | key   | value |
      | flow  | 4.5   |
      | state | open  |

  @RC-CUST-02
  Scenario: A custom converter takes the device name from its deviceInfo and the profile default
    When the client sends POST "/custom/text?name=<<rest-text-info>>" with the body "flow=1.5" of type "text/plain"
    Then the connector answers 200
    And the device "<<rest-text-info>>" has the device profile "default"
