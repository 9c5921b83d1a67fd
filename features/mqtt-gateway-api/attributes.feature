@mqtt-gateway-api
Feature: Attributes through the gateway
  v1/gateway/attributes carries {device name: {key: value}}, stored as client-side attributes. Shared attribute
  updates of connected devices come back on v1/gateway/attributes as {"device", "data"}. An attribute request on
  v1/gateway/attributes/request ({"id", "device", "client": [keys], "shared": [keys]}) is answered on
  v1/gateway/attributes/response.
  A platform may acknowledge a connect before updates of the device reach the gateway: before an update under test the
  suite proves the path with updates of its own reserved shared attribute iotcProbe, which no count includes.

  @GW-ATTR-01 @GW-RULE-02-KEYS
  Scenario Outline: Attributes are stored as client-side attributes, type by type (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "valve"
    And the gateway "gw" publishes attributes for "valve": {"firmware": "1.2.0", "open": false, "pressure": 2.5, "cycles": 12}
    Then the PUBACK reports success
    And the platform eventually holds a device "valve" of the profile "default"
    And the platform eventually holds client attributes of "valve":
      | key      | value | type    |
      | firmware | 1.2.0 | string  |
      | open     | false | boolean |
      | pressure | 2.5   | double  |
      | cycles   | 12    | long    |

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-ATTR-02 @GW-RULE-02
  Scenario: One publish carries the attributes of several devices
    Given a gateway "gw" connected over MQTT 5
    When the gateway "gw" publishes on "v1/gateway/attributes":
      """
      {"{{left}}": {"side": "L"}, "{{right}}": {"side": "R"}}
      """
    Then the PUBACK reports success
    And the platform eventually holds a device "left" of the profile "default"
    And the platform eventually holds a device "right" of the profile "default"
    And the platform eventually holds client attributes of "left":
      | key  | value | type   |
      | side | L     | string |
    And the platform eventually holds client attributes of "right":
      | key  | value | type   |
      | side | R     | string |

  @GW-RULE-02-UPD
  Scenario: A later publish updates an existing attribute
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" publishes attributes for "valve": {"firmware": "fw-1"}
    Then the PUBACK reports success
    And the platform eventually holds a device "valve" of the profile "default"
    And the platform eventually holds client attributes of "valve":
      | key      | value | type   |
      | firmware | fw-1  | string |
    When the gateway "gw" publishes attributes for "valve": {"firmware": "fw-2"}
    Then the PUBACK reports success
    And the platform eventually holds client attributes of "valve":
      | key      | value | type   |
      | firmware | fw-2  | string |

  @GW-ATTR-03 @GW-EVT-01 @GW-EVT-02 @GW-STATE-04
  Scenario Outline: A shared attribute update of a connected device reaches the gateway (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" connects the device "heater"
    Then the PUBACK reports success
    And the platform eventually holds a device "heater" of the profile "default"
    And the platform's attribute updates for "heater" are proven to reach the gateway "gw"
    When the platform sets the shared attributes of "heater" to {"target": 22.5, "mode": "eco"}
    Then the gateway "gw" receives an attribute update for "heater" with {"target": 22.5, "mode": "eco"}
    When the platform sets the shared attributes of "heater" to {"mode": "away"}
    Then the gateway "gw" receives an attribute update for "heater" with exactly {"mode": "away"}
    And besides it, the gateway "gw" received exactly 1 attribute update for "heater"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-EVT-02
  Scenario: No shared attribute update reaches the gateway for a device it never connected
    Given a gateway "gw" connected over MQTT 5
    And a device "stranger" with an access token
    When the gateway "gw" connects the device "heater"
    Then the PUBACK reports success
    And the platform eventually holds a device "heater" of the profile "default"
    And the platform's attribute updates for "heater" are proven to reach the gateway "gw"
    When the platform sets the shared attributes of "stranger" to {"mode": "eco"}
    And the platform sets the shared attributes of "heater" to {"mode": "eco"}
    Then the gateway "gw" receives an attribute update for "heater" with {"mode": "eco"}
    And the gateway "gw" receives no attribute update for "stranger" within a quiet window

  @GW-EVT-02
  Scenario: No shared attribute update reaches a gateway for a device another gateway connected
    Given a gateway "gw" connected over MQTT 5
    And a gateway "other" connected over MQTT 5
    When the gateway "other" connects the device "boiler"
    Then the PUBACK reports success
    When the gateway "gw" connects the device "heater"
    Then the PUBACK reports success
    And the platform eventually holds a device "boiler" of the profile "default"
    And the platform eventually holds a device "heater" of the profile "default"
    And the platform's attribute updates for "boiler" are proven to reach the gateway "other"
    And the platform's attribute updates for "heater" are proven to reach the gateway "gw"
    When the platform sets the shared attributes of "boiler" to {"mode": "eco"}
    Then the gateway "other" receives an attribute update for "boiler" with {"mode": "eco"}
    When the platform sets the shared attributes of "heater" to {"mode": "eco"}
    Then the gateway "gw" receives an attribute update for "heater" with {"mode": "eco"}
    And the gateway "gw" receives no attribute update for "boiler" within a quiet window

  @GW-ATTRREQ-01 @GW-ATTRREQ-02
  Scenario Outline: An attribute request is answered on v1/gateway/attributes/response (MQTT <version>)
    Given a gateway "gw" connected over MQTT <version>
    When the gateway "gw" publishes attributes for "dial": {"unit": "bar", "color": "red"}
    Then the PUBACK reports success
    And the platform eventually holds a device "dial" of the profile "default"
    And the platform eventually holds client attributes of "dial":
      | key  | value | type   |
      | unit | bar   | string |
    When the platform sets the shared attributes of "dial" to {"limit": 9, "floor": 1}
    And the gateway "gw" requests attributes of "dial" with {"client": ["unit"], "shared": ["limit"]}
    Then the gateway "gw" receives on v1/gateway/attributes/response an answer with the id of its request for "dial"
    And the gateway's attribute answer for "gw" holds {"unit": "bar", "limit": 9}
    And the gateway's attribute answer for "gw" holds no attribute "color"
    And the gateway's attribute answer for "gw" holds no attribute "floor"

    Examples: MQTT 3.1.1
      | version |
      | 3.1.1   |

    @capability-mqtt5
    Examples: MQTT 5
      | version |
      | 5       |

  @GW-ATTRREQ-01 @GW-ATTRREQ-02
  Scenario: An attribute request naming only client keys is answered with those keys
    Given a gateway "gw" connected over MQTT 3.1.1
    When the gateway "gw" publishes attributes for "dial": {"unit": "bar", "color": "red"}
    Then the PUBACK reports success
    And the platform eventually holds a device "dial" of the profile "default"
    And the platform eventually holds client attributes of "dial":
      | key  | value | type   |
      | unit | bar   | string |
    When the gateway "gw" requests attributes of "dial" with {"client": ["unit"]}
    Then the gateway "gw" receives on v1/gateway/attributes/response an answer with the id of its request for "dial"
    And the gateway's attribute answer for "gw" holds {"unit": "bar"}
    And the gateway's attribute answer for "gw" holds no attribute "color"
