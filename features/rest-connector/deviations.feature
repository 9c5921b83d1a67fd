@rest-connector @capability-rest-connector
Feature: Declared deviations of real gateway versions (REST connector)
  Where a target profile declares that the connector knowingly differs from the specification, these scenarios run
  instead of the specification's and check that the declared alternative holds. Against a target that declares no
  deviation they are skipped. The differences of ThingsBoard IoT Gateway 3.8.3 are in
  docs/tb-gateway-3.8-deviations.md (docs/reference/rest-connector-facts.md §12).

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

  @deviation-RC-SEC-03 @deviation-RC-SEC-04
  Scenario: A mapping without a security section is anonymous (no <USERNAME>/<PASSWORD> placeholders); a mapping that names basic still refuses
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
  Scenario: Only the first ${...} of each /-segment of requestUrlExpression is filled, and ${requestId} never: both reach the external API literally, percent-encoded
    Given the connector has forwarded data of the device "<<dev-rpc-5>>"
    When the platform sends the RPC "getLevel" with params "{\"level\": 1, \"field\": \"xyz\"}" to "<<dev-rpc-5>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-5>>/getLevel/":
      | path | /rpc/<<dev-rpc-5>>/getLevel/$%7BrequestId%7D?field=$%7Bparams.field%7D |

  @deviation-RC-AUPD-03
  Scenario: Without SSLVerify an attribute update to an untrusted certificate is refused
    Given the external API answers over HTTPS with a certificate nobody trusts
    And the connector has forwarded data of the device "<<upd-tls-2>>"
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

  @deviation-RC-MAP-02 @deviation-RC-MAP-03 @deviation-RC-JSON-02
  Scenario: A mapping needs endpoint, HTTPMethods and deviceInfo.deviceNameExpression: the configuration names them and they work
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-MAP-02, RC-MAP-03, RC-JSON-02"
    When the client sends GET "/test_device?name=<<rest-default-named>>&reading=3.5"
    Then the connector answers 200
    And the device "Device <<rest-default-named>>" eventually has telemetry:
      | key     | value |
      | reading | 3.5   |
    When the client sends POST "/test_device?name=<<rest-default-post>>&reading=1"
    Then the connector answers 405
    When the client sends POST "/no-such-endpoint" with JSON:
      """
      {"name": "<<rest-default-nowhere>>", "temp": 1}
      """
    Then the connector answers 404
    And no device "Device <<rest-default-post>>" was created
    And no device "<<rest-default-nowhere>>" was created

  @deviation-RC-ENT-02
  Scenario: The entry type is ignored: every value is stored as the text Python's str() gives it
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-typed-text>>", "temp": 20, "hum": "41", "active": "false", "label": 12}
      """
    Then the connector answers 200
    And the device "<<rest-typed-text>>" eventually has telemetry:
      | key         | value | stored type |
      | temperature | 20    | string      |
      | humidity    | 41    | string      |
      | active      | false | string      |
      | label       | 12    | string      |

  @deviation-RC-BODY-03
  Scenario: Multipart values are not converted: they are stored as the text they arrived as
    When the client sends POST "/conv" with multipart parts:
      | part   | value                         |
      | name   | <<rest-multipart-text>>       |
      | temp   | 22.5                          |
      | hum    | 43                            |
      | active | true                          |
    Then the connector answers 200
    And the device "<<rest-multipart-text>>" eventually has telemetry:
      | key         | value | stored type |
      | temperature | 22.5  | string      |
      | humidity    | 43    | string      |
      | active      | true  | string      |

  @deviation-RC-CONV-03
  Scenario: A missing field in a composite value is sent as the text None; a value that is None alone is not passed on
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-none-text>>", "temp": 20.5, "label": null}
      """
    Then the connector answers 200
    And the device "<<rest-none-text>>" eventually has telemetry:
      | key         | value     |
      | temperature | 20.5      |
      | combined    | None:20.5 |
    And the device "<<rest-none-text>>" has no telemetry "humidity, label, pressure, active"
    And the device "<<rest-none-text>>" has no client attribute "model, city"

  @deviation-RC-SEC-02
  Scenario: Basic security answers 401 to a missing header or wrong credentials, but 500 to another scheme or undecodable credentials; nothing is converted
    Given the client sends no credentials
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-refused-gw>>", "temp": 5.5}
      """
    Then the connector answers 401
    Given the client sends the password "not-the-password"
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-refused-gw>>", "temp": 5.5}
      """
    Then the connector answers 401
    Given the client sends the Authorization header "Bearer aW90Yzpjb25mb3JtYW5jZQ=="
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-refused-gw>>", "temp": 5.5}
      """
    Then the connector answers 500
    Given the client sends the Authorization header "Basic %%%"
    When the client sends POST "/conv" with JSON:
      """
      {"name": "<<rest-refused-gw>>", "temp": 5.5}
      """
    Then the connector answers 500
    And no device "<<rest-refused-gw>>" was created

  @deviation-RC-CONV-02 @deviation-RC-CUST-01 @deviation-RC-CUST-03 @deviation-RC-CUST-04 @deviation-RC-CUST-05
  Scenario: A binary body is refused with 500 before any converter runs, so no custom converter sees bytes
    When the client sends POST "/custom?name=<<rest-bytes-gw>>" with the bytes "41480000 2c01 fc"
    Then the connector answers 500
    And no device "<<rest-bytes-gw>>" was created

  @deviation-RC-RESP-04
  Scenario: The remote answer is the text Python's str() gives the attribute value, not JSON
    When the client starts sending POST "/response/remote" as request "only" with JSON:
      """
      {"name": "<<rest-remote-text>>", "v": 1.5}
      """
    Then the request "only" is not answered yet
    When the platform sets the shared attributes of "<<rest-remote-text>>":
      """
      {"answer": {"accepted": true, "slot": 7}}
      """
    Then the request "only" is answered 200 with the body "{'accepted': True, 'slot': 7}"

  @deviation-RC-RESP-05
  Scenario: responseExpected defaults to false: a response section without it (a timeout and a responseAttribute) answers at once with an empty body
    When the client sends POST "/response/remote-implicit" with JSON:
      """
      {"name": "<<rest-remote-not-expected>>", "v": 1.5}
      """
    Then the connector answers 200 with an empty body
    And the device "<<rest-remote-not-expected>>" eventually has telemetry:
      | key | value |
      | v   | 1.5   |

  @deviation-RC-AREQ-01 @deviation-RC-AREQ-02 @deviation-RC-AREQ-03 @deviation-RC-AREQ-04 @deviation-RC-AREQ-06 @deviation-RC-AREQ-07
  Scenario: An attribute-request entry needs endpoint, type, HTTPMethods, timeout, deviceNameExpression and attributeNameExpression, and without security is anonymous; the answer is the platform's message
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-AREQ-01, RC-AREQ-02, RC-AREQ-03, RC-AREQ-05, RC-AREQ-06, RC-AREQ-07"
    Given the connector has forwarded data of the device "<<rest-areq-gw>>"
    When the platform sets the shared attributes of "<<rest-areq-gw>>":
      """
      {"mode": "away"}
      """
    Given the client sends no credentials
    When the client sends POST "/sharedAttributes" with JSON:
      """
      {"deviceName": "<<rest-areq-gw>>", "attribute": "mode"}
      """
    Then the connector answers 200 with a JSON body holding:
      """
      {"value": "away"}
      """
    When the client sends GET "/sharedAttributes?deviceName=<<rest-areq-gw>>&attribute=mode"
    Then the connector answers 405
    When the client sends GET "/attributes/client?device=<<rest-areq-gw>>&key=model"
    Then the connector answers 401

  @deviation-RC-AUPD-09 @deviation-RC-AUPD-10 @deviation-RC-AUPD-12
  Scenario: An attribute-update rule needs deviceNameFilter, attributeFilter and valueExpression: the configuration names them and they work
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-AUPD-09, RC-AUPD-10, RC-AUPD-12"
    Given the connector has forwarded data of the device "<<upd-gw-REST>>"
    And the connector has forwarded data of the device "<<upd-gw-REST-not>>"
    When the platform sets the shared attributes of "<<upd-gw-REST-not>>":
      """
      {"data": "off"}
      """
    And the platform sets the shared attributes of "<<upd-gw-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/sensor/<<upd-gw-REST>>/data":
      | json body | {"data": "on"} |
    When the platform sets the shared attributes of "<<upd-gw-REST>>":
      """
      {"notdata": "on"}
      """
    And the platform sets the shared attributes of "<<upd-gw-REST>>":
      """
      {"data": "again"}
      """
    Then the external API eventually receives 2 requests to "/sensor/<<upd-gw-REST>>/data"
    And the external API receives no request to "/sensor/<<upd-gw-REST>>/notdata"
    And the external API receives no request to "/sensor/<<upd-gw-REST-not>>"

  @deviation-RC-AUPD-02 @deviation-RC-RPC-07
  Scenario: Only the member HTTPMethod is read: rules that set httpMethod call with GET
    Given the connector has forwarded data of the device "<<dev-upd-gw-method>>"
    And the connector has forwarded data of the device "<<dev-rpc-gw-method>>"
    When the platform sets the shared attributes of "<<dev-upd-gw-method>>":
      """
      {"setpointMethod": 1}
      """
    And the platform sends the RPC "setLevel" with params "{\"level\": 2, \"field\": \"m\"}" to "<<dev-rpc-gw-method>>"
    Then the external API eventually receives a request to "/upd/<<dev-upd-gw-method>>/setpointMethod":
      | method | GET |
    And the external API eventually receives a request to "/rpc/<<dev-rpc-gw-method>>/setLevel/":
      | method | GET |

  @deviation-RC-AUPD-04 @deviation-RC-RPC-11
  Scenario: There is no default Content-Type header: rules without httpHeaders send none; configured headers are sent
    Given the external API answers requests to "/rpcdefault/<<rest-echo-gw-headers>>" with status 200 and body "{}"
    And the connector has forwarded data of the device "<<upd-gw-headers-REST>>"
    And the connector has forwarded data of the device "<<rest-echo-gw-headers>>"
    And the connector has forwarded data of the device "<<dev-upd-gw-headers>>"
    When the platform sets the shared attributes of "<<upd-gw-headers-REST>>":
      """
      {"data": "on"}
      """
    And the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo-gw-headers>>"
    And the platform sets the shared attributes of "<<dev-upd-gw-headers>>":
      """
      {"setpointHeaders": 1}
      """
    Then the external API eventually receives a request to "/sensor/<<upd-gw-headers-REST>>/data":
      | no header content-type | |
    And the external API eventually receives a request to "/rpcdefault/<<rest-echo-gw-headers>>":
      | no header content-type | |
    And the external API eventually receives a request to "/upd/<<dev-upd-gw-headers>>/setpointHeaders":
      | header x-iotc | conformance |

  @deviation-RC-AUPD-06 @deviation-RC-AUPD-07
  Scenario: tries is ignored: an attribute update is attempted once, also when the attempt fails or times out
    Given the external API fails every request to "/down/<<upd-down-gw>>"
    And the external API answers requests to "/slow/<<upd-slow-gw>>" after 600 ms
    And the connector has forwarded data of the device "<<upd-down-gw>>"
    And the connector has forwarded data of the device "<<upd-slow-gw>>"
    When the platform sets the shared attributes of "<<upd-down-gw>>":
      """
      {"anything": 1}
      """
    And the platform sets the shared attributes of "<<upd-slow-gw>>":
      """
      {"anything": 1}
      """
    Then the external API receives exactly 1 requests to "/down/<<upd-down-gw>>"
    And the external API receives exactly 1 requests to "/slow/<<upd-slow-gw>>"

  @deviation-RC-RPC-13 @deviation-RC-RPC-10
  Scenario: The RPC reply wraps the external answer in result; a failed call is attempted once and replies result.error with the reason phrase
    Given the external API answers requests to "/rpc/<<dev-rpc-gw-reply>>/setLevel" with status 200 and body "{\"applied\": true, \"level\": 7}"
    And the connector has forwarded data of the device "<<dev-rpc-gw-reply>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-gw-reply>>"
    Then the RPC reply is exactly:
      """
      {"result": {"applied": true, "level": 7}}
      """
    Given the external API fails every request to "/rpcdown/<<dev-rpcdown-gw>>"
    And the connector has forwarded data of the device "<<dev-rpcdown-gw>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcdown-gw>>"
    Then the RPC reply is exactly:
      """
      {"result": {"error": "Service Unavailable", "code": 503}}
      """
    And the external API receives exactly 1 requests to "/rpcdown/<<dev-rpcdown-gw>>"

  @deviation-RC-RPC-06
  Scenario: responseTimeout is ignored: an answer later than responseTimeout but within timeout is the reply
    Given the external API answers requests to "/rpcslow/<<dev-rpcslow-gw>>" after 1500 ms
    And the connector has forwarded data of the device "<<dev-rpcslow-gw>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcslow-gw>>"
    Then the RPC reply is exactly:
      """
      {"result": {"status": "ok"}}
      """

  @deviation-RC-RPC-09
  Scenario: An RPC call that gets no answer within timeout is abandoned after one attempt and replies result.error Timeout, code 408
    Given the external API answers requests to "/rpcdown/<<dev-rpcdown-gw-slow>>" after 1500 ms
    And the connector has forwarded data of the device "<<dev-rpcdown-gw-slow>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcdown-gw-slow>>"
    Then the RPC reply is exactly:
      """
      {"result": {"error": "Timeout", "code": 408}}
      """
    And the external API receives exactly 1 requests to "/rpcdown/<<dev-rpcdown-gw-slow>>"

  @deviation-RC-RPC-16 @deviation-RC-RPC-17
  Scenario: The built-in get and set methods fail on JSON params: no call is made and no reply comes
    Given the connector has forwarded data of the device "<<rest-set-gw>>"
    When the platform sends the RPC "set" to "<<rest-set-gw>>" with params:
      """
      {"requestUrlExpression": "${external}/builtin/<<rest-set-gw>>/level", "responseTimeout": 1, "httpMethod": "POST",
       "valueExpression": "{\"level\": ${params.level}}", "level": 80}
      """
    Then the RPC gets no reply from the connector
    And the external API receives no request to "/builtin/<<rest-set-gw>>"

  @deviation-RC-RPC-02 @deviation-RC-RPC-03 @deviation-RC-RPC-08
  Scenario: A server-side RPC rule needs deviceNameFilter, methodFilter and valueExpression: the configuration names them and they work
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-RPC-02, RC-RPC-03, RC-RPC-08"
    Given the connector has forwarded data of the device "<<rest-echo-gw-rule>>"
    When the platform sends the RPC "other" with params "{\"x\": 1}" to "<<rest-echo-gw-rule>>"
    And the platform sends the RPC "echo" with params "{\"x\": 2}" to "<<rest-echo-gw-rule>>"
    Then the external API receives exactly 1 requests to "/rpcdefault/<<rest-echo-gw-rule>>"

  @deviation-RC-SRV-01 @RC-SRV-02
  Scenario: The server needs host: the configuration names it and the connector listens there
    # without server.host 3.8.3 raises KeyError in __run_server (rest_connector.py:195/198) and nothing listens
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-SRV-01"
    And the connector listens on the host and port of its rest.json

  @deviation-RC-AUPD-11 @deviation-RC-RPC-04 @RC-CFG-01 @RC-GEN-02 @RC-AUPD-01 @RC-RPC-01
  Scenario: Attribute-update and RPC rules need requestUrlExpression: the configuration names it in every rule and the calls go there
    # without it the downlink converter raises KeyError (json_rest_downlink_converter.py:39 and :52): no call is made,
    # and an RPC gets no reply (the platform answers 408)
    Then the connector's rest.json names every member 3.8.3 has no default for, of "RC-AUPD-11, RC-RPC-04"
    Given the connector has forwarded data of the device "<<dev-upd-url>>"
    When the platform sets the shared attributes of "<<dev-upd-url>>":
      """
      {"setpointTemp": 22.5}
      """
    Then the external API receives exactly 1 requests to "/upd/<<dev-upd-url>>/setpointTemp"
    Given the connector has forwarded data of the device "<<dev-rpc-url>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 3, \"field\": \"t\"}" to "<<dev-rpc-url>>"
    Then the external API receives exactly 1 requests to "/rpc/<<dev-rpc-url>>/setLevel/"

  @deviation-RC-AUPD-05
  Scenario: An attribute-update rule without security sends no Authorization header; a rule that names basic sends its credentials
    Given the connector has forwarded data of the device "<<upd-anon-REST>>"
    When the platform sets the shared attributes of "<<upd-anon-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/sensor/<<upd-anon-REST>>/data":
      | no header authorization |  |
    Given the connector has forwarded data of the device "<<dev-upd-basic>>"
    When the platform sets the shared attributes of "<<dev-upd-basic>>":
      """
      {"setpointTemp": 22.5}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-basic>>/setpointTemp":
      | basic | external:secret |

  @deviation-RC-ERR-01
  Scenario: 401 and 415 carry unsuccessfulResponse, but a method the endpoint does not list (405) and an uncaught error (500) get the web server's own page
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {"name": "<<rest-resp-gw-err>>", "v": 1.5}
      """
    Then the connector answers 200 with the body "Accepted by iotc"
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {}
      """
    # 3.8.3: 415 (no data); its twin refuses the missing device name (400)
    Then the connector answers a status other than 200 with the body "Refused by iotc"
    When the client sends GET "/response/hardcoded?name=<<rest-resp-gw-err>>&v=1.5"
    Then the connector answers 405 with the body "405: Method Not Allowed"
    When the client sends POST "/response/hardcoded" with JSON:
      """
      5
      """
    Then the connector answers 500 with a body starting "500 Internal Server Error"
    Given the client sends the Authorization header "Bearer iotc-conformance"
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {"name": "<<rest-resp-gw-err>>", "v": 2.5}
      """
    Then the connector answers 500 with a body starting "500 Internal Server Error"
    Given the client sends no credentials
    When the client sends POST "/response/hardcoded" with JSON:
      """
      {"name": "<<rest-resp-gw-err>>", "v": 3.5}
      """
    Then the connector answers 401 with the body "Refused by iotc"
