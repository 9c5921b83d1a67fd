@admin-auth @capability-api-keys
Feature: API keys of the administration REST API
  API keys need no login or refresh; they stay valid until disabled or until a chosen expiry date, and can be
  revoked. Requests carry X-Authorization: ApiKey <API_KEY>.

  Background:
    Given an API key of the tenant administrator

  @AUTH-03 @AUTH-KEY-01 @AUTH-02
  Scenario: An API key authenticates without login or refresh
    When the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is the tenant administrator
    And the list of API keys does not show the value of the key

  @AUTH-KEY-01
  Scenario: An API key still authenticates after the access token lifetime, without login or refresh
    Given the target's access token lifetime is short enough to wait for
    And a JWT from the tenant administrator's login
    When the access token lifetime has passed
    And the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is the tenant administrator

  @AUTH-KEY-02
  Scenario: A disabled API key is refused until it is enabled again
    When the API key is disabled
    And the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is 401
    When the API key is enabled
    And the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is the tenant administrator

  @AUTH-KEY-04
  Scenario: A revoked (deleted) API key is refused
    When the API key is deleted
    And the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is 401

  @AUTH-KEY-03
  Scenario: An API key is valid until its expiry date and refused after it
    Given an API key of the tenant administrator that expires in 800 ms
    When the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is the tenant administrator
    When the expiry date of the API key has passed
    And the current user is requested with X-Authorization "ApiKey <api key>"
    Then the answer is 401
