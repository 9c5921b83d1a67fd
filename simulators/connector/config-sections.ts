/**
 * The sections a mapping is made of (security, deviceInfo, converter, response) completed with the
 * effective defaults (defaults.ts), for config.ts and outgoing-rules.ts. Behaviour only: defaults
 * come from the schema, a quirks mode or a fault (config-faults.ts), never from here.
 */
import type { RestConnectorFile } from '../../schemas';
import type { ConnectorDefaults } from './defaults';
import type {
  Security,
  EntryType,
  Entry,
  DeviceInfo,
  ConverterConfig,
  ResponseConfig,
} from './config-types';

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

/** The sections that have a security member, by their schema path. */
export type SecurityAt =
  | 'mapping[].security'
  | 'requestsMapping.attributeRequests[].security'
  | 'requestsMapping.attributeUpdates[].security'
  | 'requestsMapping.serverSideRpc[].security';

export function security(
  section: { type?: 'basic' | 'anonymous'; username?: string; password?: string } | undefined,
  defaults: ConnectorDefaults,
  at: SecurityAt,
): Security {
  // credentials without a type are basic, whatever the section's default type
  const type =
    section?.type ??
    (section && (section.username !== undefined || section.password !== undefined)
      ? 'basic'
      : defaults[`${at}.type`]);
  return type === 'anonymous'
    ? { type }
    : {
        type,
        username: section?.username ?? defaults[`${at}.username`],
        password: section?.password ?? defaults[`${at}.password`],
      };
}

function deviceInfo(
  section: Partial<DeviceInfo> | undefined,
  converterType: 'json' | 'custom',
  defaults: ConnectorDefaults,
): DeviceInfo {
  const at = `${converterType}:deviceInfo` as const;
  return {
    deviceNameExpression: section?.deviceNameExpression ?? defaults[`${at}.deviceNameExpression`],
    deviceNameExpressionSource:
      section?.deviceNameExpressionSource ?? defaults[`${at}.deviceNameExpressionSource`],
    deviceProfileExpression:
      section?.deviceProfileExpression ?? defaults[`${at}.deviceProfileExpression`],
    deviceProfileExpressionSource:
      section?.deviceProfileExpressionSource ?? defaults[`${at}.deviceProfileExpressionSource`],
  };
}

export function converter(
  section: Record<string, unknown> | undefined,
  defaults: ConnectorDefaults,
): ConverterConfig {
  const raw = section ?? {};
  if (raw.type === 'custom')
    return {
      type: 'custom',
      deviceInfo: deviceInfo(raw.deviceInfo as Partial<DeviceInfo>, 'custom', defaults),
      extension: String(raw.extension),
      section: raw,
    };
  const entry = (item: Record<string, unknown>): Entry => ({
    key: String(item.key),
    type: ENTRY_TYPE_NAMES[String(item.type)] ?? 'string',
    value: item.value as Entry['value'],
  });
  const entries = (list: unknown) => (list ?? []) as Array<Record<string, unknown>>;
  return {
    type: 'json',
    deviceInfo: deviceInfo(raw.deviceInfo as Partial<DeviceInfo>, 'json', defaults),
    attributes: entries(raw.attributes).map(entry),
    timeseries: entries(raw.timeseries).map((item) => ({
      ...entry(item),
      tsField: item.tsField as string | undefined,
      dayfirst: (item.dayfirst as boolean | undefined) ?? defaults['json:timeseries[].dayfirst'],
      yearfirst: (item.yearfirst as boolean | undefined) ?? defaults['json:timeseries[].yearfirst'],
    })),
  };
}

export type ResponseSection = NonNullable<RestConnectorFile['mapping'][number]['response']>;

/**
 * A response section that names responseExpected, timeout or responseAttribute may be the remote
 * variant.
 */
export function hasRemoteMembers(section: ResponseSection): boolean {
  return (
    section.responseExpected !== undefined ||
    section.timeout !== undefined ||
    section.responseAttribute !== undefined
  );
}

export function response(
  section: ResponseSection | undefined,
  defaults: ConnectorDefaults,
): ResponseConfig {
  if (!section) return { kind: 'default' };
  const expected = section.responseExpected ?? defaults['mapping[].response.responseExpected'];
  if (hasRemoteMembers(section) && expected) return remoteResponse(section, defaults);
  // a response section without the remote members (or with responseExpected false) is the hardcoded
  // variant
  return {
    kind: 'hardcoded',
    successResponse: section.successResponse ?? defaults['mapping[].response.successResponse'],
    unsuccessfulResponse:
      section.unsuccessfulResponse ?? defaults['mapping[].response.unsuccessfulResponse'],
  };
}

export function remoteResponse(
  section: ResponseSection,
  defaults: ConnectorDefaults,
): ResponseConfig & { kind: 'remote' } {
  return {
    kind: 'remote',
    responseAttribute:
      section.responseAttribute ?? defaults['mapping[].response.responseAttribute'],
    timeoutSec: section.timeout ?? defaults['mapping[].response.timeout'],
    unsuccessfulResponse: section.unsuccessfulResponse,
  };
}
