/** Faults that break requirements of the analytics report API (features/analytics-report/). */
import type { FaultDefinition } from './definition';

export const ANALYTICS_FAULTS = [
  {
    id: 'AN-01:version-segment',
    breaks: 'buildReport is served under {prefix}/v1/publicApi/ instead of {prefix}/publicApi/',
  },
  {
    id: 'AN-02:query-jwt-ignored',
    breaks: 'the jwt query parameter is not read (only the jwt header is)',
  },
  {
    id: 'AN-03:header-jwt-ignored',
    breaks: 'the jwt header is not read (only the jwt query parameter is)',
  },
  {
    id: 'AN-04:login-jwt-refused',
    breaks: 'a JWT issued by the administration login is refused with 403',
  },
  {
    id: 'AN-REQ-01:optional',
    breaks: 'a request without viewConfigId is answered with the report of the first saved view',
  },
  {
    id: 'AN-REQ-01:view-ignored',
    breaks: 'a viewConfigId that names no view selects the first saved view',
  },
  {
    id: 'AN-REQ-02:range-end-ignored',
    breaks: 'rangeEndTs is ignored: the report runs to the end of the saved range',
  },
  {
    id: 'AN-REQ-02:range-start-ignored',
    breaks: 'rangeStartTs is ignored: the report starts at the start of the saved range',
  },
  {
    id: 'AN-REQ-02:saved-range-ignored',
    breaks: 'without rangeStartTs and rangeEndTs the report covers all time, not the saved range',
  },
  {
    id: 'AN-REQ-02:saved-start-ignored',
    breaks:
      'without rangeStartTs the report starts at the beginning of time, not at the start of the saved range',
  },
  {
    id: 'AN-REQ-02:half-range-ignored',
    breaks:
      'a range given by one side only (rangeStartTs or rangeEndTs alone) is ignored: the whole saved range applies',
  },
  {
    id: 'AN-REQ-03:filters-ignored',
    breaks: 'the filters of the request are ignored: the saved filters apply',
  },
  {
    id: 'AN-REQ-03:first-value-only',
    breaks: 'only the first value of a filter array lets rows pass',
  },
  {
    id: 'AN-REQ-04:unknown-filter-ignored',
    breaks: 'a filter key that is not a filter of the view is ignored instead of refused',
  },
  {
    id: 'AN-RES-01:labels-lower-case',
    breaks: 'columnLabels holds the labels in lower case',
  },
  {
    id: 'AN-RES-02:rows-as-arrays',
    breaks: 'dataTable holds one array of cells per row instead of an object keyed by the labels',
  },
  {
    id: 'AN-RES-02:rows-repeated',
    breaks: 'every row of dataTable appears twice',
  },
  {
    id: 'AN-RES-03:date-as-number',
    breaks: 'date-like values are JSON numbers instead of strings of milliseconds',
  },
  {
    id: 'AN-RES-04:integral-without-fraction',
    breaks: 'an integral numeric value is written without a fractional part (19, not 19.0)',
  },
  {
    id: 'AN-RES-04:numbers-as-strings',
    breaks: 'numeric values are written as JSON strings',
  },
  {
    id: 'AN-ERR-01:invalid-jwt-401',
    breaks: 'an invalid or expired JWT is answered 401 instead of 403',
  },
  {
    id: 'AN-ERR-01:expired-accepted',
    breaks:
      'an expired JWT once accepted stays accepted (its check is remembered past exp) and the platform refusing its reads gives an empty report',
  },
  {
    id: 'AN-ERR-02:content-type-unchecked',
    breaks: 'any Content-Type is accepted',
  },
  {
    id: 'AN-ERR-02:unsupported-400',
    breaks: 'a Content-Type other than application/json is answered 400 instead of 415',
  },
  {
    id: 'AN-ERR-03:rejected-503',
    breaks: 'a request beyond the limits is answered 503 instead of 429',
  },
  {
    id: 'AN-LIM-01:pool-minus-one',
    breaks: 'one request fewer than the pool size runs in parallel',
  },
  {
    id: 'AN-LIM-01:serial-executor',
    breaks:
      'the pool admits as many requests as its size but runs their reports one after the other (a serial executor of the same capacity)',
  },
  {
    id: 'AN-LIM-02:no-queue',
    breaks:
      'the limiter queues nothing: a request that finds the pool busy is refused with 429 at once',
  },
  {
    id: 'AN-LIM-02:unbounded-queue',
    breaks: 'the queue has no bound: no request is ever refused',
  },
  {
    id: 'AN-LIM-02:default-capacity-5',
    breaks: 'without a configured queue capacity the queue holds 5 requests instead of 10',
  },
  {
    id: 'AN-LIM-04:refusal-keeps-slot',
    breaks: 'a refused request keeps a pool slot for good, so the limiter never recovers',
  },
  {
    id: 'AN-LIM-05:pool-config-ignored',
    breaks: 'the configured pool size is ignored: the default 10 is used',
  },
] as const satisfies readonly FaultDefinition[];
