@analytics-report @capability-analytics
Feature: Report of a saved table view
  POST {analytics_url}/apianalytics/publicApi/buildReport with a JWT from the administration login (query parameter
  or header jwt) answers the table data of a saved view: columnLabels and dataTable, one object per row keyed by the
  labels, date-like values as strings of milliseconds and numeric values as doubles. The conformance view covers the
  devices whose names contain "-analytics-" with the columns Date, Device, temperature and building, the filter
  "building" and the saved range 1700000000000 to 1700003600000. The fixture crosses every bound the scenarios
  name: "analytics-west" lies after the explicit range end and "analytics-east" after the saved range;
  "analytics-north" before the explicit range start, and "analytics-early" (of the saved-range scenario) before
  the saved range start.

  Background:
    Given a device "analytics-north" in building "Building A" that reported temperature 21.5 at 1700000100000
    And a device "analytics-south" in building "Building B" that reported temperature 19 at 1700000200000
    And a device "analytics-west" in building "Building B" that reported temperature 23 at 1700000300000
    And a device "analytics-east" in building "Building A" that reported temperature 25 at 1700003700000
    And a JWT from the tenant administrator's login

  @AN-01 @AN-02 @AN-04 @AN-REQ-01 @AN-REQ-02 @AN-RES-01 @AN-RES-02 @AN-RES-03 @AN-RES-04
  Scenario: The report of the saved range, JWT as query parameter
    When the report of the conformance view is requested with the JWT as query parameter jwt
    Then the report's columnLabels are ["Date", "Device", "temperature", "building"]
    And the report has a row for "analytics-north" with Date "1700000100000", temperature "21.5" and building "Building A"
    And the report has a row for "analytics-south" with Date "1700000200000", temperature "19" and building "Building B"

  @AN-REQ-02
  Scenario: Without rangeStartTs and rangeEndTs the saved range applies, at both of its ends
    Given a device "analytics-early" in building "Building A" that reported temperature 18 at 1699999900000
    When the report of the conformance view is requested with the JWT as query parameter jwt
    Then the report has a row for "analytics-west" with Date "1700000300000", temperature "23" and building "Building B"
    And the report has no row for "analytics-east"
    And the report has no row for "analytics-early"

  @AN-03
  Scenario: The JWT in the header jwt
    When the report of the conformance view is requested with the JWT in the header jwt
    Then the report has a row for "analytics-north" with Date "1700000100000", temperature "21.5" and building "Building A"

  @AN-REQ-02
  Scenario: rangeStartTs and rangeEndTs set the range instead of the saved one
    When the report of the conformance view is requested with range 1700000150000 to 1700000250000
    Then the report answers 200
    And the report has no row for "analytics-north"
    And the report has a row for "analytics-south" with Date "1700000200000", temperature "19" and building "Building B"
    And the report has no row for "analytics-west"

  @AN-REQ-02
  Scenario: rangeEndTs alone ends the range; the start is the saved one
    Given a device "analytics-early" in building "Building A" that reported temperature 18 at 1699999900000
    When the report of the conformance view is requested with rangeEndTs 1700000250000 only
    Then the report answers 200
    And the report has no row for "analytics-early"
    And the report has a row for "analytics-north" with Date "1700000100000", temperature "21.5" and building "Building A"
    And the report has a row for "analytics-south" with Date "1700000200000", temperature "19" and building "Building B"
    And the report has no row for "analytics-west"

  @AN-REQ-02
  Scenario: rangeStartTs alone starts the range; the end is the saved one
    When the report of the conformance view is requested with rangeStartTs 1700000150000 only
    Then the report answers 200
    And the report has no row for "analytics-north"
    And the report has a row for "analytics-west" with Date "1700000300000", temperature "23" and building "Building B"
    And the report has no row for "analytics-east"

  @AN-REQ-03
  Scenario: filters override the filters saved in the view
    When the report of the conformance view is requested with filters {"building": ["Building C", "Building B"]}
    Then the report answers 200
    And the report has no row for "analytics-north"
    And the report has a row for "analytics-south" with Date "1700000200000", temperature "19" and building "Building B"

  @AN-REQ-01
  Scenario: A request without viewConfigId gets no report
    When a report is requested without viewConfigId
    Then the report is refused with a client error and holds no dataTable

  @AN-REQ-01
  Scenario: A viewConfigId that names no saved view gets no report
    When a report is requested with a viewConfigId that names no view
    Then the report is refused with a client error and holds no dataTable

  @AN-REQ-04
  Scenario: A filter key that is not a filter of the view is refused
    When the report of the conformance view is requested with filters {"floor": ["1"]}
    Then the report answers 400

  @AN-ERR-01
  Scenario Outline: An invalid JWT is answered 403 (<where>)
    When the report of the conformance view is requested with the JWT "not.a.jwt" in the <where>
    Then the report answers 403

    Examples:
      | where  |
      | query  |
      | header |

  @AN-ERR-01
  Scenario: An expired JWT is answered 403
    Given the target's access token lifetime is short enough to wait for
    And a JWT from the tenant administrator's login
    When the report of the conformance view is requested with the JWT as query parameter jwt
    Then the report answers 200
    When the access token lifetime has passed
    And the report of the conformance view is requested with that expired JWT
    Then the report answers 403

  @AN-ERR-02
  Scenario: A Content-Type other than application/json is answered 415
    When the report of the conformance view is requested with Content-Type "text/plain"
    Then the report answers 415
