@rest-connector @capability-rest-connector
Feature: Declared deviations of real gateway versions (REST connector)
  Where a target profile declares that the connector knowingly differs from the specification, these scenarios run
  instead of the specification's and check that the declared alternative holds. Against a target that declares no
  deviation they are skipped. The differences of ThingsBoard IoT Gateway 3.8.3 are in
  docs/tb-gateway-3.8-deviations.md (rest-connector-facts.md §12).

  @deviation-RC-RESP-02 @deviation-RC-RESP-03
  Scenario: Hardcoded bodies are returned only when configured: without successResponse and unsuccessfulResponse the body is empty
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {"name": "<<rest-resp-gw-hard>>", "v": 1.5}
      """
    Then the connector answers 200 with the body "Accepted by iotc"
    When the client sends POST "/response/hardcoded-defaults" with JSON:
      """
      {"name": "<<rest-resp-gw-defaults>>", "v": 1.5}
      """
    Then the connector answers 200 with an empty body
    Given the client sends no credentials
    When the client sends POST "/response/hardcoded-defaults" with JSON:
      """
      {"name": "<<rest-resp-gw-defaults>>", "v": 1.5}
      """
    Then the connector answers 401 with an empty body
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {"name": "<<rest-resp-gw-hard>>", "v": 1.5}
      """
    Then the connector answers 401 with the body "Refused by iotc"

  @deviation-RC-SEC-03
  Scenario: A mapping without a security section is anonymous; a mapping that names basic still refuses
    Given the client sends no credentials
    When the client sends GET "/test_device?name=<<rest-default-anonymous>>&reading=1.5"
    Then the connector answers 200
    And the device "Device <<rest-default-anonymous>>" has the device profile "default"
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-basic-still-refused>>", "temp": 1.5}
      """
    Then the connector answers 401
    And no device "<<rest-basic-still-refused>>" was created

  @deviation-RC-RPC-05
  Scenario: ${requestId} in requestUrlExpression is not substituted: it reaches the external API literally, percent-encoded
    Given the connector has forwarded data of the device "<<dev-rpc-5>>"
    When the platform sends the RPC "getLevel" with params "{\"level\": 1, \"field\": \"xyz\"}" to "<<dev-rpc-5>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-5>>/getLevel/":
      | path | /rpc/<<dev-rpc-5>>/getLevel/$%7BrequestId%7D?field=xyz |

  @deviation-RC-AUPD-03
  Scenario: Without SSLVerify an attribute update to an untrusted certificate is refused
    Given the connector has forwarded data of the device "<<upd-tls-2>>"
    When the platform sets the shared attributes of "<<upd-tls-2>>":
      """
      {"unverified": 1}
      """
    And the platform sets the shared attributes of "<<upd-tls-2>>":
      """
      {"setpointTls": 5}
      """
    Then the external API eventually receives a request to "/upd/<<upd-tls-2>>/setpointTls":
      | json body | {"setpointTls": 5, "device": "<<upd-tls-2>>"} |
    And the external API receives no request to "/tls/<<upd-tls-2>>/unverified"

  @deviation-RC-AUPD-08
  Scenario: Without allowRedirects an attribute update does not follow a redirect
    Given the external API redirects requests to "/redir/<<upd-redir-2>>" to "/redirected/<<upd-redir-2>>"
    And the connector has forwarded data of the device "<<upd-redir-2>>"
    When the platform sets the shared attributes of "<<upd-redir-2>>":
      """
      {"anything": 1}
      """
    Then the external API eventually receives a request to "/redir/<<upd-redir-2>>":
      | path | /redir/<<upd-redir-2>> |
    And the external API receives no request to "/redirected/<<upd-redir-2>>"
