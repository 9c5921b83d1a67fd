@admin-auth
Feature: Interactive documentation of the administration REST API
  The platform hosts interactive documentation of the administration REST API at /swagger-ui.html; a user
  authorizes there with a JWT from login or by pasting an API key.

  @AUTH-DOC-01 @AUTH-DOC-02 @AUTH-DOC-05
  Scenario: /swagger-ui.html is served and describes the API with both authorizations
    Then the interactive documentation page /swagger-ui.html is served with its scripts
    And its API description lists the login and current-user endpoints and both authorizations
