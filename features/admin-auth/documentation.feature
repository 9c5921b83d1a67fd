@admin-auth
Feature: Interactive documentation of the administration REST API
  The platform hosts interactive documentation of the administration REST API at /swagger-ui.html; a user
  authorizes there with a JWT from login or by pasting an API key.

  @AUTH-DOC-01
  Scenario: /swagger-ui.html is served with the scripts it loads
    Then the interactive documentation page /swagger-ui.html is served with its scripts

  @AUTH-DOC-02
  Scenario: The API description offers both authorizations, JWT from login and API key
    Then its API description declares a JWT authorization and an API key authorization

  @AUTH-DOC-05
  Scenario: The API description lists the administration endpoints
    (`{}` is any path parameter; `{DEVICE}` is the literal DEVICE, which may be documented as a parameter)
    Then its API description lists these endpoints:
      | POST   | /api/auth/login                                          |
      | GET    | /api/auth/user                                           |
      | GET    | /api/tenant/devices                                      |
      | POST   | /api/device                                              |
      | GET    | /api/device/{}                                           |
      | DELETE | /api/device/{}                                           |
      | GET    | /api/device/{}/credentials                               |
      | GET    | /api/plugins/telemetry/{DEVICE}/{}/values/timeseries     |
