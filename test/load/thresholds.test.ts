/**
 * The threshold parser and evaluation: k6-style expressions, clear errors, NOT MEASURED never
 * counted as PASS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluateThresholds,
  overallVerdict,
  parseThreshold,
  parseThresholds,
  ThresholdSyntaxError,
  UnknownMetricError,
} from '../../load/thresholds';

test('expressions parse into metric, operator and limit', () => {
  assert.deepEqual(parseThreshold('p99<50'), {
    source: 'p99<50',
    metric: 'p99',
    operator: '<',
    limit: 50,
  });
  assert.deepEqual(parseThreshold(' lost == 0 '), {
    source: 'lost == 0',
    metric: 'lost',
    operator: '==',
    limit: 0,
  });
  assert.equal(parseThreshold('errors<=10').operator, '<=');
  assert.equal(parseThreshold('rate>=99.5').limit, 99.5);
  assert.equal(parseThreshold('status_429!=0').operator, '!=');
  assert.equal(parseThreshold('sent>-1').limit, -1);
});

test('malformed expressions are refused with a message naming the expression and the expected form', () => {
  for (const source of [
    '',
    'p99',
    'p99<',
    '<50',
    'p99<<50',
    'p99 < fifty',
    '99p<1',
    'p99<50ms',
    'p99=<50',
  ]) {
    assert.throws(
      () => parseThreshold(source),
      (error: unknown) =>
        error instanceof ThresholdSyntaxError &&
        error.code === 'IOTC_THRESHOLD_SYNTAX' &&
        error.message.includes(JSON.stringify(source)) &&
        error.message.includes('<metric><operator><number>'),
      source,
    );
  }
  assert.throws(() => parseThreshold('lost=0'), /"=" alone is not an operator: use "=="/);
});

test('a metric the profile does not know is refused, every problem reported at once', () => {
  assert.throws(
    () => parseThresholds(['p99<50', 'lots==0'], ['p99', 'lost']),
    (error: unknown) =>
      error instanceof UnknownMetricError &&
      error.code === 'IOTC_THRESHOLD_METRIC' &&
      error.message.includes('"lots"') &&
      error.message.includes('p99, lost'),
  );
  assert.throws(
    () => parseThresholds(['p99<', 'lots==0'], ['p99', 'lost']),
    (error: unknown) =>
      error instanceof ThresholdSyntaxError && error.message.split('\n').length === 2,
  );
});

test('thresholds decide PASS and FAIL; an unmeasured metric is NOT MEASURED, never PASS', () => {
  const thresholds = parseThresholds(
    ['p99<50', 'lost==0', 'errors<=10', 'stored>0'],
    ['p99', 'lost', 'errors', 'stored'],
  );
  const results = evaluateThresholds(thresholds, { p99: 49.9, lost: 0, errors: 11, stored: null });
  assert.deepEqual(
    results.map((result) => [result.source, result.actual, result.verdict]),
    [
      ['p99<50', 49.9, 'PASS'],
      ['lost==0', 0, 'PASS'],
      ['errors<=10', 11, 'FAIL'],
      ['stored>0', null, 'NOT MEASURED'],
    ],
  );
  assert.equal(overallVerdict(results), 'FAIL');
  assert.equal(
    overallVerdict(results.filter((result) => result.verdict !== 'FAIL')),
    'NOT MEASURED',
  );
  assert.equal(overallVerdict(results.slice(0, 2)), 'PASS');
  assert.equal(overallVerdict([]), 'NOT MEASURED', 'no threshold at all decides nothing');
  assert.equal(evaluateThresholds(thresholds.slice(0, 1), {})[0].verdict, 'NOT MEASURED');
  assert.equal(
    evaluateThresholds(thresholds.slice(0, 1), { p99: Number.NaN })[0].verdict,
    'NOT MEASURED',
  );
});
