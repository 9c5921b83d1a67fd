@http-device-api
Feature: RPC over the HTTP device API
  A device receives server-side RPC requests by long-poll on GET /rpc?timeout=<ms> as {id, method, params} and
  answers with POST /rpc/{id}; the reply is relayed to the requester. A one-way RPC is delivered the same way.

  Background:
    Given a device "lamp" with an access token

  @HTTP-RPC-01 @HTTP-RPC-03
  Scenario: A two-way RPC reaches the polling device and its reply returns to the requester
    When the device "lamp" polls for an RPC for up to 5000 ms
    And the platform sends a two-way RPC "setBrightness" with params {"level": 80} to "lamp"
    Then the device "lamp" receives the RPC request "setBrightness" with params {"level": 80}
    When the device "lamp" replies to that RPC with {"level": 80, "applied": true}
    Then the response status is 200
    And the platform's RPC call to "lamp" answers 200 with {"level": 80, "applied": true}

  # The timeout parameter is optional (docs/reference/interfaces.md): without it the platform's default applies
  @HTTP-RPC-01
  Scenario: A poll without the optional timeout waits the platform's default and gets the RPC
    When the device "lamp" polls for an RPC without a timeout parameter
    And the RPC poll of "lamp" is still held
    And the platform sends a two-way RPC "setBrightness" with params {"level": 40} to "lamp"
    Then the device "lamp" receives the RPC request "setBrightness" with params {"level": 40}
    When the device "lamp" replies to that RPC with {"level": 40}
    Then the platform's RPC call to "lamp" answers 200 with {"level": 40}

  # The order is certain: a persistent RPC call answers once the RPC is stored and queued, and only then does the
  # device poll, so the poll can get it only from the queue (never from the event of an RPC sent during the poll).
  @HTTP-RPC-01 @capability-persistent-rpc
  Scenario: An RPC queued before the device polls is delivered at its next poll
    When the platform sends a persistent two-way RPC "getState" with params {} to "lamp"
    Then the platform's persistent RPC to "lamp" is QUEUED
    When the device "lamp" polls for an RPC for up to 5000 ms
    Then the device "lamp" receives the RPC request "getState" with params {}
    When the device "lamp" replies to that RPC with {"on": false}
    Then the response status is 200
    And the platform's persistent RPC to "lamp" eventually is SUCCESSFUL with the response {"on": false}

  @HTTP-RPC-05
  Scenario: A one-way RPC is delivered to the device
    When the device "lamp" polls for an RPC for up to 5000 ms
    And the platform sends a one-way RPC "blink" with params {"times": 3} to "lamp"
    Then the device "lamp" receives the RPC request "blink" with params {"times": 3}
    And the platform's RPC call to "lamp" answers 200

  @HTTP-RPC-05
  Scenario: A one-way RPC is delivered once: the next poll gets the next RPC, not the same one again
    When the device "lamp" polls for an RPC for up to 5000 ms
    And the platform sends a one-way RPC "blink" with params {"times": 1} to "lamp"
    Then the device "lamp" receives the RPC request "blink" with params {"times": 1}
    And the platform's RPC call to "lamp" answers 200
    When the platform sends a one-way RPC "dim" with params {"level": 5} to "lamp"
    And the device "lamp" polls for an RPC for up to 5000 ms
    Then the device "lamp" receives the RPC request "dim" with params {"level": 5}

  @HTTP-RPC-02
  Scenario: Without an RPC the poll ends at its timeout with 408 and an empty body
    When the device "lamp" polls for an RPC for up to 300 ms
    Then the RPC poll of "lamp" times out with 408 and an empty body after at least 300 ms

  @HTTP-RPC-03
  Scenario: The reply document reaches the requester as the device sent it, number types included
    When the device "lamp" polls for an RPC for up to 5000 ms
    And the platform sends a two-way RPC "readAll" with params {"detail": true} to "lamp"
    Then the device "lamp" receives the RPC request "readAll" with params {"detail": true}
    When the device "lamp" replies to that RPC with {"t": 21.0, "count": 9223372036854775807, "tags": ["a", {"b": null}], "ok": false}
    Then the response status is 200
    And the platform's RPC call to "lamp" answers 200 with {"t": 21.0, "count": 9223372036854775807, "tags": ["a", {"b": null}], "ok": false}
