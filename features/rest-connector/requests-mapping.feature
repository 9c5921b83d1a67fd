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
    Then the connector answers 200 with exactly the JSON body:
      """
      {"setpoint": 21.5, "mode": "eco"}
      """

  @RC-AREQ-02 @RC-AREQ-03
  Scenario: A client-type attribute-request endpoint answers client attributes, with its own methods
    Given the connector has forwarded data of the device "<<rest-areq-client>>"
    When the client sends GET "/attributes/client?device=<<rest-areq-client>>&key=model"
    Then the connector answers 200 with exactly the JSON body:
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
    Then the connector answers 200 with exactly the JSON body:
      """
      {"mode": "away"}
      """
    When the client sends GET "/sharedAttributes?deviceName=<<rest-areq-defaults>>&attribute=mode"
    Then the connector answers 405
    Given the client sends no credentials
    When the client sends POST "/sharedAttributes" with JSON:
      """
      {"deviceName": "<<rest-areq-defaults>>", "attribute": "mode"}
      """
    Then the connector answers 401

  @RC-CFG-01 @RC-GEN-02 @RC-AUPD-01 @RC-AUPD-11
  Scenario: A shared-attribute update that a rule's filters match becomes one call to the rule's URL
    Given the connector has forwarded data of the device "<<dev-upd-1>>"
    When the platform sets the shared attributes of "<<dev-upd-1>>":
      """
      {"setpointTemp": 22.5}
      """
    Then the external API receives exactly 1 requests to "/upd/<<dev-upd-1>>/setpointTemp"

  @RC-AUPD-11
  Scenario: A rule without requestUrlExpression sends to sensor/${deviceName}/${attributeKey}, over http:// to the host sensor
    Given the connector's network delivers calls to "sensor:80" to the external API
    And the connector has forwarded data of the device "<<dev-urlupd-1>>"
    When the platform sets the shared attributes of "<<dev-urlupd-1>>":
      """
      {"data": 5}
      """
    Then the external API eventually receives a request to "/<<dev-urlupd-1>>/data":
      | header host | sensor |

  @RC-AUPD-10
  Scenario: Every updated attribute that the attributeFilter matches becomes its own call, the others none
    Given the connector has forwarded data of the device "<<dev-upd-keys>>"
    When the platform sets the shared attributes of "<<dev-upd-keys>>":
      """
      {"setpointTemp": 22.5, "other": 1, "setpointHum": 40}
      """
    Then the external API receives exactly 1 requests to "/upd/<<dev-upd-keys>>/setpointTemp"
    And the external API receives exactly 1 requests to "/upd/<<dev-upd-keys>>/setpointHum"
    And the external API receives no request to "/upd/<<dev-upd-keys>>/other"

  Scenario Outline: The call of a matching update carries the rule's <member>
    Given the connector has forwarded data of the device "<<dev-upd-<device>>>"
    When the platform sets the shared attributes of "<<dev-upd-<device>>>":
      """
      {"setpointTemp": 22.5}
      """
    Then the external API eventually receives a request to "/upd/<<dev-upd-<device>>>/setpointTemp":
      | <what> | <expected> |

    @RC-AUPD-02
    Examples:
      | member     | device | what   | expected |
      | httpMethod | m      | method | PUT      |

    @RC-AUPD-04
    Examples:
      | member      | device | what                | expected         |
      | httpHeaders | h1     | header x-iotc       | conformance      |
      | httpHeaders | h2     | header content-type | application/json |

    @RC-AUPD-05
    Examples:
      | member   | device | what  | expected        |
      | security | s      | basic | external:secret |

    @RC-AUPD-12
    Examples:
      | member          | device | what      | expected                                           |
      | valueExpression | v      | json body | {"setpointTemp": 22.5, "device": "<<dev-upd-v>>"} |

  @RC-AUPD-09 @RC-AUPD-10
  Scenario: Without filters, a device whose name ends in REST gets a call for its attribute data only
    Given the connector has forwarded data of the device "<<upd-REST>>"
    When the platform sets the shared attributes of "<<upd-REST>>":
      """
      {"data": "on", "notdata": "off"}
      """
    Then the external API receives exactly 1 requests to "/sensor/<<upd-REST>>/data"
    And the external API receives no request to "/sensor/<<upd-REST>>/notdata"

  Scenario Outline: Without <member>, the call of an update has <default>
    Given the connector has forwarded data of the device "<<upd-<device>-REST>>"
    When the platform sets the shared attributes of "<<upd-<device>-REST>>":
      """
      {"data": "on"}
      """
    Then the external API eventually receives a request to "/sensor/<<upd-<device>-REST>>/data":
      | <what> | <expected> |

    @RC-AUPD-02
    Examples:
      | member     | default     | device | what   | expected |
      | httpMethod | method POST | m      | method | POST     |

    @RC-AUPD-04
    Examples:
      | member      | default                       | device | what                | expected         |
      | httpHeaders | CONTENT-TYPE application/json | h      | header content-type | application/json |

    @RC-AUPD-05
    Examples:
      | member   | default             | device | what         | expected |
      | security | basic authorization | s      | basic scheme |          |

    @RC-AUPD-12
    Examples:
      | member          | default                 | device | what      | expected       |
      | valueExpression | the body {"data": "on"} | v      | json body | {"data": "on"} |

  @RC-AUPD-09
  Scenario: A device whose name the filter does not match gets no outgoing call
    Given the connector has forwarded data of the device "<<upd-REST-not>>"
    When the platform sets the shared attributes of "<<upd-REST-not>>":
      """
      {"data": "on", "setpointData": 1}
      """
    Then the external API eventually receives a request to "/upd/<<upd-REST-not>>/setpointData":
      | method | PUT |
    And the external API receives no request to "/sensor/<<upd-REST-not>>"

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

  @RC-AUPD-06
  Scenario: An attempt answered within timeout seconds is not tried again
    Given the external API answers requests to "/patient/<<upd-patient-1>>" after 1000 ms
    And the connector has forwarded data of the device "<<upd-patient-1>>"
    When the platform sets the shared attributes of "<<upd-patient-1>>":
      """
      {"anything": 1}
      """
    Then the external API receives exactly 1 requests to "/patient/<<upd-patient-1>>"

  @RC-AUPD-06
  Scenario: Without timeout, an attempt not answered within 0.5 s is given up and tried again
    Given the external API answers requests to "/sensor/<<upd-late-REST>>" after 1500 ms
    And the connector has forwarded data of the device "<<upd-late-REST>>"
    When the platform sets the shared attributes of "<<upd-late-REST>>":
      """
      {"data": 1}
      """
    Then the external API eventually receives at least 2 requests to "/sensor/<<upd-late-REST>>"

  @RC-AUPD-06
  Scenario: Without timeout, an attempt answered well within 0.5 s is not tried again
    Given the external API answers requests to "/sensor/<<upd-prompt-REST>>" after 250 ms
    And the connector has forwarded data of the device "<<upd-prompt-REST>>"
    When the platform sets the shared attributes of "<<upd-prompt-REST>>":
      """
      {"data": 1}
      """
    Then the external API receives exactly 1 requests to "/sensor/<<upd-prompt-REST>>"

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

  @RC-RPC-01 @RC-RPC-04
  Scenario: A server-side RPC matching a rule becomes one call to the rule's URL
    Given the connector has forwarded data of the device "<<dev-rpc-target>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 3, \"field\": \"t\"}" to "<<dev-rpc-target>>"
    Then the external API receives exactly 1 requests to "/rpc/<<dev-rpc-target>>/setLevel/"

  @RC-RPC-04
  Scenario: A rule without requestUrlExpression calls http://127.0.0.1:5001/${deviceName}
    Given the connector's network delivers calls to "127.0.0.1:5001" to the external API
    And the connector has forwarded data of the device "<<dev-rpcurl-1>>"
    When the platform sends the RPC "locate" with params "{}" to "<<dev-rpcurl-1>>"
    Then the external API eventually receives a request to "/<<dev-rpcurl-1>>":
      | header host | 127.0.0.1:5001 |

  @RC-RPC-13
  Scenario: The answer of the external call is the RPC reply
    Given the external API answers requests to "/rpc/<<dev-rpc-1>>/setLevel" with status 200 and body "{\"applied\": true, \"level\": 7}"
    And the connector has forwarded data of the device "<<dev-rpc-1>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-1>>"
    Then the RPC reply holds:
      """
      {"applied": true, "level": 7}
      """

  Scenario Outline: The call of a matching RPC carries the rule's <member>
    Given the connector has forwarded data of the device "<<dev-rpc-<device>>>"
    When the platform sends the RPC "setLevel" with params "{\"level\": 7, \"field\": \"abc\"}" to "<<dev-rpc-<device>>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-<device>>>/setLevel/":
      | <what> | <expected> |

    @RC-RPC-07
    Examples:
      | member     | device | what   | expected |
      | httpMethod | m      | method | POST     |

    @RC-RPC-08
    Examples:
      | member          | device | what      | expected                                              |
      | valueExpression | v      | json body | {"level": 7, "params": {"level": 7, "field": "abc"}} |

    @RC-RPC-11
    Examples:
      | member      | device | what                | expected         |
      | httpHeaders | h1     | header x-iotc       | rpc              |
      | httpHeaders | h2     | header content-type | application/json |

    @RC-RPC-12
    Examples:
      | member   | device | what  | expected        |
      | security | s      | basic | external:secret |

  @RC-RPC-02 @RC-RPC-03
  Scenario: An RPC whose device or method no rule's filters match is not sent
    Given the connector has forwarded data of the device "<<rpcsel-plain>>"
    And the connector has forwarded data of the device "<<dev-rpc-sel>>"
    When the platform sends the one-way RPC "setLevel" with params "{\"level\": 1}" to "<<rpcsel-plain>>"
    And the platform sends the one-way RPC "other" with params "{\"level\": 2}" to "<<dev-rpc-sel>>"
    And the platform sends the one-way RPC "setLevel" with params "{\"level\": 3, \"field\": \"f\"}" to "<<dev-rpc-sel>>"
    Then the external API eventually receives a request to "/rpc/<<dev-rpc-sel>>/setLevel/":
      | method | POST |
    And the external API receives no request to "/rpc/<<rpcsel-plain>>"
    And the external API receives no request to "/rpcdefault/<<rpcsel-plain>>"
    And the external API receives no request to "/rpc/<<dev-rpc-sel>>/other"
    And the external API receives no request to "/rpcdefault/<<dev-rpc-sel>>"

  @RC-RPC-08
  Scenario: Without valueExpression the body is the RPC's params
    Given the connector has forwarded data of the device "<<dev-rpcbody-1>>"
    When the platform sends the RPC "store" with params "{\"x\": 1, \"name\": \"a\"}" to "<<dev-rpcbody-1>>"
    Then the RPC reply holds:
      """
      {"status": "ok"}
      """
    And the external API eventually receives a request to "/rpcbody/<<dev-rpcbody-1>>":
      | json body | {"x": 1, "name": "a"} |

  @RC-RPC-09
  Scenario: An attempt not answered within timeout seconds is given up, well before responseTimeout
    Given the external API answers requests to "/rpcdown/<<dev-rpcdown-2>>" after 1000 ms
    And the connector has forwarded data of the device "<<dev-rpcdown-2>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcdown-2>>"
    Then the RPC reply is an error mentioning "no answer within 0.3 s"
    And the external API receives exactly 2 requests to "/rpcdown/<<dev-rpcdown-2>>"

  @RC-RPC-06 @RC-RPC-09
  Scenario: Without responseTimeout and timeout, attempts of 0.5 s are made until 1 s has passed
    Given the external API answers requests to "/rpcbody/<<dev-rpcbody-late>>" after 1500 ms
    And the connector has forwarded data of the device "<<dev-rpcbody-late>>"
    When the platform sends the RPC "store" with params "{}" to "<<dev-rpcbody-late>>"
    Then the RPC reply is an error
    And the external API receives exactly 2 requests to "/rpcbody/<<dev-rpcbody-late>>"

  @RC-RPC-05
  Scenario: ${requestId} is the id of the RPC, ${params.field} a member of its params
    Given the connector has forwarded data of the device "<<dev-rpc-2>>"
    When the platform sends the RPC "getLevel" with params "{\"level\": 1, \"field\": \"xyz\"}" to "<<dev-rpc-2>>"
    Then the RPC reply holds:
      """
      {"status": "ok"}
      """
    And the external API records an RPC request id in "/rpc/<<dev-rpc-2>>/getLevel/" with the query "?field=xyz"

  @RC-RPC-02 @RC-RPC-03
  Scenario: Without filters, the RPC echo of any device is sent and its answer is the reply
    Given the external API answers requests to "/rpcdefault/<<rest-echo>>" with status 200 and body "{\"echoed\": true}"
    And the connector has forwarded data of the device "<<rest-echo>>"
    When the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo>>"
    Then the RPC reply holds:
      """
      {"echoed": true}
      """

  Scenario Outline: Without <member>, the call of an RPC has <default>
    Given the connector has forwarded data of the device "<<rest-echo-<device>>>"
    When the platform sends the RPC "echo" with params "{\"x\": 1}" to "<<rest-echo-<device>>>"
    Then the external API eventually receives a request to "/rpcdefault/<<rest-echo-<device>>>":
      | <what> | <expected> |

    @RC-RPC-07
    Examples:
      | member     | default    | device | what   | expected |
      | httpMethod | method GET | m      | method | GET      |

    @RC-RPC-11
    Examples:
      | member      | default                       | device | what                | expected         |
      | httpHeaders | CONTENT-TYPE application/json | h      | header content-type | application/json |

    @RC-RPC-12
    Examples:
      | member   | default          | device | what                    | expected |
      | security | no Authorization | s      | no header authorization |          |

  @RC-RPC-10 @RC-RPC-13
  Scenario: An external API that stays down gets exactly tries attempts and the reply says why
    Given the external API fails every request to "/rpcdown/<<dev-rpcdown-1>>"
    And the connector has forwarded data of the device "<<dev-rpcdown-1>>"
    When the platform sends the RPC "anything" with params "{}" to "<<dev-rpcdown-1>>"
    Then the RPC reply is an error mentioning "503"
    And the external API receives exactly 2 requests to "/rpcdown/<<dev-rpcdown-1>>"

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
