@rest-connector @capability-rest-connector
Feature: REST connector requestsMapping: attribute requests, attribute updates, server-side RPC
  attributeRequests are endpoints that ask the platform for attributes of a device. attributeUpdates and
  serverSideRpc turn the platform's shared-attribute updates and RPC commands for the connector's devices into
  outgoing HTTP calls, here to the external-API simulator (${external} in a step is its URL).

  @RC-AREQ-01 @RC-AREQ-02 @RC-AREQ-03 @RC-AREQ-06 @RC-AREQ-07
  Scenario: An attribute-request endpoint answers shared attributes named by several expressions
    Given the connector has forwarded data of the device "<<rest-areq>>"
    When the platform sets the shared attributes of "<<rest-areq>>":
      """
      {"setpoint": 21.5, "mode": "eco", "unrelated": 1}
      """
    And the client sends POST "/attributes/shared" with JSON:
      """
      {"deviceName": "<<rest-areq>>", "first": "setpoint", "second": "mode"}
      """
    Then the connector answers 200 with a JSON body holding:
      """
      {"setpoint": 21.5, "mode": "eco"}
      """

  @RC-AREQ-02 @RC-AREQ-03
  Scenario: A client-type attribute-request endpoint answers client attributes, with its own methods
    Given the connector has forwarded data of the device "<<rest-areq-client>>"
    When the client sends GET "/attributes/client?device=<<rest-areq-client>>&key=model"
    Then the connector answers 200 with a JSON body holding:
      """
      {"model": "M1"}
      """
    When the client sends POST "/attributes/client?device=<<rest-areq-client>>&key=model"
    Then the connector answers 405

  @RC-AREQ-04
  Scenario: An attribute-request endpoint with basic security refuses a request without credentials
    Given the client sends no credentials
    When the client sends GET "/attributes/client?device=<<rest-areq-refused>>&key=model"
    Then the connector answers 401

  @RC-AREQ-01 @RC-AREQ-02 @RC-AREQ-03 @RC-AREQ-04 @RC-AREQ-06 @RC-AREQ-07
  Scenario: An empty attributeRequests entry serves POST /sharedAttributes with basic security, ${deviceName} and ${attribute}
    Given the connector has forwarded data of the device "<<rest-areq-defaults>>"
    When the platform sets the shared attributes of "<<rest-areq-defaults>>":
      """
      {"mode": "away"}
      """
    And the client sends POST "/sharedAttributes" with JSON:
      """
      {"deviceName": "<<rest-areq-defaults>>", "attribute": "mode"}
      """
    Then the connector answers 200 with a JSON body holding:
      """
      {"mode": "away"}
      """
    When the client sends GET "/sharedAttributes?deviceName=<<rest-areq-defaults>>&attribute=mode"
    Then the connector answers 405

  @RC-GEN-02 @RC-AUPD-01 @RC-AUPD-05 @RC-AUPD-11
  Scenario: A shared-attribute update matching a rule is sent to the rule's URL with the rule's security
    Given the connector has forwarded data of the device "<<dev-upd-target>>"
    And the connector has forwarded data of the device "<<upd-target-REST>>"
    When the platform sets the shared attributes of "<<dev-upd-target>>":
      """
      {"setpointTarget": 1}
      """
    And the platform sets the shared attributes of "<<upd-target-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-target>>/setpointTarget":
      | path  | /upd/<<dev-upd-target>>/setpointTarget |
      | basic | external:secret                        |
    And the external API eventually receives a request to "/sensor/<<upd-target-REST>>/data":
      | path                    | /sensor/<<upd-target-REST>>/data |
      | no header authorization |                                  |

  @RC-AUPD-02
  Scenario: httpMethod is the method of the outgoing call, POST by default
    Given the connector has forwarded data of the device "<<dev-upd-method>>"
    And the connector has forwarded data of the device "<<upd-method-REST>>"
    When the platform sets the shared attributes of "<<dev-upd-method>>":
      """
      {"setpointMethod": 1}
      """
    And the platform sets the shared attributes of "<<upd-method-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-method>>/setpointMethod":
      | method | PUT |
    And the external API eventually receives a request to "/sensor/<<upd-method-REST>>/data":
      | method | POST |

  @RC-AUPD-04
  Scenario: httpHeaders are sent with the outgoing call, CONTENT-TYPE application/json by default
    Given the connector has forwarded data of the device "<<dev-upd-headers>>"
    And the connector has forwarded data of the device "<<upd-headers-REST>>"
    When the platform sets the shared attributes of "<<dev-upd-headers>>":
      """
      {"setpointHeaders": 1}
      """
    And the platform sets the shared attributes of "<<upd-headers-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-headers>>/setpointHeaders":
      | header x-iotc       | conformance      |
      | header content-type | application/json |
    And the external API eventually receives a request to "/sensor/<<upd-headers-REST>>/data":
      | header content-type | application/json |

  @RC-AUPD-12
  Scenario: valueExpression is the body of the outgoing call, {"${attributeKey}":"${attributeValue}"} by default
    Given the connector has forwarded data of the device "<<dev-upd-1>>"
    And the connector has forwarded data of the device "<<upd-REST>>"
    When the platform sets the shared attributes of "<<dev-upd-1>>":
      """
      {"setpointTemp": 22.5}
      """
    And the platform sets the shared attributes of "<<upd-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-1>>/setpointTemp":
      | json body | {"setpointTemp": 22.5, "device": "<<dev-upd-1>>"} |
    And the external API eventually receives a request to "/sensor/<<upd-REST>>/data":
      | json body | {"data": "on"} |

  @RC-AUPD-09 @RC-AUPD-10
  Scenario: Only the attributes the attributeFilter matches are sent, data by default
    Given the connector has forwarded data of the device "<<dev-upd-filter>>"
    And the connector has forwarded data of the device "<<upd-filter-REST>>"
    When the platform sets the shared attributes of "<<dev-upd-filter>>":
      """
      {"setpointFilter": 22.5, "other": 1}
      """
    And the platform sets the shared attributes of "<<upd-filter-REST>>":
      """
      {"data": "on", "notdata": "off"}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-filter>>/setpointFilter":
      | path | /upd/<<dev-upd-filter>>/setpointFilter |
    And the external API eventually receives a request to "/sensor/<<upd-filter-REST>>/data":
      | path | /sensor/<<upd-filter-REST>>/data |
    And the external API receives no request to "/upd/<<dev-upd-filter>>/other"
    And the external API receives no request to "/sensor/<<upd-filter-REST>>/notdata"

  @RC-AUPD-09
  Scenario: A device whose name the filter does not match gets no outgoing call
    Given the connector has forwarded data of the device "<<upd-REST-not>>"
    When the platform sets the shared attributes of "<<upd-REST-not>>":
      """
      {"data": "on"}
      """
    Then the external API receives no request to "/sensor/<<upd-REST-not>>"

  @RC-AUPD-07
  Scenario: An external API that stays down gets exactly tries attempts
    Given the external API fails every request to "/down/<<upd-down-1>>"
    And the connector has forwarded data of the device "<<upd-down-1>>"
    When the platform sets the shared attributes of "<<upd-down-1>>":
      """
      {"anything": 1}
      """
    Then the external API receives exactly 3 requests to "/down/<<upd-down-1>>"

  @RC-AUPD-07
  Scenario: Without tries, an external API that stays down gets 3 attempts
    Given the external API fails every request to "/sensor/<<upd-down-REST>>"
    And the connector has forwarded data of the device "<<upd-down-REST>>"
    When the platform sets the shared attributes of "<<upd-down-REST>>":
      """
      {"data": 1}
      """
    Then the external API receives exactly 3 requests to "/sensor/<<upd-down-REST>>"

  @RC-AUPD-06 @RC-AUPD-07
  Scenario: An attempt that gets no answer within timeout seconds is abandoned and tried again
    Given the external API answers requests to "/slow/<<upd-slow-1>>" after 600 ms
    And the connector has forwarded data of the device "<<upd-slow-1>>"
    When the platform sets the shared attributes of "<<upd-slow-1>>":
      """
      {"anything": 1}
      """
    Then the external API receives exactly 2 requests to "/slow/<<upd-slow-1>>"
    And the requests to "/slow/<<upd-slow-1>>" came at least 200 ms apart

  @RC-AUPD-08
  Scenario: allowRedirects true follows a redirect
    Given the external API redirects requests to "/redir/<<upd-redir-1>>" to "/redirected/<<upd-redir-1>>"
    And the connector has forwarded data of the device "<<upd-redir-1>>"
    When the platform sets the shared attributes of "<<upd-redir-1>>":
      """
      {"anything": 1}
      """
    Then the external API eventually receives a request to "/redirected/<<upd-redir-1>>":
      | path | /redirected/<<upd-redir-1>>?redirected=1 |

  @RC-AUPD-08
  Scenario: allowRedirects false does not follow a redirect
    Given the external API redirects requests to "/noredir/<<upd-noredir-1>>" to "/redirected/<<upd-noredir-1>>"
    And the connector has forwarded data of the device "<<upd-noredir-1>>"
    When the platform sets the shared attributes of "<<upd-noredir-1>>":
      """
      {"anything": 1}
      """
    Then the external API eventually receives a request to "/noredir/<<upd-noredir-1>>":
      | method | POST |
    And the external API receives no request to "/redirected/<<upd-noredir-1>>"

  @RC-AUPD-03
  Scenario: SSLVerify false accepts an untrusted certificate, SSLVerify true refuses it
    Given the external API answers over HTTPS with a certificate nobody trusts
    And the connector has forwarded data of the device "<<upd-tls-1>>"
    When the platform sets the shared attributes of "<<upd-tls-1>>":
      """
      {"unverified": 1, "verified": 2}
      """
    Then the external API eventually receives a request to "/tls/<<upd-tls-1>>/unverified":
      | method | POST |
    And the external API receives no request to "/tls/<<upd-tls-1>>/verified"

  @RC-RPC-01 @RC-RPC-04 @RC-RPC-12
  Scenario: A server-side RPC matching a rule is sent to the rule's URL with the rule's security, anonymous by default
    Given the connector has forwarded data of the device "<<dev-rpc-target>>"
    And the connector has forwarded data of the device "<<rest-echo-target>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 3, \"field\": \"t\"}" to "<<dev-rpc-target>>"
    And the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo-target>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-target>>/setLevel/":
      | basic | external:secret |
    And the external API eventually receives a request to "/rpcdefault/<<rest-echo-target>>":
      | path                    | /rpcdefault/<<rest-echo-target>> |
      | no header authorization |                                  |

  @RC-RPC-05
  Scenario: ${requestId} is the id of the RPC, ${params.field} a member of its params
    Given the connector has forwarded data of the device "<<dev-rpc-2>>"
    When the platform sends the RPC "getLevel" with params "{\"level\": 1, \"field\": \"xyz\"}" to "<<dev-rpc-2>>"
    Then the RPC reply holds:
      """
      {"status": "ok"}
      """
    And the external API records an RPC request id in "/rpc/<<dev-rpc-2>>/getLevel/" with the query "?field=xyz"

  @RC-RPC-13
  Scenario: The answer of the external call is the RPC reply
    Given the external API answers requests to "/rpc/<<dev-rpc-1>>/setLevel" with status 200 and body "{\"applied\": true, \"level\": 7}"
    And the connector has forwarded data of the device "<<dev-rpc-1>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-1>>"
    Then the RPC reply holds:
      """
      {"applied": true, "level": 7}
      """

  @RC-RPC-02 @RC-RPC-03
  Scenario: A rule without filters takes any device and only the method echo
    Given the connector has forwarded data of the device "<<echo-filtered>>"
    When the platform sends the RPC "other" with params "{\"x\": 1}" to "<<echo-filtered>>"
    And the platform sends the RPC "echo" with params "{\"x\": 2}" to "<<echo-filtered>>"
    Then the external API receives exactly 1 requests to "/rpcdefault/<<echo-filtered>>"

  @RC-RPC-07
  Scenario: httpMethod is the method of the outgoing call, GET by default
    Given the connector has forwarded data of the device "<<dev-rpc-method>>"
    And the connector has forwarded data of the device "<<rest-echo-method>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-method>>"
    And the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo-method>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-method>>/setLevel/":
      | method | POST |
    And the external API eventually receives a request to "/rpcdefault/<<rest-echo-method>>":
      | method | GET |

  @RC-RPC-08
  Scenario: valueExpression is the body of the outgoing call and addresses params
    Given the connector has forwarded data of the device "<<dev-rpc-body>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-body>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-body>>/setLevel/":
      | json body | {"level": 7, "params": {"level": 7, "field": "abc"}} |

  @RC-RPC-11
  Scenario: httpHeaders are sent with the outgoing call, CONTENT-TYPE application/json by default
    Given the connector has forwarded data of the device "<<dev-rpc-headers>>"
    And the connector has forwarded data of the device "<<rest-echo-headers>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-headers>>"
    And the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo-headers>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-headers>>/setLevel/":
      | header x-iotc       | rpc              |
      | header content-type | application/json |
    And the external API eventually receives a request to "/rpcdefault/<<rest-echo-headers>>":
      | header content-type | application/json |

  @RC-RPC-10 @RC-RPC-13
  Scenario: An external API that stays down gets exactly tries attempts and the reply says why
    Given the external API fails every request to "/rpcdown/<<dev-rpcdown-1>>"
    And the connector has forwarded data of the device "<<dev-rpcdown-1>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcdown-1>>"
    Then the RPC reply is an error mentioning "503"
    And the external API receives exactly 3 requests to "/rpcdown/<<dev-rpcdown-1>>"

  @RC-RPC-10
  Scenario: Without tries, an RPC call to an external API that stays down is attempted 3 times
    Given the external API fails every request to "/rpcdefault/<<rest-echo-down>>"
    And the connector has forwarded data of the device "<<rest-echo-down>>"
    When the platform sends the RPC "echo" with params "{}" to "<<rest-echo-down>>"
    Then the RPC reply is an error mentioning "503"
    And the external API receives exactly 3 requests to "/rpcdefault/<<rest-echo-down>>"

  @RC-RPC-06 @RC-RPC-09
  Scenario: No answer within responseTimeout seconds ends the call with an error reply
    Given the external API answers requests to "/rpcslow/<<dev-rpcslow-1>>" after 1500 ms
    And the connector has forwarded data of the device "<<dev-rpcslow-1>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcslow-1>>"
    Then the RPC reply is an error mentioning "no answer within 0.3 s"

  @RC-RPC-16 @RC-RPC-17
  Scenario: The built-in SET method makes the call its params describe
    Given the external API answers requests to "/builtin/<<rest-set>>" with status 200 and body "{\"stored\": 80}"
    And the connector has forwarded data of the device "<<rest-set>>"
    When the platform sends the RPC "set" to "<<rest-set>>" with params:
      """
      {"requestUrlExpression": "${external}/builtin/<<rest-set>>/level", "responseTimeout": 1, "httpMethod": "POST",
       "valueExpression": "{\"level\": ${params.level}}", "level": 80}
      """
    Then the RPC reply holds:
      """
      {"stored": 80}
      """
    And the external API eventually receives a request to "/builtin/<<rest-set>>/level":
      | method    | POST           |
      | json body | {"level": 80}  |

  @RC-RPC-17
  Scenario: The built-in GET method needs requestUrlExpression, responseTimeout, httpMethod and valueExpression
    Given the connector has forwarded data of the device "<<rest-get-builtin>>"
    When the platform sends the RPC "get" with params "{\"requestUrlExpression\": \"${external}/builtin/x\"}" to "<<rest-get-builtin>>"
    Then the RPC reply is an error mentioning "responseTimeout, httpMethod, valueExpression"
