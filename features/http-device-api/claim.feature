@http-device-api @capability-claiming
Feature: Device claiming over the HTTP device API
  A device posts {secretKey, durationMs} to /claim; during durationMs a customer can claim the device with that
  secret key. secretKey defaults to the empty string and durationMs to the platform's device.claim.duration.
  The platform may register a claim after it answered the device, so the customer claims until the registration is
  there. A claim that must fail is the second half of a scenario: a control device's claim, made the same way, is
  first claimed successfully, and the failing claim is tried only once that measured registration delay has passed.

  Background:
    Given a device "tracker" with an access token

  @HTTP-CLAIM-01
  Scenario: A customer claims the device with the secret key within the duration
    When the device "tracker" posts the claim {"secretKey": "s3cr3t-key", "durationMs": 60000}
    Then the response status is 200
    And the customer can claim "tracker" with the secret key "s3cr3t-key"

  @HTTP-CLAIM-01
  Scenario: A claim with another secret key fails
    Given a device "control" with an access token
    When the device "tracker" posts the claim {"secretKey": "right-key", "durationMs": 60000}
    Then the response status is 200
    When the device "control" posts the claim {"secretKey": "right-key", "durationMs": 60000}
    Then the response status is 200
    And the customer can claim "control" with the secret key "right-key"
    And the customer cannot claim "tracker" with the secret key "wrong-key"

  @HTTP-CLAIM-02
  Scenario: Without a secretKey the secret key is the empty string
    When the device "tracker" posts the claim {"durationMs": 60000}
    Then the response status is 200
    And the customer can claim "tracker" with the secret key ""

  @HTTP-CLAIM-03
  Scenario: The claim registration ends after durationMs
    Given a device "control" with an access token
    When the device "tracker" posts the claim {"secretKey": "brief", "durationMs": 400}
    Then the response status is 200
    When the device "control" posts the claim {"secretKey": "brief", "durationMs": 400}
    Then the response status is 200
    And the customer can claim "control" with the secret key "brief" within its 400 ms claim window
    And once its 400 ms claim window has ended, the customer cannot claim "tracker" with the secret key "brief"

  @HTTP-CLAIM-04 @HTTP-CLAIM-02
  Scenario: Without a body the claim uses device.claim.duration and the empty key
    When the device "tracker" posts the claim {}
    Then the response status is 200
    And the customer can claim "tracker" with the secret key ""

  @HTTP-CLAIM-04
  Scenario: Without durationMs the claim is registered for device.claim.duration
    When the device "tracker" posts the claim {"secretKey": "no-duration"}
    Then the response status is 200
    And the customer can claim "tracker" with the secret key "no-duration"

  @HTTP-CLAIM-04
  Scenario: Without durationMs the claim registration ends when device.claim.duration has passed
    Given a device "control" with an access token
    When the device "tracker" posts the claim {"secretKey": "default-window"}
    Then the response status is 200
    When the device "control" posts the claim {"secretKey": "default-window"}
    Then the response status is 200
    And the customer can claim "control" with the secret key "default-window"
    And once the platform's device.claim.duration has ended, the customer cannot claim "tracker" with the secret key "default-window"
