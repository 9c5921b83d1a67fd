@analytics-report @capability-analytics
Feature: The report rate limiter
  SIMPLE_API_RATE_LIMITER_THREAD_POOL_SIZE reports run in parallel and SIMPLE_API_RATE_LIMITER_QUEUE_CAPACITY more
  wait; further requests are answered 429 at once. Waiting and repeating succeeds. The limits are those the target
  profile declares (analytics.limits; a limit it leaves out is the default, 10), so a configured value and a default
  both run; every request varies its range so that a report cache cannot hide the limiter.

  Background:
    Given a JWT from the tenant administrator's login

  @AN-LIM-01
  Scenario: No request is refused while no more than the pool size run at once
    When as many report requests as the pool size are sent at once
    Then none of them is answered 429

  @AN-LIM-01
  Scenario: Requests up to the pool size are executed in parallel, not one after the other
    (a report alone is timed first; the burst must end well before a serial run of the pool size could)
    When 3 report requests are sent alone, one after the other
    And as many report requests as the pool size are sent at once
    Then none of them is answered 429
    And they ran in parallel: the burst ended well before a serial run of the pool size could

  @AN-LIM-01 @AN-LIM-02 @AN-LIM-05
  Scenario: Of a burst, exactly the pool and the queue are served and the rest refused
    When 10 more report requests than the pool and the queue hold are sent at once
    Then exactly as many as the pool and the queue hold are answered 200 and the others 429

  @AN-ERR-03
  Scenario: Beyond the pool and the queue requests are answered 429 at once
    When 10 more report requests than the pool and the queue hold are sent at once
    Then at least 1 of them are answered 429 and the others 200
    And every 429 comes back faster than the fastest 200

  @AN-LIM-04
  Scenario: Once a burst is over, a report request succeeds again
    When 10 more report requests than the pool and the queue hold are sent at once
    Then at least 1 of them are answered 429 and the others 200
    And once the burst is over a report request succeeds again
