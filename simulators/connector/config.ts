/**
 * Loading rest.json: the checks of checks.ts, then the defaults of interfaces.md applied once, so the rest of the
 * connector reads a complete, typed configuration.
 */
import { readFileSync } from 'node:fs';
import type { RestConnectorFile } from '../../schemas';
import { checkConnectorConfig } from './checks';
import { missingGatewayMembers } from '../../src/target/gateway-rest';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';

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

export class ConnectorConfigError extends Error {
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
  return type === 'anonymous'
    ? { type }
    : {
        type,
        username: section?.username ?? '<USERNAME>',
        password: section?.password ?? '<PASSWORD>',
      };
}

function deviceInfo(section: Partial<DeviceInfo> | undefined, custom: boolean): DeviceInfo {
  // the custom converter's defaults are constant sources and a fixed name (interfaces.md)
  return {
    deviceNameExpression:
      section?.deviceNameExpression ?? (custom ? 'Custom device' : 'Device ${name}'),
    deviceNameExpressionSource:
      section?.deviceNameExpressionSource ?? (custom ? 'constant' : 'request'),
    deviceProfileExpression: section?.deviceProfileExpression ?? 'default',
    deviceProfileExpressionSource:
      section?.deviceProfileExpressionSource ?? (custom ? 'constant' : 'request'),
  };
}

function converter(section: Record<string, unknown> | undefined): ConverterConfig {
  const raw = section ?? {};
  if (raw.type === 'custom')
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
  return {
    type: 'json',
    deviceInfo: deviceInfo(raw.deviceInfo as Partial<DeviceInfo>, false),
    attributes: ((raw.attributes ?? []) as Array<Record<string, unknown>>).map(entry),
    timeseries: ((raw.timeseries ?? []) as Array<Record<string, unknown>>).map((item) => ({
      ...entry(item),
      tsField: item.tsField as string | undefined,
      dayfirst: item.dayfirst === true,
      yearfirst: item.yearfirst === true,
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
  if (remoteMembers && (section.responseExpected ?? quirks.responseExpectedDefault)) {
    return {
      kind: 'remote',
      responseAttribute: section.responseAttribute ?? 'result',
      timeoutSec: section.timeout ?? 120,
      unsuccessfulResponse: section.unsuccessfulResponse,
    };
  }
  // a response section without the remote members (or with responseExpected false) is the hardcoded variant
  const defaults = quirks.noHardcodedResponseDefaults
    ? { success: '', unsuccessful: '' }
    : { success: 'OK', unsuccessful: 'Error' };
  return {
    kind: 'hardcoded',
    successResponse: section.successResponse ?? defaults.success,
    unsuccessfulResponse: section.unsuccessfulResponse ?? defaults.unsuccessful,
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
  const requests = file.requestsMapping ?? {};
  return {
    server: {
      host: file.server.host ?? '127.0.0.1',
      port: Number(file.server.port ?? 5000),
      ssl: file.server.SSL ?? false,
      security: file.server.security,
    },
    mapping: file.mapping.map((mapping) => ({
      endpoint: mapping.endpoint ?? '/test_device',
      methods: [...(mapping.HTTPMethods ?? ['GET'])],
      security: security(mapping.security, quirks.mappingSecurityDefault),
      converter: converter(mapping.converter as Record<string, unknown> | undefined),
      response: response(mapping.response, quirks),
    })),
    attributeRequests: (requests.attributeRequests ?? []).map((rule) => ({
      endpoint: rule.endpoint ?? '/sharedAttributes',
      type: rule.type ?? 'shared',
      methods: [...(rule.HTTPMethods ?? ['POST'])],
      security: security(rule.security, quirks.mappingSecurityDefault),
      timeoutSec: rule.timeout ?? 10,
      deviceNameExpression: rule.deviceNameExpression ?? '${deviceName}',
      attributeNameExpression: rule.attributeNameExpression ?? '${attribute}',
    })),
    attributeUpdates: (requests.attributeUpdates ?? []).map((rule) => ({
      ...outgoing(
        rule,
        {
          method: 'POST',
          security: 'basic',
          url: 'sensor/${deviceName}/${attributeKey}',
          value: '{"${attributeKey}":"${attributeValue}"}',
        },
        quirks,
      ),
      deviceNameFilter: fullMatch(rule.deviceNameFilter ?? '.*REST$'),
      attributeFilter: fullMatch(rule.attributeFilter ?? 'data'),
    })),
    serverSideRpc: (requests.serverSideRpc ?? []).map((rule) => ({
      ...outgoing(
        rule,
        {
          method: 'GET',
          security: 'anonymous',
          url: 'http://127.0.0.1:5001/${deviceName}',
          value: '${params}',
        },
        quirks,
      ),
      deviceNameFilter: fullMatch(rule.deviceNameFilter ?? '.*'),
      methodFilter: fullMatch(rule.methodFilter ?? 'echo'),
      // without responseTimeout only timeout bounds the one attempt
      responseTimeoutSec: quirks.responseTimeoutHonoured ? (rule.responseTimeout ?? 1) : Infinity,
      idPlaceholder: quirks.rpcIdPlaceholder,
    })),
    quirks,
  };
}
