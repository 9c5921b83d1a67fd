/**
 * k6-style thresholds for load profiles: `p99<50`, `lost==0`, `errors<=10`. A threshold names one
 * metric of the report, an operator and a number; it passes or fails against the metric's value,
 * and is NOT MEASURED when the run did not measure that metric (never PASS). Written by hand: the
 * grammar is one comparison, and k6's own parser is Go.
 */
import { IotcError } from '../lib/errors';

export type Verdict = 'PASS' | 'FAIL' | 'NOT MEASURED';

const OPERATORS = ['<=', '>=', '==', '!=', '<', '>'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Threshold {
  /** The expression as the user wrote it. */
  source: string;
  metric: string;
  operator: Operator;
  limit: number;
}

export interface ThresholdResult extends Threshold {
  /** The metric's value in the report; null when the run did not measure it. */
  actual: number | null;
  verdict: Verdict;
}

/** A threshold that is not `<metric><operator><number>`. */
export class ThresholdSyntaxError extends IotcError {
  readonly code = 'IOTC_THRESHOLD_SYNTAX';
}

/** A threshold on a metric the load profile does not have. */
export class UnknownMetricError extends IotcError {
  readonly code = 'IOTC_THRESHOLD_METRIC';
}

const EXPRESSION = /^\s*([A-Za-z][A-Za-z0-9_.]*)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** Parses one expression; throws ThresholdSyntaxError saying what is wrong and what is expected. */
export function parseThreshold(source: string): Threshold {
  const match = EXPRESSION.exec(source);
  if (!match) {
    const hint = /=(?!=)/.test(source.replace(/[<>!=]=/g, ''))
      ? ' ("=" alone is not an operator: use "==")'
      : '';
    throw new ThresholdSyntaxError(
      `threshold ${JSON.stringify(source)} is not <metric><operator><number>, e.g. 'p99<50' or 'lost==0'; operators ${OPERATORS.join(' ')}${hint}`,
    );
  }
  return {
    source: source.trim(),
    metric: match[1],
    operator: match[2] as Operator,
    limit: Number(match[3]),
  };
}

/**
 * Parses every expression and checks each names a metric the profile knows (a misspelt metric would
 * otherwise be NOT MEASURED for ever); all problems are reported at once.
 */
export function parseThresholds(
  sources: readonly string[],
  knownMetrics: readonly string[],
): Threshold[] {
  const syntax: string[] = [];
  const unknown: string[] = [];
  const thresholds: Threshold[] = [];
  for (const source of sources) {
    try {
      const threshold = parseThreshold(source);
      if (knownMetrics.includes(threshold.metric)) thresholds.push(threshold);
      else
        unknown.push(
          `threshold ${JSON.stringify(source)} names the unknown metric "${threshold.metric}"; this profile has ${knownMetrics.join(', ')}`,
        );
    } catch (error) {
      if (!(error instanceof ThresholdSyntaxError)) throw error;
      syntax.push(error.message);
    }
  }
  if (syntax.length > 0) throw new ThresholdSyntaxError([...syntax, ...unknown].join('\n'));
  if (unknown.length > 0) throw new UnknownMetricError(unknown.join('\n'));
  return thresholds;
}

function holds(actual: number, operator: Operator, limit: number): boolean {
  switch (operator) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
    case '==':
      return actual === limit;
    case '!=':
      return actual !== limit;
  }
}

/** Each threshold against the metrics; a metric absent, null or NaN is NOT MEASURED. */
export function evaluateThresholds(
  thresholds: readonly Threshold[],
  metrics: Readonly<Record<string, number | null | undefined>>,
): ThresholdResult[] {
  return thresholds.map((threshold) => {
    const value = metrics[threshold.metric];
    if (value === undefined || value === null || Number.isNaN(value))
      return { ...threshold, actual: null, verdict: 'NOT MEASURED' };
    return {
      ...threshold,
      actual: value,
      verdict: holds(value, threshold.operator, threshold.limit) ? 'PASS' : 'FAIL',
    };
  });
}

/**
 * FAIL when any threshold failed, else NOT MEASURED when any was not measured (or none was given),
 * else PASS.
 */
export function overallVerdict(results: readonly ThresholdResult[]): Verdict {
  if (results.some((result) => result.verdict === 'FAIL')) return 'FAIL';
  if (results.length === 0 || results.some((result) => result.verdict === 'NOT MEASURED'))
    return 'NOT MEASURED';
  return 'PASS';
}
