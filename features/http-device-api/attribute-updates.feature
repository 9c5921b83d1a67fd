@http-device-api
Feature: Shared attribute updates by long-poll
  GET /attributes/updates?timeout=<ms> waits for a server-side component (here the REST API) to change a shared
  attribute and answers with the updated shared attributes, or with a timeout answer when nothing changes in time.

  Background:
    Given a device "valve" with an access token

  @HTTP-UPD-01
  Scenario: A shared attribute changed through the REST API reaches the waiting device, and only the change does
    Given the platform sets the shared attributes of "valve" to {"mode": "auto"}
    And the platform eventually holds the shared attribute "mode" of "valve"
    And the device "valve" is waiting for shared attribute updates for up to 5000 ms
    When the platform sets the shared attributes of "valve" to {"position": 75, "unit": "percent"}
    Then the attribute updates poll of "valve" answers 200 with {"position": 75, "unit": "percent"}

  @HTTP-UPD-01
  Scenario: One change answers one poll: the next poll gets the next change, not the same one again
    Given the device "valve" is waiting for shared attribute updates for up to 5000 ms
    When the platform sets the shared attributes of "valve" to {"position": 10}
    Then the attribute updates poll of "valve" answers 200 with {"position": 10}
    Given the device "valve" is waiting for shared attribute updates for up to 5000 ms
    When the platform sets the shared attributes of "valve" to {"position": 20}
    Then the attribute updates poll of "valve" answers 200 with {"position": 20}

  # The timeout parameter is optional (docs/reference/interfaces.md): without it the platform's default applies (ThingsBoard: 60 s,
  # a monolith ends it at about 30 s), so the poll waits for the change like one with a timeout
  @HTTP-UPD-01
  Scenario: A poll without the optional timeout waits the platform's default and gets the change
    Given the device "valve" is waiting for shared attribute updates without a timeout parameter
    And the attribute updates poll of "valve" is still held
    When the platform sets the shared attributes of "valve" to {"position": 30}
    Then the attribute updates poll of "valve" answers 200 with {"position": 30}

  @HTTP-UPD-02
  Scenario: Without a change the poll ends at its timeout with 408 and an empty body
    When the device "valve" waits for shared attribute updates for up to 300 ms
    Then the attribute updates poll of "valve" times out with 408 and an empty body after at least 300 ms
