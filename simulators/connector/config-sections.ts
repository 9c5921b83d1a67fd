/**
 * The defaults of the sections a mapping is made of (security, deviceInfo, converter, response), for config.ts and
 * outgoing-rules.ts.
 */
import type { RestConnectorFile } from '../../schemas';
import { faultActive } from '../../faults';
import type { ConnectorQuirks } from './quirks';
import type {
  Security,
  EntryType,
  Entry,
  DeviceInfo,
  ConverterConfig,
  ResponseConfig,
} from './config-types';

export const JSON_HEADERS = { 'CONTENT-TYPE': 'application/json' };
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

export function security(
  section: { type?: 'basic' | 'anonymous'; username?: string; password?: string } | undefined,
  fallback: 'basic' | 'anonymous',
): Security {
  const type =
    section?.type ??
    (section && (section.username !== undefined || section.password !== undefined)
      ? 'basic'
      : fallback);
  // docs/reference/interfaces.md: basic's username and password default to the placeholders <USERNAME> and <PASSWORD>
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
  // the custom converter's defaults are constant sources and a fixed name (docs/reference/interfaces.md)
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

export function converter(section: Record<string, unknown> | undefined): ConverterConfig {
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

export function response(
  section: ResponseSection | undefined,
  quirks: ConnectorQuirks,
): ResponseConfig {
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
