@robustness @capability-robustness
Feature: Clients that misbehave on the connection
  A client that stops reading, sends bytes that are not MQTT or never sends its CONNECT costs the platform a bounded
  amount and ends its own connection only; many long-polls held at once hold up no other request. Each scenario
  checks that a well-behaved device is served while the misbehaving client is there (a bare connection without
  CONNECT is opened last: the target's CONNECT timeout runs from then).

  @ROB-SLOW-01
  Scenario: An MQTT client that stops reading is disconnected or loses updates, never buffered without bound
    Given an MQTT device "slow" on a bare connection
    And a device "calm" with an access token
    When the bare connection "slow" subscribes to its attribute updates and stops reading
    And the platform sends 96 shared attribute updates of 262144 bytes to "slow"
    Then the device "calm" is served meanwhile
    When the bare connection "slow" reads again
    Then the target has disconnected "slow" or dropped some of the 96 updates

  @ROB-CONN-01
  Scenario: A connected MQTT client that sends bytes that are not MQTT is disconnected
    Given an MQTT device "noisy" on a bare connection
    And a device "calm" with an access token
    When the bare connection "noisy" sends bytes that are not MQTT
    Then the target closes the bare connection "noisy"
    And the device "calm" is served meanwhile

  @ROB-CONN-01
  Scenario: A TCP connection that sends bytes that are not MQTT instead of a CONNECT is closed
    Given a device "calm" with an access token
    And a bare TCP connection "noisy" to the MQTT transport that sends nothing
    When the bare connection "noisy" sends bytes that are not MQTT
    Then the target closes the bare connection "noisy"
    And the device "calm" is served meanwhile

  @ROB-CONN-02
  Scenario: A TCP connection that never sends CONNECT is closed once the CONNECT timeout has passed
    Given a device "calm" with an access token
    And a bare TCP connection "silent" to the MQTT transport that sends nothing
    Then the device "calm" is served meanwhile
    And the target closes the bare connection "silent" once its CONNECT timeout has passed

  @ROB-CONN-02
  Scenario: A CONNECT sent one byte at a time is closed once the CONNECT timeout has passed since the connection opened
    Given a device "calm" with an access token
    And a bare TCP connection "dripping" to the MQTT transport that sends nothing
    When the bare connection "dripping" sends a CONNECT one byte at a time
    Then the device "calm" is served meanwhile
    And the target closes the bare connection "dripping" once its CONNECT timeout has passed

  @deviation-ROB-SLOW-01
  Scenario: ThingsBoard queues every update for an MQTT client that stops reading and keeps it connected
    Given an MQTT device "slow" on a bare connection
    And a device "calm" with an access token
    When the bare connection "slow" subscribes to its attribute updates and stops reading
    And the platform sends 96 shared attribute updates of 262144 bytes to "slow"
    Then the device "calm" is served meanwhile
    When the bare connection "slow" reads again
    Then the target has delivered all 96 updates to "slow" and kept it connected

  @deviation-ROB-CONN-02
  Scenario: ThingsBoard keeps a TCP connection that never sends CONNECT open past the CONNECT timeout
    Given a device "calm" with an access token
    And a bare TCP connection "silent" to the MQTT transport that sends nothing
    And a bare TCP connection "noisy" to the MQTT transport that sends nothing
    When the bare connection "noisy" sends bytes that are not MQTT
    Then the target closes the bare connection "noisy"
    And the device "calm" is served meanwhile
    And the bare connection "silent" is still open once the CONNECT timeout has passed
    When the bare connection "silent" connects as the device "calm" and is accepted

  @ROB-POLL-01
  Scenario: 200 long-polls held at once hold up no other request
    Given 200 devices "poller" each waiting for shared attribute updates
    And a device "calm" with an access token
    When the platform sets a shared attribute of "poller-200" and its poll answers with it
    Then the device "calm" is served meanwhile
    And every other poll is answered 408 after "calm" was served
