@http-device-api @capability-client-rpc
Feature: Client-side RPC over the HTTP device API
  A device sends a JSON document with POST /rpc and gets back a JSON document whose content is set by the rule
  node that handles the request.

  Background:
    Given a device "lamp" with an access token

  @HTTP-RPC-04
  Scenario: A client-side RPC is answered with a JSON document
    When the device "lamp" sends the client-side RPC {"method": "getCurrentTime", "params": {}}
    Then the response status is 200
    And the response body is a JSON document
