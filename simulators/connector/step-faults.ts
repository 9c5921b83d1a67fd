/**
 * The planted faults that break what a handler of the connector does (not what it is configured
 * with: those are config-faults.ts), as data: per handler, each fault names the steps it wraps or
 * replaces (steps.ts) and what it changes. faults/catalogue/rest-connector*.ts says what each
 * breaks. index.ts applies a table where it builds the handler: `withFaults(<HANDLER>_STEPS,
 * <HANDLER>_FAULTS)`. The answer's steps and faults are in answer-steps.ts (responses.ts applies
 * them per answer, and a table here would import it back).
 */
import { textOf } from '../../lib/expressions';
import { typedValueOf } from '../../lib/kv/values';
import type { JsonConverterSteps } from './json-converter';
import type { ServerSideRpcSteps } from './server-side-rpc';
import type { CallOutcome } from './outgoing-call';
import type { AuthorizationSteps } from './basic-auth';
import type { MappingEndpointSteps } from './mapping-endpoint';
import type { AttributeRequestSteps } from './attribute-request-endpoint';
import type { AttributeUpdateSteps } from './attribute-updates';
import { firstModule, type CustomConverterSteps } from './custom-converter';
import type { RouteSteps } from './http-server';
import type { StepFaults } from '../../faults/steps';

const asText = (raw: unknown) => ({ type: 'STRING' as const, value: textOf(raw) });
const given = (raw: unknown) => raw !== undefined && raw !== null;

export const JSON_CONVERTER_FAULTS: StepFaults<JsonConverterSteps> = {
  'RC-JSON-03:request-name-not-read': {
    device: (step) => (info, data) =>
      step({ ...info, deviceNameExpressionSource: 'constant' }, data),
  },
  'RC-JSON-04:request-profile-not-read': {
    device: (step) => (info, data) =>
      step({ ...info, deviceProfileExpressionSource: 'constant' }, data),
  },
  'RC-JSON-06:attributes-as-telemetry': {
    attribute:
      () =>
      (conversion, { key, value }, receivedAt) => {
        conversion.telemetryAt(receivedAt)[key] = value;
      },
  },
  'RC-JSON-07:timeseries-as-attributes': {
    timeseries:
      () =>
      (conversion, { key, value }) => {
        conversion.attributes[key] = value;
      },
  },
  'RC-ENT-01:key-not-evaluated': { key: () => (entry) => entry.key },
  'RC-ENT-03:value-not-evaluated': { value: () => (expression) => expression },
  'RC-ENT-03:nested-path-unsupported': {
    value: (step) => (expression, data, options) =>
      /\$\{[^}]*\.[^}]*\}/.test(expression) ? undefined : step(expression, data, options),
  },
  'RC-ENT-04:first-expression-only': {
    value: (step) => (expression, data, options) => {
      const first = /\$\{[^}]*\}/.exec(expression);
      return step(first ? first[0] : expression, data, options);
    },
  },
  'RC-CONV-03:missing-sent-as-text': {
    typed: (step) => (raw, entry, multipart) =>
      given(raw) ? step(raw, entry, multipart) : { type: 'STRING', value: 'None' },
  },
  'RC-ENT-02:text-values': {
    typed: (step) => (raw, entry, multipart) =>
      given(raw) ? asText(raw) : step(raw, entry, multipart),
  },
  'RC-BODY-03:multipart-text-values': {
    typed: (step) => (raw, entry, multipart) =>
      multipart && given(raw) ? asText(raw) : step(raw, entry, multipart),
  },
  'RC-ENT-02:type-ignored': {
    typed: (step) => (raw, entry, multipart) =>
      given(raw) ? typedValueOf(raw) : step(raw, entry, multipart),
  },
  'RC-ENT-05:ts-field-ignored': {
    timestamp: (step) => (entry, data, receivedAt) =>
      step({ ...entry, tsField: undefined }, data, receivedAt),
  },
  'RC-ENT-06:ts-ignored': {
    timestamp: (step) => (entry, data, receivedAt) =>
      step(entry, { ...data, ts: undefined }, receivedAt),
  },
  'RC-ENT-06:timestamp-ignored': {
    timestamp: (step) => (entry, data, receivedAt) =>
      step(entry, { ...data, timestamp: undefined }, receivedAt),
  },
};

/** An outgoing call that is not made: the reply says why. */
const notMade = (error: string): Promise<CallOutcome> =>
  Promise.resolve({ ok: false, error, attempts: 0 });

export const SERVER_SIDE_RPC_FAULTS: StepFaults<ServerSideRpcSteps> = {
  'RC-RPC-01:not-called': { call: () => () => notMade('not sent') },
  'RC-RPC-05:request-id-missing': {
    variables: (step) => (request, rule) => {
      const { [rule.idPlaceholder]: _, ...rest } = step(request, rule);
      return rest;
    },
  },
  'RC-RPC-05:method-name-missing': {
    variables: (step) => (request, rule) => {
      const { methodName: _, ...rest } = step(request, rule);
      return rest;
    },
  },
  'RC-RPC-08:nested-params-unsupported': {
    call: (step) => (rule, call, dispatchers) =>
      /\$\{params\.[^}]*\}/.test(rule.valueExpression)
        ? notMade('the value expression finds no value')
        : step(rule, call, dispatchers),
  },
  'RC-RPC-13:reply-empty': { reply: () => () => ({}) },
  'RC-RPC-13:failure-as-success': {
    reply: (step) => (outcome, quirks) => (outcome.ok ? step(outcome, quirks) : {}),
  },
  'RC-RPC-16:built-in-unknown': { isBuiltIn: () => () => false },
  'RC-RPC-17:missing-not-reported': { builtInMissing: () => () => [] },
  'RC-RPC-17:http-method-ignored': { builtInMethod: () => () => 'GET' },
};

/** The user-name part of `username:password` bytes, the colon included. */
const userPart = (credentials: Buffer) => credentials.subarray(0, credentials.indexOf(':') + 1);

export const AUTHORIZATION_FAULTS: StepFaults<AuthorizationSteps> = {
  'RC-SEC-05:anonymous-needs-credentials': {
    anonymous: () => (headers) => (headers.authorization ? 'admitted' : 'refused'),
  },
  'RC-SEC-02:scheme-not-checked': { scheme: () => () => true },
  'RC-SEC-01:swapped-credentials': {
    expected: () => (security) => Buffer.from(`${security.password}:${security.username}`, 'utf8'),
  },
  'RC-SEC-02:password-not-checked': {
    matches: (step) => (given, expected) => step(userPart(given), userPart(expected)),
  },
};

export const MAPPING_ENDPOINT_FAULTS: StepFaults<MappingEndpointSteps> = {
  'RC-GEN-01:nothing-forwarded': { forward: () => async () => undefined },
  'RC-SEC-02:refused-still-converted': {
    refused: () => async (_request, forwardAnyway, answerRefusal) => {
      await forwardAnyway();
      answerRefusal();
    },
  },
  'RC-SEC-02:refused-forwarded-later': {
    refused: () => async (_request, forwardAnyway, answerRefusal) => {
      answerRefusal();
      await forwardAnyway();
    },
  },
};

export const ATTRIBUTE_REQUEST_FAULTS: StepFaults<AttributeRequestSteps> = {
  'RC-AREQ-07:first-name-only': {
    nameParts: (step) => (expression) => step(expression).slice(0, 1),
  },
};

export const ATTRIBUTE_UPDATE_FAULTS: StepFaults<AttributeUpdateSteps> = {
  'RC-GEN-02:updates-not-called': { updated: () => () => [] },
  'RC-AUPD-10:first-attribute-only': { updated: (step) => (data) => step(data).slice(0, 1) },
  'RC-AUPD-11:attribute-key-missing': {
    urlVariables: (step) => (variables) => {
      const { attributeKey: _, ...rest } = step(variables);
      return rest;
    },
  },
  'RC-AUPD-01:sent-twice': {
    send: (step) => async (call, dispatchers) => {
      const [first] = await Promise.all([step(call, dispatchers), step(call, dispatchers)]);
      return first;
    },
  },
};

export const CUSTOM_CONVERTER_FAULTS: StepFaults<CustomConverterSteps> = {
  'RC-CUST-03:extension-ignored': { moduleOf: () => (_extension, folder) => firstModule(folder) },
  'RC-CUST-01:raw-body-withheld': {
    requestGiven: (step) => (request) => step({ ...request, body: Buffer.alloc(0) }),
  },
};

export const ROUTE_FAULTS: StepFaults<RouteSteps> = {
  'RC-MAP-02:unknown-path-served': {
    methodsOf: (step) => (byPath, path) => step(byPath, path) ?? byPath.values().next().value,
  },
  'RC-ERR-01:405-without-unsuccessful': { refusalOf: () => () => undefined },
};
