/**
 * Loading rest.json: the checks of checks.ts, then the defaults of interfaces.md applied once, so the rest of the
 * connector reads a complete, typed configuration.
 */
import { readFileSync } from 'node:fs';
import type { RestConnectorFile } from '../../schemas';
import { faultActive } from '../../faults';
import { checkConnectorConfig } from './checks';
import { missingGatewayMembers } from '../../lib/gateway-rest';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { IotcError } from '../../lib/errors';

export type Security =
  | { type: 'anonymous' }
  | { type: 'basic'; username: string; password: string };

export type EntryType = 'string' | 'double' | 'integer' | 'boolean' | 'json';

export interface Entry {
  key: string;
  type: EntryType;
  value: string | number | boolean;
}

export interface TimeseriesEntry extends Entry {
  tsField?: string;
  dayfirst: boolean;
  yearfirst: boolean;
}

export interface DeviceInfo {
  deviceNameExpression: string;
  deviceNameExpressionSource: 'request' | 'constant';
  deviceProfileExpression: string;
  deviceProfileExpressionSource: 'request' | 'constant';
}

export type ConverterConfig =
  | { type: 'json'; deviceInfo: DeviceInfo; attributes: Entry[]; timeseries: TimeseriesEntry[] }
  | { type: 'custom'; deviceInfo: DeviceInfo; extension: string; section: Record<string, unknown> };

export type ResponseConfig =
  | { kind: 'default' }
  | { kind: 'hardcoded'; successResponse: string; unsuccessfulResponse: string }
  /** The answer is the shared attribute responseAttribute of the device, set by the platform within timeoutSec. */
  | {
      kind: 'remote';
      responseAttribute: string;
      timeoutSec: number;
      unsuccessfulResponse?: string;
    };

export interface EndpointConfig {
  endpoint: string;
  methods: string[];
  security: Security;
  converter: ConverterConfig;
  response: ResponseConfig;
}

export interface AttributeRequestConfig {
  endpoint: string;
  type: 'shared' | 'client';
  methods: string[];
  security: Security;
  /** Seconds to wait for the platform's answer. */
  timeoutSec: number;
  deviceNameExpression: string;
  attributeNameExpression: string;
}

/** An outgoing HTTP call (attribute updates and server-side RPC). */
export interface OutgoingCallConfig {
  method: string;
  sslVerify: boolean;
  headers: Record<string, string>;
  security: Security;
  /** Seconds, per attempt. */
  timeoutSec: number;
  tries: number;
  allowRedirects: boolean;
  requestUrlExpression: string;
  valueExpression: string;
  /** A GET carries the body too (a gateway 3.8 quirks mode). */
  bodyWithGet: boolean;
}

export interface AttributeUpdateRule extends OutgoingCallConfig {
  deviceNameFilter: RegExp;
  attributeFilter: RegExp;
}

export interface ServerSideRpcRule extends OutgoingCallConfig {
  deviceNameFilter: RegExp;
  methodFilter: RegExp;
  /** Seconds: the whole wait for the external reply, every try included. */
  responseTimeoutSec: number;
  /** The placeholder of the RPC id in the expressions (requestId; restId in a gateway 3.8 quirks mode). */
  idPlaceholder: 'requestId' | 'restId';
}

export interface ConnectorConfig {
  server: { host: string; port: number; ssl: boolean; security?: { cert: string; key: string } };
  mapping: EndpointConfig[];
  attributeRequests: AttributeRequestConfig[];
  attributeUpdates: AttributeUpdateRule[];
  serverSideRpc: ServerSideRpcRule[];
  /** The real gateway version's differences this connector reproduces (none: the specification). */
  quirks: ConnectorQuirks;
}

export class ConnectorConfigError extends IotcError {
  readonly code = 'IOTC_CONNECTOR_CONFIG';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid REST connector configuration:\n  ${problems.join('\n  ')}`);
  }
}

const JSON_HEADERS = { 'CONTENT-TYPE': 'application/json' };
const ENTRY_TYPE_NAMES: Record<string, EntryType> = {
  string: 'string',
  str: 'string',
  double: 'double',
  float: 'double',
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  boolean: 'boolean',
  bool: 'boolean',
  json: 'json',
};

/**
 * Reads, checks and completes a rest.json file; throws ConnectorConfigError listing every problem. A quirks mode
 * (quirks.ts) changes defaults the way a real gateway version does.
 */
export function loadConnectorConfig(
  path: string,
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
): ConnectorConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConnectorConfigError(path, [`$: ${(error as Error).message}`]);
  }
  return completeConfig(parsed, path, quirks);
}

/** Checks a parsed rest.json and applies the defaults. */
export function completeConfig(
  value: unknown,
  source = 'rest.json',
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
): ConnectorConfig {
  const problems = checkConnectorConfig(value);
  if (!problems.length && quirks.requiresGatewayMembers)
    problems.push(
      ...missingGatewayMembers(value as Record<string, unknown>).map(
        (member) => `${member}: required by the gateway version this connector reproduces`,
      ),
    );
  if (problems.length) throw new ConnectorConfigError(source, problems);
  return applyDefaults(value as RestConnectorFile, quirks);
}

function security(
  section: { type?: 'basic' | 'anonymous'; username?: string; password?: string } | undefined,
  fallback: 'basic' | 'anonymous',
): Security {
  const type =
    section?.type ??
    (section && (section.username !== undefined || section.password !== undefined)
      ? 'basic'
      : fallback);
  // interfaces.md: basic's username and password default to the placeholders <USERNAME> and <PASSWORD>
  const placeholders = faultActive('RC-SEC-04:default-credentials')
    ? { username: '', password: '' }
    : { username: '<USERNAME>', password: '<PASSWORD>' };
  return type === 'anonymous'
    ? { type }
    : {
        type,
        username: section?.username ?? placeholders.username,
        password: section?.password ?? placeholders.password,
      };
}

function deviceInfo(section: Partial<DeviceInfo> | undefined, custom: boolean): DeviceInfo {
  const jsonName = faultActive('RC-JSON-02:default-name-expression') ? '${name}' : 'Device ${name}';
  const jsonNameSource = faultActive('RC-JSON-03:default-source-constant') ? 'constant' : 'request';
  const profile = faultActive('RC-JSON-05:default-profile') ? 'Default' : 'default';
  // the custom converter's defaults are constant sources and a fixed name (interfaces.md)
  return {
    deviceNameExpression: section?.deviceNameExpression ?? (custom ? 'Custom device' : jsonName),
    deviceNameExpressionSource:
      section?.deviceNameExpressionSource ?? (custom ? 'constant' : jsonNameSource),
    deviceProfileExpression:
      section?.deviceProfileExpression ??
      (custom && faultActive('RC-CUST-02:default-profile') ? 'custom' : profile),
    deviceProfileExpressionSource:
      section?.deviceProfileExpressionSource ??
      (custom || faultActive('RC-JSON-04:default-source-constant') ? 'constant' : 'request'),
  };
}

function converter(section: Record<string, unknown> | undefined): ConverterConfig {
  const raw = section ?? {};
  if (raw.type === 'custom' && !faultActive('RC-CONV-02:custom-as-json'))
    return {
      type: 'custom',
      deviceInfo: deviceInfo(raw.deviceInfo as Partial<DeviceInfo>, true),
      extension: String(raw.extension),
      section: raw,
    };
  const entry = (item: Record<string, unknown>): Entry => ({
    key: String(item.key),
    type: ENTRY_TYPE_NAMES[String(item.type)] ?? 'string',
    value: item.value as Entry['value'],
  });
  const convertsNothing =
    (raw.type === undefined && faultActive('RC-CONV-01:untyped-converts-nothing')) ||
    (raw.type === 'json' && faultActive('RC-JSON-01:explicit-json-ignored'));
  const entries = (list: unknown) =>
    convertsNothing ? [] : ((list ?? []) as Array<Record<string, unknown>>);
  return {
    type: 'json',
    deviceInfo: deviceInfo(raw.deviceInfo as Partial<DeviceInfo>, false),
    attributes: entries(raw.attributes).map(entry),
    timeseries: entries(raw.timeseries).map((item) => ({
      ...entry(item),
      tsField: item.tsField as string | undefined,
      dayfirst: faultActive('RC-ENT-07:dayfirst-ignored')
        ? false
        : faultActive('RC-ENT-08:default-dayfirst')
          ? item.dayfirst !== false
          : item.dayfirst === true,
      yearfirst: faultActive('RC-ENT-09:yearfirst-ignored')
        ? false
        : faultActive('RC-ENT-10:default-yearfirst')
          ? item.yearfirst !== false
          : item.yearfirst === true,
    })),
  };
}

type ResponseSection = NonNullable<RestConnectorFile['mapping'][number]['response']>;

function response(section: ResponseSection | undefined, quirks: ConnectorQuirks): ResponseConfig {
  if (!section) return { kind: 'default' };
  const remoteMembers =
    section.responseExpected !== undefined ||
    section.timeout !== undefined ||
    section.responseAttribute !== undefined;
  const expected =
    section.responseExpected ??
    (faultActive('RC-RESP-05:default-not-expected') ? false : quirks.responseExpectedDefault);
  if (remoteMembers && (expected || faultActive('RC-RESP-05:expected-ignored'))) {
    const attribute = faultActive('RC-RESP-04:default-attribute') ? 'response' : 'result';
    return {
      kind: 'remote',
      responseAttribute: faultActive('RC-RESP-04:attribute-ignored')
        ? attribute
        : (section.responseAttribute ?? attribute),
      timeoutSec: faultActive('RC-RESP-06:timeout-in-ms')
        ? (section.timeout ?? 120) / 1000
        : (section.timeout ?? (faultActive('RC-RESP-06:default-timeout-zero') ? 0 : 120)),
      unsuccessfulResponse: section.unsuccessfulResponse,
    };
  }
  // a response section without the remote members (or with responseExpected false) is the hardcoded variant
  const defaults = quirks.noHardcodedResponseDefaults
    ? { success: '', unsuccessful: '' }
    : {
        success: faultActive('RC-RESP-02:default-success') ? 'Success' : 'OK',
        unsuccessful: faultActive('RC-RESP-03:default-unsuccessful') ? 'Failure' : 'Error',
      };
  return {
    kind: 'hardcoded',
    successResponse: faultActive('RC-RESP-02:success-body-ignored')
      ? defaults.success
      : (section.successResponse ?? defaults.success),
    unsuccessfulResponse: faultActive('RC-RESP-03:unsuccessful-body-ignored')
      ? defaults.unsuccessful
      : (section.unsuccessfulResponse ?? defaults.unsuccessful),
  };
}

type OutgoingSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['serverSideRpc']
>[number];

function outgoing(
  rule: OutgoingSection,
  defaults: { method: string; security: 'basic' | 'anonymous'; url: string; value: string },
  quirks: ConnectorQuirks,
): OutgoingCallConfig {
  const method =
    quirks.outgoingMethodMember === 'HTTPMethod'
      ? rule.HTTPMethod
      : (rule.httpMethod ?? rule.HTTPMethod);
  return {
    method: method ?? quirks.outgoingMethodDefault ?? defaults.method,
    sslVerify: rule.SSLVerify ?? quirks.sslVerifyDefault,
    headers: rule.httpHeaders ?? (quirks.defaultJsonContentType ? JSON_HEADERS : {}),
    // a security section without credentials cannot authenticate: no section means anonymous
    security: rule.security ? security(rule.security, defaults.security) : { type: 'anonymous' },
    timeoutSec: rule.timeout ?? 0.5,
    tries: quirks.triesHonoured ? (rule.tries ?? 3) : 1,
    bodyWithGet: quirks.bodyWithGet,
    allowRedirects: rule.allowRedirects ?? quirks.allowRedirectsDefault,
    requestUrlExpression: rule.requestUrlExpression ?? defaults.url,
    valueExpression:
      rule.valueExpression === undefined
        ? defaults.value
        : typeof rule.valueExpression === 'string'
          ? rule.valueExpression
          : JSON.stringify(rule.valueExpression),
  };
}

/** A filter matches the whole name (Python's re.fullmatch, as the real gateway). */
function fullMatch(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

function applyDefaults(file: RestConnectorFile, quirks: ConnectorQuirks): ConnectorConfig {
  const requests = faultActive('RC-CFG-01:requests-mapping-ignored')
    ? {}
    : (file.requestsMapping ?? {});
  const mappingSecurityDefault = faultActive('RC-SEC-03:default-anonymous')
    ? 'anonymous'
    : quirks.mappingSecurityDefault;
  const mapping: EndpointConfig[] = file.mapping.map((mapping) => ({
    endpoint:
      mapping.endpoint ?? (faultActive('RC-MAP-02:default-endpoint') ? '/test' : '/test_device'),
    methods: mappingMethods(mapping.HTTPMethods),
    security: faultActive('RC-MAP-04:security-ignored')
      ? { type: 'anonymous' }
      : security(mapping.security, mappingSecurityDefault),
    converter: converter(mapping.converter as Record<string, unknown> | undefined),
    response: response(mapping.response, quirks),
  }));
  if (faultActive('RC-AUTH-01:first-security-for-all'))
    for (const endpoint of mapping) endpoint.security = mapping[0]!.security;
  return {
    server: {
      host: file.server.host ?? (faultActive('RC-SRV-01:default-host') ? '::1' : '127.0.0.1'),
      port: Number(file.server.port ?? 5000),
      ssl: file.server.SSL ?? false,
      security: file.server.security,
    },
    mapping,
    attributeRequests: (requests.attributeRequests ?? []).map((rule) => ({
      endpoint:
        rule.endpoint ??
        (faultActive('RC-AREQ-01:default-endpoint') ? '/attributes' : '/sharedAttributes'),
      type: faultActive('RC-AREQ-02:type-ignored')
        ? 'shared'
        : (rule.type ?? (faultActive('RC-AREQ-02:default-client') ? 'client' : 'shared')),
      methods: [
        ...(rule.HTTPMethods ?? [faultActive('RC-AREQ-03:default-methods') ? 'GET' : 'POST']),
      ],
      security: faultActive('RC-AREQ-04:security-ignored')
        ? { type: 'anonymous' }
        : security(
            rule.security,
            faultActive('RC-AREQ-04:default-anonymous')
              ? 'anonymous'
              : quirks.mappingSecurityDefault,
          ),
      timeoutSec: rule.timeout ?? 10,
      deviceNameExpression:
        rule.deviceNameExpression ??
        (faultActive('RC-AREQ-06:default-device-expression') ? '${device}' : '${deviceName}'),
      attributeNameExpression:
        rule.attributeNameExpression ??
        (faultActive('RC-AREQ-07:default-attribute-expression') ? '${attributes}' : '${attribute}'),
    })),
    attributeUpdates: (requests.attributeUpdates ?? []).map((rule) =>
      attributeUpdateRule(rule, quirks),
    ),
    serverSideRpc: (requests.serverSideRpc ?? []).map((rule) => serverSideRpcRule(rule, quirks)),
    quirks,
  };
}

function mappingMethods(methods: readonly string[] | undefined): string[] {
  if (!methods) return [faultActive('RC-MAP-03:default-methods') ? 'POST' : 'GET'];
  return faultActive('RC-MAP-03:first-method-only') ? methods.slice(0, 1) : [...methods];
}

type AttributeUpdateSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['attributeUpdates']
>[number];

function attributeUpdateRule(
  rule: AttributeUpdateSection,
  quirks: ConnectorQuirks,
): AttributeUpdateRule {
  const defaults = {
    method: faultActive('RC-AUPD-02:default-method') ? 'PUT' : 'POST',
    security: 'basic' as const,
    url: 'sensor/${deviceName}/${attributeKey}',
    value: faultActive('RC-AUPD-12:default-value')
      ? '${attributeValue}'
      : '{"${attributeKey}":"${attributeValue}"}',
  };
  const call = outgoing(rule, defaults, quirks);
  const fallback = outgoing({}, defaults, quirks);
  return {
    ...call,
    sslVerify: faultActive('RC-AUPD-03:verify-ignored')
      ? false
      : (rule.SSLVerify ?? (faultActive('RC-AUPD-03:default-verify') ? true : call.sslVerify)),
    ...brokenCall(rule, call, fallback, {
      headersIgnored: faultActive('RC-AUPD-04:headers-ignored'),
      noDefaultContentType: faultActive('RC-AUPD-04:no-default-content-type'),
      securityIgnored: faultActive('RC-AUPD-05:security-ignored'),
      defaultBasic: faultActive('RC-AUPD-05:default-basic'),
      triesIgnored: faultActive('RC-AUPD-07:tries-ignored'),
      defaultTries: faultActive('RC-AUPD-07:default-tries'),
      urlIgnored: faultActive('RC-AUPD-11:expression-ignored'),
      valueIgnored: faultActive('RC-AUPD-12:expression-ignored'),
    }),
    timeoutSec: faultActive('RC-AUPD-06:timeout-ignored')
      ? fallback.timeoutSec
      : faultActive('RC-AUPD-06:no-timeout')
        ? 3600
        : rule.timeout === undefined && faultActive('RC-AUPD-06:default-timeout')
          ? 5
          : call.timeoutSec,
    allowRedirects: faultActive('RC-AUPD-08:false-ignored')
      ? true
      : rule.allowRedirects === undefined && faultActive('RC-AUPD-08:default-no-follow')
        ? false
        : call.allowRedirects,
    deviceNameFilter: fullMatch(
      faultActive('RC-AUPD-09:filter-ignored')
        ? '.*'
        : (rule.deviceNameFilter ?? (faultActive('RC-AUPD-09:default-filter') ? '.*' : '.*REST$')),
    ),
    attributeFilter: fullMatch(
      faultActive('RC-AUPD-10:filter-ignored')
        ? '.*'
        : (rule.attributeFilter ?? (faultActive('RC-AUPD-10:default-filter') ? '.*' : 'data')),
    ),
  };
}

function serverSideRpcRule(rule: OutgoingSection, quirks: ConnectorQuirks): ServerSideRpcRule {
  const defaults = {
    method: faultActive('RC-RPC-07:default-method') ? 'POST' : 'GET',
    security: 'anonymous' as const,
    url: 'http://127.0.0.1:5001/${deviceName}',
    value: faultActive('RC-RPC-08:default-value') ? '{"params": ${params}}' : '${params}',
  };
  const call = outgoing(rule, defaults, quirks);
  const fallback = outgoing({}, defaults, quirks);
  return {
    ...call,
    method: faultActive('RC-RPC-07:method-ignored') ? fallback.method : call.method,
    ...brokenCall(rule, call, fallback, {
      headersIgnored: faultActive('RC-RPC-11:headers-ignored'),
      noDefaultContentType: faultActive('RC-RPC-11:no-default-content-type'),
      securityIgnored: faultActive('RC-RPC-12:security-ignored'),
      defaultBasic: faultActive('RC-RPC-12:default-basic'),
      triesIgnored: faultActive('RC-RPC-10:tries-ignored'),
      defaultTries: faultActive('RC-RPC-10:default-tries'),
      urlIgnored: faultActive('RC-RPC-04:expression-ignored'),
      valueIgnored: faultActive('RC-RPC-08:expression-ignored'),
    }),
    timeoutSec: faultActive('RC-RPC-09:timeout-ignored')
      ? 3600
      : rule.timeout === undefined && faultActive('RC-RPC-09:default-timeout')
        ? 5
        : call.timeoutSec,
    deviceNameFilter: fullMatch(
      faultActive('RC-RPC-02:filter-ignored')
        ? '.*'
        : (rule.deviceNameFilter ?? (faultActive('RC-RPC-02:default-filter') ? '.*REST$' : '.*')),
    ),
    methodFilter: fullMatch(
      faultActive('RC-RPC-03:filter-ignored')
        ? '.*'
        : (rule.methodFilter ?? (faultActive('RC-RPC-03:default-filter') ? '.*' : 'echo')),
    ),
    // without responseTimeout (a gateway 3.8 quirks mode) only timeout bounds the one attempt
    responseTimeoutSec: !quirks.responseTimeoutHonoured
      ? Infinity
      : faultActive('RC-RPC-06:response-timeout-ignored')
        ? 1
        : faultActive('RC-RPC-06:no-deadline')
          ? 3600
          : (rule.responseTimeout ?? (faultActive('RC-RPC-06:default-response-timeout') ? 10 : 1)),
    idPlaceholder: quirks.rpcIdPlaceholder,
  };
}

/** Which members of an outgoing call a fault breaks (the same for attribute updates and RPC rules). */
interface BrokenCall {
  headersIgnored: boolean;
  noDefaultContentType: boolean;
  securityIgnored: boolean;
  defaultBasic: boolean;
  triesIgnored: boolean;
  defaultTries: boolean;
  urlIgnored: boolean;
  valueIgnored: boolean;
}

function brokenCall(
  rule: OutgoingSection,
  call: OutgoingCallConfig,
  fallback: OutgoingCallConfig,
  broken: BrokenCall,
): Pick<
  OutgoingCallConfig,
  'headers' | 'security' | 'tries' | 'requestUrlExpression' | 'valueExpression'
> {
  return {
    headers: broken.headersIgnored
      ? fallback.headers
      : rule.httpHeaders === undefined && broken.noDefaultContentType
        ? {}
        : call.headers,
    security: broken.securityIgnored
      ? { type: 'anonymous' }
      : !rule.security && broken.defaultBasic
        ? security(undefined, 'basic')
        : call.security,
    tries: broken.triesIgnored
      ? fallback.tries
      : rule.tries === undefined && broken.defaultTries
        ? 1
        : call.tries,
    requestUrlExpression: broken.urlIgnored
      ? fallback.requestUrlExpression
      : call.requestUrlExpression,
    valueExpression: broken.valueIgnored ? fallback.valueExpression : call.valueExpression,
  };
}
