@rest-connector @capability-rest-connector
Feature: REST connector server, endpoints and security
  The connector opens the HTTP(S) endpoints of its rest.json (server, mapping[]), converts what they receive and
  sends it to the platform. Endpoints, credentials and rules come from the connector's rest.json; the conformance
  file is src/target/embedded-rest.json.

  @RC-GEN-01 @RC-CFG-01 @RC-JSON-01 @RC-JSON-06 @RC-JSON-07 @RC-ENT-01 @RC-ENT-03
  Scenario: A JSON request becomes a device with client attributes and telemetry on the platform
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-thermo>>", "temp": 21.5, "hum": 40, "active": true, "label": "north", "model": "M1"}
      """
    Then the connector answers 200
    And the device "<<rest-thermo>>" eventually has telemetry:
      | key         | value | ts      |
      | temperature | 21.5  | request |
      | humidity    | 40    | request |
      | active      | true  | request |
      | label       | north | request |
    And the device "<<rest-thermo>>" eventually has client attributes:
      | key    | value |
      | model  | M1    |
      | vendor | iotc  |

  @RC-MAP-01 @RC-MAP-05
  Scenario: Each mapping entry is its own endpoint with its own converter
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-map-conv>>", "temp": 3.5}
      """
    Then the connector answers 200
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-map-ts>>", "v": 6.5, "temp": 9.5}
      """
    Then the connector answers 200
    And the device "<<rest-map-conv>>" eventually has telemetry:
      | key         | value |
      | temperature | 3.5   |
    And the device "<<rest-map-ts>>" eventually has telemetry:
      | key   | value |
      | plain | 6.5   |
    And the device "<<rest-map-ts>>" has no telemetry "temperature"

  @RC-SRV-01 @RC-SRV-02
  Scenario: The connector listens on server.host and server.port (here their defaults, 127.0.0.1 and 5000, the port published where the target says)
    Then the connector listens on the host and port of its rest.json

  @RC-SRV-03 @RC-SRV-05 @RC-SRV-06
  Scenario: With SSL on, the endpoints are served over HTTPS with the certificate and key of server.security
    Then the connector serves HTTPS with the certificate of server.security.cert
    And plain HTTP to the connector port gets no HTTP answer

  @RC-SEC-03
  Scenario: A mapping without a security section requires basic credentials
    Given the client sends no credentials
    When the client sends GET "/test_device?name=<<rest-default-refused>>&reading=1.5"
    Then the connector answers 401
    And no device "Device <<rest-default-refused>>" was created

  @RC-MAP-02 @RC-MAP-03 @RC-SEC-04 @RC-JSON-02
  Scenario: A mapping with only a converter serves GET /test_device with basic security <USERNAME>:<PASSWORD> and names devices "Device ${name}"
    When the client sends GET "/test_device?name=<<rest-default>>&reading=3.5"
    Then the connector answers 200
    And the device "Device <<rest-default>>" eventually has telemetry:
      | key     | value |
      | reading | 3.5   |

  @RC-JSON-05
  Scenario: A deviceInfo without a profile expression gives the device profile "default"
    When the client sends POST "/ts" with JSON:
      """
      {"name": "<<rest-default-profile>>", "v": 1.5}
      """
    Then the connector answers 200
    And the device "<<rest-default-profile>>" has the device profile "default"

  @RC-MAP-02 @RC-MAP-03
  Scenario: A method the endpoint does not list is refused and nothing is converted
    When the client sends POST "/test_device?name=<<rest-post-refused>>&reading=1"
    Then the connector answers 405
    And no device "Device <<rest-post-refused>>" was created

  @RC-MAP-02
  Scenario: A path no mapping names is not served
    When the client sends POST "/no-such-endpoint" with JSON:
      """
      {"name": "<<rest-nowhere>>", "temp": 1}
      """
    Then the connector answers 404
    And no device "<<rest-nowhere>>" was created

  @RC-MAP-03
  Scenario: Every method listed in HTTPMethods is converted
    When the client sends GET "/conv?name=<<rest-get-conv>>&temp=19.5"
    Then the connector answers 200
    And the device "<<rest-get-conv>>" eventually has telemetry:
      | key         | value |
      | temperature | 19.5  |

  @RC-SEC-01 @RC-MAP-04 @RC-AUTH-01
  Scenario: Basic security admits the Authorization header "Basic base64(username:password)"
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-basic>>", "temp": 5.5}
      """
    Then the connector answers 200
    And the device "<<rest-basic>>" eventually has telemetry:
      | key         | value |
      | temperature | 5.5   |

  @RC-MAP-04
  Scenario: A mapping's security section applies to its endpoint: basic refuses a request without credentials
    Given the client sends no credentials
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-map-secured>>", "temp": 5.5}
      """
    Then the connector answers 401
    And no device "<<rest-map-secured>>" was created

  @RC-SEC-02
  Scenario Outline: Basic security refuses <case> and converts nothing
    Given <credentials>
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-refused>>", "temp": 5.5}
      """
    Then the connector answers 401
    And no device "<<rest-refused>>" was created

    Examples:
      | case                         | credentials                                                  |
      | a request without the header | the client sends no credentials                              |
      | a wrong password             | the client sends the password "not-the-password"             |
      | another scheme               | the client sends the Authorization header "Bearer aW90Yzpjb25mb3JtYW5jZQ==" |
      | undecodable credentials      | the client sends the Authorization header "Basic %%%"        |

  @RC-SEC-05 @RC-AUTH-01
  Scenario: An anonymous endpoint needs no authorization
    Given the client sends no credentials
    When the client sends POST "/query?name=x" with JSON:
      """
      {}
      """
    Then the connector answers 405
    When the client sends GET "/query?name=<<rest-anonymous>>&temp=7.5"
    Then the connector answers 200
    And the device "<<rest-anonymous>>" eventually has telemetry:
      | key         | value |
      | temperature | 7.5   |
