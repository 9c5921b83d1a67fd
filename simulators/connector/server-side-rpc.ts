/**
 * requestsMapping.serverSideRpc: a server-side RPC to a device connected through this connector
 * becomes an outgoing call of the first rule whose deviceNameFilter and methodFilter match
 * (whole-name regular expressions). The URL takes ${deviceName} (percent-encoded), ${methodName},
 * ${requestId} and ${params} / ${params.field}; the body is the valueExpression (default
 * ${params}). The reply to the platform is the external answer (its JSON, else its text), or
 * {error, code?} when the call failed after its tries or responseTimeout (seconds) ran out.
 *
 * Built-in methods GET and SET (any case) need no rule: their params carry requestUrlExpression,
 * responseTimeout, httpMethod and valueExpression (docs/reference/interfaces.md), and may carry the
 * other call members.
 */
import type { Logger } from 'pino';
import { STATUS_CODES } from 'node:http';
import { evaluate, evaluateText, textOf, urlComponent } from '../../lib/expressions';
import type { GatewayRpcRequest } from '../gateway/mqtt-gateway';
import type { OutgoingCallConfig, ServerSideRpcRule } from './config-types';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import {
  absoluteUrl,
  callOut,
  renderBody,
  type CallOutcome,
  type OutgoingDispatchers,
} from './outgoing-call';

/** No rule and no built-in method: the RPC is left to the platform's timeout. */
export const NOT_HANDLED = Symbol('not handled');

const BUILT_IN_REQUIRED = [
  'requestUrlExpression',
  'responseTimeout',
  'httpMethod',
  'valueExpression',
] as const;

/** The server-side RPC handler's steps (steps.ts); step-faults.ts wraps them. */
export interface ServerSideRpcSteps {
  /** Whether the method is a built-in one (get / set, any case). */
  isBuiltIn(method: string): boolean;
  /** The members a built-in method's params lack. */
  builtInMissing(given: Record<string, unknown>): string[];
  /** The HTTP method a built-in method's params name. */
  builtInMethod(given: Record<string, unknown>): string;
  /** The variables of the rule's expressions. */
  variables(request: GatewayRpcRequest, rule: ServerSideRpcRule): Record<string, unknown>;
  /** The outgoing call. */
  call(
    rule: ServerSideRpcRule,
    call: { url: string; body: string | undefined },
    dispatchers: OutgoingDispatchers,
  ): Promise<CallOutcome>;
  /** The reply to the platform. */
  reply(outcome: CallOutcome, quirks: ConnectorQuirks): unknown;
}

export const SERVER_SIDE_RPC_STEPS: ServerSideRpcSteps = {
  isBuiltIn: (method) => /^(get|set)$/i.test(method),
  builtInMissing: (given) =>
    BUILT_IN_REQUIRED.filter(
      (member) =>
        given[member] === undefined && !(member === 'httpMethod' && given.HTTPMethod !== undefined),
    ),
  builtInMethod: (given) => String(given.httpMethod ?? given.HTTPMethod ?? 'GET'),
  variables: (request, rule) => ({
    deviceName: request.device,
    methodName: request.method,
    [rule.idPlaceholder]: request.id,
    params: request.params,
  }),
  call: (rule, { url, body }, dispatchers) =>
    callOut({ url: absoluteUrl(url), body, config: rule }, dispatchers, rule.responseTimeoutSec),
  reply: (outcome, quirks) => (quirks.rpcReplyWrapped ? wrappedReplyOf(outcome) : replyOf(outcome)),
};

export async function handleServerSideRpc(
  request: GatewayRpcRequest,
  rules: ServerSideRpcRule[],
  dispatchers: OutgoingDispatchers,
  logger: Logger,
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
  steps: ServerSideRpcSteps = SERVER_SIDE_RPC_STEPS,
): Promise<unknown> {
  if (!quirks.builtInRpcJsonParams && /^(get|set)$/.test(request.method)) {
    // 3.8.3 splits params as the text "requestUrlExpression=...;value=..." and fails on JSON: no
    // call, no reply
    logger.info({ method: request.method }, 'built-in RPC with JSON params: not handled');
    return NOT_HANDLED;
  }
  const builtIn = steps.isBuiltIn(request.method) ? builtInRule(request, steps) : undefined;
  if (builtIn && 'error' in builtIn) return builtIn;
  const rule =
    builtIn ??
    rules.find(
      (candidate) =>
        candidate.deviceNameFilter.test(request.device) &&
        candidate.methodFilter.test(request.method),
    );
  if (!rule) {
    logger.info(
      { device: request.device, method: request.method },
      'no serverSideRpc rule matches the RPC',
    );
    return NOT_HANDLED;
  }
  const variables = steps.variables(request, rule);
  const url = quirks.rpcUrlFirstPlaceholderPerSegment
    ? firstPlaceholderPerSegment(rule.requestUrlExpression, variables)
    : evaluateText(
        rule.requestUrlExpression,
        {},
        { variables, render: urlComponent, missing: 'keep' },
      );
  const body = renderBody(rule, {}, variables);
  const outcome = await steps.call(rule, { url: url ?? '', body }, dispatchers);
  logger.debug(
    {
      device: request.device,
      method: request.method,
      url,
      attempts: outcome.attempts,
      ok: outcome.ok,
    },
    'server-side RPC call',
  );
  return steps.reply(outcome, quirks);
}

/**
 * A 3.8.3 RPC URL: ${deviceName}, ${methodName} and the id placeholder are replaced everywhere,
 * then in each /-separated segment only the first ${...} is filled, and only when it names params
 * (TBUtility.replace_params_tags).
 */
function firstPlaceholderPerSegment(
  expression: string,
  variables: Record<string, unknown>,
): string {
  let url = expression;
  for (const name of ['deviceName', 'methodName', 'restId'])
    if (name in variables) url = url.replaceAll(`\${${name}}`, urlComponent(variables[name]));
  return url
    .split('/')
    .map((segment) => {
      const first = /\$\{([^}]*)\}/.exec(segment);
      if (!first || !/^params(\.|$)/.test(first[1]!)) return segment;
      const value = evaluate(first[0], {}, { variables });
      return value === undefined ? segment : segment.replace(first[0], textOf(value));
    })
    .join('/')
    .replaceAll('{', '%7B') // what is left of a placeholder is sent percent-encoded (requests' requote_uri)
    .replaceAll('}', '%7D');
}

/**
 * 3.8.3's reply: {result: answer}; a failure {result: {error: <reason phrase> | Timeout |
 * <message>, code?}}.
 */
function wrappedReplyOf(outcome: CallOutcome): unknown {
  if (outcome.ok) return { result: replyOf(outcome) };
  if (outcome.status !== undefined)
    return { result: { error: STATUS_CODES[outcome.status] ?? '', code: outcome.status } };
  if (outcome.error.startsWith('no answer within'))
    return { result: { error: 'Timeout', code: 408 } };
  return { result: { error: outcome.error } };
}

/** The reply document: the answer's JSON or text; a failure as {error, code}. */
function replyOf(outcome: CallOutcome): unknown {
  if (!outcome.ok)
    return outcome.status === undefined
      ? { error: outcome.error }
      : { error: outcome.error, code: outcome.status };
  if (outcome.text === '') return {};
  try {
    return JSON.parse(outcome.text);
  } catch {
    return outcome.text;
  }
}

/**
 * The call a built-in GET or SET describes in its params, or the error that says what is missing.
 */
function builtInRule(
  request: GatewayRpcRequest,
  steps: ServerSideRpcSteps,
): ServerSideRpcRule | { error: string } {
  const params = request.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) {
    return {
      error: `the built-in ${request.method} method needs params with ${BUILT_IN_REQUIRED.join(', ')}`,
    };
  }
  const given = params as Record<string, unknown>;
  const missing = steps.builtInMissing(given);
  if (missing.length)
    return {
      error: `the built-in ${request.method} method needs ${missing.join(', ')} in its params`,
    };
  const call: OutgoingCallConfig = {
    method: steps.builtInMethod(given),
    sslVerify: given.SSLVerify === true,
    headers: isHeaders(given.httpHeaders)
      ? given.httpHeaders
      : { 'CONTENT-TYPE': 'application/json' },
    security: { type: 'anonymous' },
    timeoutSec: positive(given.timeout) ?? positive(given.responseTimeout) ?? 1,
    tries: positive(given.tries) ?? 1,
    allowRedirects: given.allowRedirects !== false,
    requestUrlExpression: String(given.requestUrlExpression),
    bodyWithGet: false,
    valueExpression:
      typeof given.valueExpression === 'string'
        ? given.valueExpression
        : JSON.stringify(given.valueExpression),
  };
  return {
    ...call,
    deviceNameFilter: /.*/,
    methodFilter: /.*/,
    responseTimeoutSec: positive(given.responseTimeout) ?? 1,
    idPlaceholder: 'requestId',
  };
}

function positive(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

function isHeaders(value: unknown): value is Record<string, string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  );
}
