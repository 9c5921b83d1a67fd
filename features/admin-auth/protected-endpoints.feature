@admin-auth
Feature: Every protected endpoint refuses requests without valid credentials
  The administration REST API is authenticated by API key or JWT in the X-Authorization header. A request without
  it, or with a malformed one, is refused (401, as the platform answers).

  Background:
    Given a device "subject" exists
    And a JWT from the tenant administrator's login

  @AUTH-05
  Scenario Outline: <path> refuses a request without X-Authorization
    When GET "<path>" is requested without X-Authorization
    Then the answer is refused with 401 and errorCode 10

    Examples:
      | path                                                                  |
      | /api/auth/user                                                        |
      | /api/tenant/devices?pageSize=10&page=0                                |
      | /api/device/<device id>                                               |
      | /api/plugins/telemetry/DEVICE/<device id>/values/timeseries           |
      | /api/plugins/telemetry/DEVICE/<device id>/values/attributes/CLIENT_SCOPE |

  @AUTH-05
  Scenario Outline: <path> refuses a malformed credential (<header>)
    When GET "<path>" is requested with X-Authorization "<header>"
    Then the answer is 401

    Examples:
      | path                                   | header                   |
      | /api/auth/user                         | Bearer not-a-jwt         |
      | /api/tenant/devices?pageSize=10&page=0 | Bearer <refresh token>x  |
      | /api/device/<device id>                | ApiKey tb_no-such-key-at-all |
      | /api/auth/user                         | Basic dXNlcjpwYXNz       |
      | /api/auth/user                         | Bearer <refresh token>   |
      | /api/auth/user                         | Bearer <jwt>x            |

  @AUTH-04
  Scenario: The same endpoints answer with a valid JWT
    When GET "/api/device/<device id>" is requested with X-Authorization "Bearer <jwt>"
    Then the answer is 200

  @deviation-AUTH-05
  Scenario Outline: <path> refuses a missing or malformed credential with 401, except Basic (a redirect to the OAuth2 login) and a refresh token (500)
    When GET "<path>" is requested with X-Authorization "Bearer <jwt>"
    Then the answer is 200
    When GET "<path>" is requested without X-Authorization
    Then the answer is refused with 401 and errorCode 10
    When GET "<path>" is requested with X-Authorization "Bearer not-a-jwt"
    Then the answer is 401
    When GET "<path>" is requested with X-Authorization "Bearer <jwt>x"
    Then the answer is 401
    When GET "<path>" is requested with X-Authorization "ApiKey tb_no-such-key-at-all"
    Then the answer is 401
    When GET "<path>" is requested with X-Authorization "Basic dXNlcjpwYXNz"
    Then the answer is a redirect to the login page "/oauth2Login", serving nothing
    When GET "<path>" is requested with X-Authorization "Bearer <refresh token>"
    Then the answer is 500

    Examples:
      | path                                                                  |
      | /api/auth/user                                                        |
      | /api/tenant/devices?pageSize=10&page=0                                |
      | /api/device/<device id>                                               |
      | /api/plugins/telemetry/DEVICE/<device id>/values/timeseries           |
