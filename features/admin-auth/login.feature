@admin-auth
Feature: Login and JWT authentication of the administration REST API
  POST /api/auth/login exchanges user name and password for a JWT access token and a refresh token; requests carry
  X-Authorization: Bearer <JWT>. Token lifetimes default to 2.5 hours and 1 week and are set by
  JWT_TOKEN_EXPIRATION_TIME and JWT_REFRESH_TOKEN_EXPIRATION_TIME.

  @AUTH-01
  Scenario: Login answers a JWT access token and a refresh token
    When the tenant administrator logs in with user name and password
    Then the login answers a JWT access token and a refresh token

  @AUTH-01
  Scenario: A wrong password gets no token
    When the tenant administrator logs in with a wrong password
    Then the answer is refused with 401 and errorCode 10

  @AUTH-02 @AUTH-04
  Scenario: The current user is answered for X-Authorization: Bearer <JWT>
    Given a JWT from the tenant administrator's login
    When the current user is requested with X-Authorization "Bearer <jwt>"
    Then the answer is the tenant administrator

  @AUTH-JWT-01
  Scenario: By default the access token lives 2.5 hours and the refresh token 1 week
    Given the target runs with the default token lifetimes
    And a JWT from the tenant administrator's login
    Then the access token lives 9000 s and the refresh token 604800 s

  @AUTH-JWT-02
  Scenario: The token lifetimes are the ones the target is configured with
    Given the target's token lifetimes are known
    And a JWT from the tenant administrator's login
    Then the tokens live as long as the target states

  @AUTH-JWT-02
  Scenario: An access token is refused once its lifetime has passed, and the refresh token gives a new one
    Given the target's access token lifetime is short enough to wait for
    And a JWT from the tenant administrator's login
    When the current user is requested with X-Authorization "Bearer <jwt>"
    Then the answer is the tenant administrator
    When the access token lifetime has passed
    And the current user is requested with X-Authorization "Bearer <jwt>"
    Then the answer is refused with 401 and errorCode 11
    When the refresh token is exchanged for a new token pair
    And the current user is requested with X-Authorization "Bearer <jwt>"
    Then the answer is the tenant administrator

  @AUTH-05
  Scenario: A refresh token is refused once its lifetime has passed
    Given the target's refresh token lifetime is short enough to wait for
    And a JWT from the tenant administrator's login
    Then the refresh token lives as long as the target states
    When the refresh token is offered for a new token pair
    Then the answer is 200
    When the refresh token lifetime has passed
    And the refresh token is offered for a new token pair
    Then the answer is refused with 401 and errorCode 11
