/**
 * The defaults of rest.json, read from schemas/rest-connector.ts (their one source) and layered as
 * data: the schema's `default`s, then the quirks mode's (quirks.ts `defaults`), then the active
 * faults' (config-faults.ts). config.ts completes a file with the result; no other file of the
 * connector writes a default.
 *
 * Why a walker over the schema and not ajv's useDefaults on a copy: whether a member is given is
 * itself meaningful here, and useDefaults would erase it. A response section is the remote variant
 * only when it names one of responseExpected / timeout / responseAttribute; a security section with
 * credentials but no type is basic even where the rule's default type is anonymous; the defaults of
 * a quirks mode or a fault apply only where the file is silent; and a section the file leaves out
 * (a mapping's security, a rule's whole security) still has defaults, which useDefaults only fills
 * inside objects that exist. So each default is looked up by its schema path when it is needed.
 */
import {
  customConverterSectionSchema,
  jsonConverterSectionSchema,
  restConnectorConfigSchema,
} from '../../schemas';

type SecurityType = 'basic' | 'anonymous';
type Source = 'request' | 'constant';

/**
 * Each default by its path in the schema (`[]`: an item of an array; `json:` / `custom:`: a
 * converter section).
 */
export interface ConnectorDefaults {
  'server.host': string;
  'server.port': number | string;
  'server.SSL': boolean;
  'mapping[].endpoint': string;
  'mapping[].HTTPMethods': readonly string[];
  'mapping[].security.type': SecurityType;
  'mapping[].security.username': string;
  'mapping[].security.password': string;
  'mapping[].response.successResponse': string;
  'mapping[].response.unsuccessfulResponse': string;
  'mapping[].response.responseExpected': boolean;
  'mapping[].response.timeout': number;
  'mapping[].response.responseAttribute': string;
  'json:deviceInfo.deviceNameExpression': string;
  'json:deviceInfo.deviceNameExpressionSource': Source;
  'json:deviceInfo.deviceProfileExpression': string;
  'json:deviceInfo.deviceProfileExpressionSource': Source;
  'json:timeseries[].dayfirst': boolean;
  'json:timeseries[].yearfirst': boolean;
  'custom:deviceInfo.deviceNameExpression': string;
  'custom:deviceInfo.deviceNameExpressionSource': Source;
  'custom:deviceInfo.deviceProfileExpression': string;
  'custom:deviceInfo.deviceProfileExpressionSource': Source;
  'requestsMapping.attributeRequests[].endpoint': string;
  'requestsMapping.attributeRequests[].type': 'shared' | 'client';
  'requestsMapping.attributeRequests[].HTTPMethods': readonly string[];
  'requestsMapping.attributeRequests[].security.type': SecurityType;
  'requestsMapping.attributeRequests[].security.username': string;
  'requestsMapping.attributeRequests[].security.password': string;
  'requestsMapping.attributeRequests[].timeout': number;
  'requestsMapping.attributeRequests[].deviceNameExpression': string;
  'requestsMapping.attributeRequests[].attributeNameExpression': string;
  'requestsMapping.attributeUpdates[].httpMethod': string;
  'requestsMapping.attributeUpdates[].SSLVerify': boolean;
  'requestsMapping.attributeUpdates[].httpHeaders': Readonly<Record<string, string>>;
  'requestsMapping.attributeUpdates[].security.type': SecurityType;
  'requestsMapping.attributeUpdates[].security.username': string;
  'requestsMapping.attributeUpdates[].security.password': string;
  'requestsMapping.attributeUpdates[].timeout': number;
  'requestsMapping.attributeUpdates[].tries': number;
  'requestsMapping.attributeUpdates[].allowRedirects': boolean;
  'requestsMapping.attributeUpdates[].requestUrlExpression': string;
  'requestsMapping.attributeUpdates[].valueExpression': string;
  'requestsMapping.attributeUpdates[].deviceNameFilter': string;
  'requestsMapping.attributeUpdates[].attributeFilter': string;
  'requestsMapping.serverSideRpc[].httpMethod': string;
  'requestsMapping.serverSideRpc[].SSLVerify': boolean;
  'requestsMapping.serverSideRpc[].httpHeaders': Readonly<Record<string, string>>;
  'requestsMapping.serverSideRpc[].security.type': SecurityType;
  'requestsMapping.serverSideRpc[].security.username': string;
  'requestsMapping.serverSideRpc[].security.password': string;
  'requestsMapping.serverSideRpc[].timeout': number;
  'requestsMapping.serverSideRpc[].tries': number;
  'requestsMapping.serverSideRpc[].allowRedirects': boolean;
  'requestsMapping.serverSideRpc[].requestUrlExpression': string;
  'requestsMapping.serverSideRpc[].valueExpression': string;
  'requestsMapping.serverSideRpc[].deviceNameFilter': string;
  'requestsMapping.serverSideRpc[].methodFilter': string;
  'requestsMapping.serverSideRpc[].responseTimeout': number;
}

export type DefaultPath = keyof ConnectorDefaults;

/** The members every key names (the compiler checks the list against the interface both ways). */
const PATHS = [
  'server.host',
  'server.port',
  'server.SSL',
  'mapping[].endpoint',
  'mapping[].HTTPMethods',
  'mapping[].security.type',
  'mapping[].security.username',
  'mapping[].security.password',
  'mapping[].response.successResponse',
  'mapping[].response.unsuccessfulResponse',
  'mapping[].response.responseExpected',
  'mapping[].response.timeout',
  'mapping[].response.responseAttribute',
  'json:deviceInfo.deviceNameExpression',
  'json:deviceInfo.deviceNameExpressionSource',
  'json:deviceInfo.deviceProfileExpression',
  'json:deviceInfo.deviceProfileExpressionSource',
  'json:timeseries[].dayfirst',
  'json:timeseries[].yearfirst',
  'custom:deviceInfo.deviceNameExpression',
  'custom:deviceInfo.deviceNameExpressionSource',
  'custom:deviceInfo.deviceProfileExpression',
  'custom:deviceInfo.deviceProfileExpressionSource',
  'requestsMapping.attributeRequests[].endpoint',
  'requestsMapping.attributeRequests[].type',
  'requestsMapping.attributeRequests[].HTTPMethods',
  'requestsMapping.attributeRequests[].security.type',
  'requestsMapping.attributeRequests[].security.username',
  'requestsMapping.attributeRequests[].security.password',
  'requestsMapping.attributeRequests[].timeout',
  'requestsMapping.attributeRequests[].deviceNameExpression',
  'requestsMapping.attributeRequests[].attributeNameExpression',
  'requestsMapping.attributeUpdates[].httpMethod',
  'requestsMapping.attributeUpdates[].SSLVerify',
  'requestsMapping.attributeUpdates[].httpHeaders',
  'requestsMapping.attributeUpdates[].security.type',
  'requestsMapping.attributeUpdates[].security.username',
  'requestsMapping.attributeUpdates[].security.password',
  'requestsMapping.attributeUpdates[].timeout',
  'requestsMapping.attributeUpdates[].tries',
  'requestsMapping.attributeUpdates[].allowRedirects',
  'requestsMapping.attributeUpdates[].requestUrlExpression',
  'requestsMapping.attributeUpdates[].valueExpression',
  'requestsMapping.attributeUpdates[].deviceNameFilter',
  'requestsMapping.attributeUpdates[].attributeFilter',
  'requestsMapping.serverSideRpc[].httpMethod',
  'requestsMapping.serverSideRpc[].SSLVerify',
  'requestsMapping.serverSideRpc[].httpHeaders',
  'requestsMapping.serverSideRpc[].security.type',
  'requestsMapping.serverSideRpc[].security.username',
  'requestsMapping.serverSideRpc[].security.password',
  'requestsMapping.serverSideRpc[].timeout',
  'requestsMapping.serverSideRpc[].tries',
  'requestsMapping.serverSideRpc[].allowRedirects',
  'requestsMapping.serverSideRpc[].requestUrlExpression',
  'requestsMapping.serverSideRpc[].valueExpression',
  'requestsMapping.serverSideRpc[].deviceNameFilter',
  'requestsMapping.serverSideRpc[].methodFilter',
  'requestsMapping.serverSideRpc[].responseTimeout',
] as const satisfies readonly DefaultPath[];
// every key of ConnectorDefaults is in PATHS
const _complete: Record<DefaultPath, true> = Object.fromEntries(
  PATHS.map((path) => [path, true]),
) as Record<(typeof PATHS)[number], true>;
void _complete;

/** The `default` at a schema path: `properties` for a member, `items` for `[]`. */
function schemaDefault(path: string): unknown {
  const [root, rest] = path.startsWith('json:')
    ? [jsonConverterSectionSchema, path.slice(5)]
    : path.startsWith('custom:')
      ? [customConverterSectionSchema, path.slice(7)]
      : [restConnectorConfigSchema, path];
  let node: unknown = root;
  for (const segment of rest.split('.')) {
    const name = segment.replace(/\[\]$/, '');
    node = (node as { properties?: Record<string, unknown> }).properties?.[name];
    if (node && segment.endsWith('[]')) node = (node as { items?: unknown }).items;
    if (!node) throw new Error(`schemas/rest-connector.ts has no member ${path}`);
  }
  const value = (node as { default?: unknown }).default;
  if (value === undefined) throw new Error(`schemas/rest-connector.ts gives ${path} no default`);
  return value;
}

/** The schema's defaults, read once. */
export const SCHEMA_DEFAULTS: Readonly<ConnectorDefaults> = Object.freeze(
  Object.fromEntries(
    PATHS.map((path) => [path, schemaDefault(path)]),
  ) as unknown as ConnectorDefaults,
);

/** The defaults a layer (a quirks mode, a fault) puts in place of the schema's. */
export type DefaultsChange = Partial<ConnectorDefaults>;

/** The schema's defaults with the layers applied in order (later layers win). */
export function layeredDefaults(...layers: readonly DefaultsChange[]): Readonly<ConnectorDefaults> {
  return Object.freeze(Object.assign({}, SCHEMA_DEFAULTS, ...layers) as ConnectorDefaults);
}
