@rest-connector @capability-rest-connector
Feature: REST connector without the optional sections of rest.json
  A second connector of the same gateway runs src/target/embedded-rest-sparse.json: server.SSL false and no
  server.security, one anonymous mapping, and a requestsMapping without any of its three optional arrays. Devices it
  forwards belong to it; a device the first connector forwards is the positive control of every "nothing is sent".

  @RC-SRV-03
  Scenario: With SSL false and no server.security, the endpoints are served over plain HTTP, not TLS
    Given the target runs a second connector from the file without the optional sections
    Then the second connector answers plain HTTP, and a TLS handshake on its port fails

  @RC-CFG-01 @RC-AUPD-01 @RC-RPC-01
  Scenario: Without attributeRequests, attributeUpdates and serverSideRpc, requests are converted, no attribute-request endpoint is served and no update or RPC becomes a call
    Given the target runs a second connector from the file without the optional sections
    When the client sends POST "/sparse" to the second connector with JSON:
      """
      {"name": "<<sparse-REST>>", "v": 2.5}
      """
    Then the connector answers 200
    And the device "<<sparse-REST>>" eventually has telemetry:
      | key | value |
      | v   | 2.5   |
    When the client sends POST "/sharedAttributes" to the second connector with JSON:
      """
      {"deviceName": "<<sparse-REST>>", "attribute": "data"}
      """
    Then the connector answers 404
    Given the connector has forwarded data of the device "<<sparse-control-REST>>"
    When the platform sets the shared attributes of "<<sparse-REST>>":
      """
      {"data": "on"}
      """
    And the platform sends the one-way RPC "echo" with params "{\"x\": 1}" to "<<sparse-REST>>"
    And the platform sets the shared attributes of "<<sparse-control-REST>>":
      """
      {"data": "on"}
      """
    And the platform sends the one-way RPC "echo" with params "{\"x\": 1}" to "<<sparse-control-REST>>"
    Then the external API eventually receives a request to "/sensor/<<sparse-control-REST>>/data":
      | path | /sensor/<<sparse-control-REST>>/data |
    And the external API eventually receives a request to "/rpcdefault/<<sparse-control-REST>>":
      | path | /rpcdefault/<<sparse-control-REST>> |
    And the external API receives no request to "/<<sparse-REST>>"
    And the external API receives no request to "/sensor/<<sparse-REST>>"
    And the external API receives no request to "/rpcdefault/<<sparse-REST>>"
    When the client sends POST "/sparse" to the second connector with JSON:
      """
      {"name": "<<sparse-REST>>", "v": 3.5}
      """
    Then the connector answers 200
    And the device "<<sparse-REST>>" eventually has telemetry:
      | key | value |
      | v   | 3.5   |
