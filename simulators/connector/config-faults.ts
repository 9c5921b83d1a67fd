/**
 * The planted faults that change the connector's configuration, as data
 * (faults/catalogue/rest-connector*.ts says what each breaks). config.ts applies the active ones at
 * three points of completing a rest.json:
 * - `file`: the file as the connector reads it (after the checks, which see the file as given);
 * - `defaults`: defaults in place of the schema's and the quirks mode's (defaults.ts);
 * - `config`: members of the completed configuration, e.g. a member the connector then ignores.
 * A fault that breaks what a handler does, not what it is configured with, is not here.
 */
import type { RestConnectorFile } from '../../schemas';
import { faultActive, type FaultId } from '../../faults';
import type { ConnectorQuirks } from './quirks';
import type { ConnectorDefaults, DefaultsChange } from './defaults';
import { hasRemoteMembers, remoteResponse } from './config-sections';
import { fullMatch, outgoingCall, type OutgoingAt } from './outgoing-rules';
import type {
  ConnectorConfig,
  AttributeUpdateRule,
  ServerSideRpcRule,
  OutgoingCallConfig,
} from './config-types';

/** What completing the file knows, for a `config` change. */
export interface CompletionContext {
  /** The file as read (after the `file` changes). */
  file: RestConnectorFile;
  defaults: ConnectorDefaults;
  quirks: ConnectorQuirks;
}

export interface ConfigFault {
  file?: (file: RestConnectorFile) => RestConnectorFile;
  defaults?: DefaultsChange;
  config?: (config: ConnectorConfig, context: CompletionContext) => void;
}

type Mapping = RestConnectorFile['mapping'][number];
type Requests = NonNullable<RestConnectorFile['requestsMapping']>;
type Converter = Record<string, unknown>;

/** A section of requestsMapping the file leaves out is read as one rule of the defaults. */
function missingRuleDefaulted(section: keyof Requests): ConfigFault {
  return {
    file: (file) => ({
      ...file,
      requestsMapping: {
        ...file.requestsMapping,
        [section]: file.requestsMapping?.[section] ?? [{}],
      },
    }),
  };
}

/** Changes the converter section of every mapping that `which` selects. */
function converters(which: (section: Converter) => boolean, change: Converter): ConfigFault {
  return {
    file: (file) => ({
      ...file,
      mapping: file.mapping.map((mapping): Mapping => {
        const section = (mapping.converter ?? {}) as Converter;
        return which(section)
          ? { ...mapping, converter: { ...section, ...change } as Mapping['converter'] }
          : mapping;
      }),
    }),
  };
}

const noEntries = { attributes: [], timeseries: [] };

/**
 * Changes every rule of one outgoing kind; `unset` is the rule's value where the file says nothing.
 */
function rules<Rule extends AttributeUpdateRule | ServerSideRpcRule>(
  at: OutgoingAt,
  change: (rule: Rule, unset: OutgoingCallConfig, context: CompletionContext) => void,
): ConfigFault['config'] {
  return (config, context) => {
    const list = (
      at === 'requestsMapping.attributeUpdates[]' ? config.attributeUpdates : config.serverSideRpc
    ) as Rule[];
    const unset = outgoingCall({}, at, context.quirks, context.defaults);
    for (const rule of list) change(rule, unset, context);
  };
}

const UPDATES = 'requestsMapping.attributeUpdates[]';
const RPC = 'requestsMapping.serverSideRpc[]';
const anything = fullMatch('.*');
/** A bound no test waits for: the member that would bound the wait is ignored. */
const NO_BOUND_SEC = 3600;

/** Every method the faults that ignore HTTPMethods serve. */
const EVERY_METHOD = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

function certificateIgnored(config: ConnectorConfig): void {
  config.server.security = undefined;
}

function customSections(
  change: (section: Record<string, unknown>) => Record<string, unknown>,
): ConfigFault['config'] {
  return (config) => {
    for (const { converter } of config.mapping)
      if (converter.type === 'custom') converter.section = change(converter.section);
  };
}

const credentialsEmpty: DefaultsChange = Object.fromEntries(
  (['mapping[]', 'requestsMapping.attributeRequests[]', UPDATES, RPC] as const).flatMap((at) => [
    [`${at}.security.username`, ''],
    [`${at}.security.password`, ''],
  ]),
);

const CONFIG_FAULTS: { readonly [id in FaultId]?: ConfigFault } = {
  // the connector and its configuration
  'RC-CFG-01:requests-mapping-ignored': { file: ({ requestsMapping: _, ...file }) => file },
  'RC-CFG-01:missing-attribute-requests-defaulted': missingRuleDefaulted('attributeRequests'),
  'RC-SRV-03:ssl-ignored': {
    config: (config) => {
      config.server.ssl = false;
    },
  },
  'RC-SRV-03:ssl-false-ignored': {
    config: (config) => {
      config.server.ssl = true;
    },
  },
  // a generated pair: the configured certificate is of no use without its key, and the other way
  // round
  'RC-SRV-05:cert-ignored': { config: certificateIgnored },
  'RC-SRV-06:key-ignored': { config: certificateIgnored },
  'RC-SRV-01:default-host': { defaults: { 'server.host': '::1' } },
  'RC-SRV-02:default-port': { defaults: { 'server.port': 5050 } },
  // mapping
  'RC-MAP-02:default-endpoint': { defaults: { 'mapping[].endpoint': '/test' } },
  'RC-MAP-03:default-methods': { defaults: { 'mapping[].HTTPMethods': ['POST'] } },
  'RC-MAP-03:first-method-only': {
    config: (config) => {
      for (const endpoint of config.mapping) endpoint.methods = endpoint.methods.slice(0, 1);
    },
  },
  'RC-MAP-01:only-first-mapping': {
    config: (config) => {
      config.mapping = config.mapping.slice(0, 1);
    },
  },
  'RC-MAP-03:methods-ignored': {
    config: (config) => {
      for (const endpoint of config.mapping) endpoint.methods = [...EVERY_METHOD];
    },
  },
  'RC-MAP-05:first-converter-for-all': {
    config: (config) => {
      for (const endpoint of config.mapping) endpoint.converter = config.mapping[0]!.converter;
    },
  },
  'RC-MAP-04:security-ignored': {
    config: (config) => {
      for (const endpoint of config.mapping) endpoint.security = { type: 'anonymous' };
    },
  },
  'RC-SEC-03:default-anonymous': { defaults: { 'mapping[].security.type': 'anonymous' } },
  'RC-SEC-04:default-credentials': { defaults: credentialsEmpty },
  'RC-AUTH-01:first-security-for-all': {
    config: (config) => {
      for (const endpoint of config.mapping) endpoint.security = config.mapping[0]!.security;
    },
  },
  // converters and entries
  'RC-CONV-01:untyped-converts-nothing': converters(
    (section) => section.type === undefined,
    noEntries,
  ),
  'RC-CONV-02:custom-as-json': converters((section) => section.type === 'custom', { type: 'json' }),
  'RC-JSON-01:explicit-json-ignored': converters((section) => section.type === 'json', noEntries),
  'RC-JSON-02:default-name-expression': {
    defaults: { 'json:deviceInfo.deviceNameExpression': '${name}' },
  },
  'RC-JSON-03:default-source-constant': {
    defaults: { 'json:deviceInfo.deviceNameExpressionSource': 'constant' },
  },
  'RC-JSON-04:default-source-constant': {
    defaults: { 'json:deviceInfo.deviceProfileExpressionSource': 'constant' },
  },
  'RC-JSON-05:default-profile': {
    defaults: {
      'json:deviceInfo.deviceProfileExpression': 'Default',
      'custom:deviceInfo.deviceProfileExpression': 'Default',
    },
  },
  'RC-CUST-02:device-info-ignored': {
    config: (config, { defaults }) => {
      for (const { converter } of config.mapping)
        if (converter.type === 'custom') {
          converter.deviceInfo.deviceNameExpression =
            defaults['custom:deviceInfo.deviceNameExpression'];
          converter.deviceInfo.deviceNameExpressionSource =
            defaults['custom:deviceInfo.deviceNameExpressionSource'];
        }
    },
  },
  // what the custom converter's constructor is given: the whole section, less what these drop
  'RC-CUST-04:extension-config-dropped': {
    config: customSections(({ extensionConfig: _dropped, ...rest }) => rest),
  },
  'RC-CUST-05:only-known-members': {
    config: customSections(({ type, extension, extensionConfig, deviceInfo }) => ({
      type,
      extension,
      extensionConfig,
      deviceInfo,
    })),
  },
  'RC-CUST-02:default-profile': {
    defaults: { 'custom:deviceInfo.deviceProfileExpression': 'custom' },
  },
  'RC-ENT-07:dayfirst-ignored': {
    config: (config) => {
      for (const endpoint of config.mapping)
        if (endpoint.converter.type === 'json')
          for (const entry of endpoint.converter.timeseries) entry.dayfirst = false;
    },
  },
  'RC-ENT-08:default-dayfirst': { defaults: { 'json:timeseries[].dayfirst': true } },
  'RC-ENT-09:yearfirst-ignored': {
    config: (config) => {
      for (const endpoint of config.mapping)
        if (endpoint.converter.type === 'json')
          for (const entry of endpoint.converter.timeseries) entry.yearfirst = false;
    },
  },
  'RC-ENT-10:default-yearfirst': { defaults: { 'json:timeseries[].yearfirst': true } },
  // responses
  'RC-RESP-02:default-success': { defaults: { 'mapping[].response.successResponse': 'Success' } },
  'RC-RESP-02:success-body-ignored': {
    config: (config, { defaults }) => {
      for (const { response } of config.mapping)
        if (response.kind === 'hardcoded')
          response.successResponse = defaults['mapping[].response.successResponse'];
    },
  },
  'RC-RESP-03:default-unsuccessful': {
    defaults: { 'mapping[].response.unsuccessfulResponse': 'Failure' },
  },
  'RC-RESP-03:unsuccessful-body-ignored': {
    config: (config, { defaults }) => {
      for (const { response } of config.mapping)
        if (response.kind === 'hardcoded')
          response.unsuccessfulResponse = defaults['mapping[].response.unsuccessfulResponse'];
    },
  },
  'RC-RESP-04:default-attribute': {
    defaults: { 'mapping[].response.responseAttribute': 'response' },
  },
  'RC-RESP-04:attribute-ignored': {
    config: (config, { defaults }) => {
      for (const { response } of config.mapping)
        if (response.kind === 'remote')
          response.responseAttribute = defaults['mapping[].response.responseAttribute'];
    },
  },
  'RC-RESP-05:default-not-expected': { defaults: { 'mapping[].response.responseExpected': false } },
  'RC-RESP-05:expected-ignored': {
    config: (config, { file, defaults }) => {
      config.mapping.forEach((endpoint, index) => {
        const section = file.mapping[index]?.response;
        if (section && hasRemoteMembers(section) && endpoint.response.kind === 'hardcoded')
          endpoint.response = remoteResponse(section, defaults);
      });
    },
  },
  'RC-RESP-06:timeout-in-ms': {
    config: (config) => {
      for (const { response } of config.mapping)
        if (response.kind === 'remote') response.timeoutSec /= 1000;
    },
  },
  'RC-RESP-06:default-timeout-zero': { defaults: { 'mapping[].response.timeout': 0 } },
  // attribute requests
  'RC-AREQ-01:default-endpoint': {
    defaults: { 'requestsMapping.attributeRequests[].endpoint': '/attributes' },
  },
  'RC-AREQ-02:type-ignored': {
    config: (config, { defaults }) => {
      for (const rule of config.attributeRequests)
        rule.type = defaults['requestsMapping.attributeRequests[].type'];
    },
  },
  'RC-AREQ-02:default-client': {
    defaults: { 'requestsMapping.attributeRequests[].type': 'client' },
  },
  'RC-AREQ-03:default-methods': {
    defaults: { 'requestsMapping.attributeRequests[].HTTPMethods': ['GET'] },
  },
  'RC-AREQ-03:methods-ignored': {
    config: (config) => {
      for (const rule of config.attributeRequests) rule.methods = [...EVERY_METHOD];
    },
  },
  'RC-AREQ-04:security-ignored': {
    config: (config) => {
      for (const rule of config.attributeRequests) rule.security = { type: 'anonymous' };
    },
  },
  'RC-AREQ-04:default-anonymous': {
    defaults: { 'requestsMapping.attributeRequests[].security.type': 'anonymous' },
  },
  'RC-AREQ-06:default-device-expression': {
    defaults: { 'requestsMapping.attributeRequests[].deviceNameExpression': '${device}' },
  },
  'RC-AREQ-07:default-attribute-expression': {
    defaults: { 'requestsMapping.attributeRequests[].attributeNameExpression': '${attributes}' },
  },
  // attribute updates
  'RC-AUPD-01:missing-section-defaulted': missingRuleDefaulted('attributeUpdates'),
  'RC-AUPD-02:default-method': { defaults: { [`${UPDATES}.httpMethod`]: 'PUT' } },
  'RC-AUPD-02:method-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.method = unset.method;
    }),
  },
  'RC-AUPD-03:verify-ignored': {
    config: rules(UPDATES, (rule) => {
      rule.sslVerify = false;
    }),
  },
  'RC-AUPD-03:default-verify': { defaults: { [`${UPDATES}.SSLVerify`]: true } },
  'RC-AUPD-04:headers-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.headers = unset.headers;
    }),
  },
  'RC-AUPD-04:no-default-content-type': { defaults: { [`${UPDATES}.httpHeaders`]: {} } },
  'RC-AUPD-05:security-ignored': {
    config: rules(UPDATES, (rule) => {
      rule.security = { type: 'anonymous' };
    }),
  },
  'RC-AUPD-05:default-anonymous': { defaults: { [`${UPDATES}.security.type`]: 'anonymous' } },
  'RC-AUPD-06:timeout-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.timeoutSec = unset.timeoutSec;
    }),
  },
  'RC-AUPD-06:no-timeout': {
    config: rules(UPDATES, (rule) => {
      rule.timeoutSec = NO_BOUND_SEC;
    }),
  },
  'RC-AUPD-06:default-timeout': { defaults: { [`${UPDATES}.timeout`]: 5 } },
  'RC-AUPD-06:default-timeout-short': { defaults: { [`${UPDATES}.timeout`]: 0.2 } },
  'RC-AUPD-07:tries-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.tries = unset.tries;
    }),
  },
  'RC-AUPD-07:default-tries': { defaults: { [`${UPDATES}.tries`]: 1 } },
  'RC-AUPD-08:false-ignored': {
    config: rules(UPDATES, (rule) => {
      rule.allowRedirects = true;
    }),
  },
  'RC-AUPD-08:default-no-follow': { defaults: { [`${UPDATES}.allowRedirects`]: false } },
  'RC-AUPD-09:filter-ignored': {
    config: rules<AttributeUpdateRule>(UPDATES, (rule) => {
      rule.deviceNameFilter = anything;
    }),
  },
  'RC-AUPD-09:default-filter': { defaults: { [`${UPDATES}.deviceNameFilter`]: '.*' } },
  'RC-AUPD-10:filter-ignored': {
    config: rules<AttributeUpdateRule>(UPDATES, (rule) => {
      rule.attributeFilter = anything;
    }),
  },
  'RC-AUPD-10:default-filter': { defaults: { [`${UPDATES}.attributeFilter`]: '.*' } },
  'RC-AUPD-11:expression-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.requestUrlExpression = unset.requestUrlExpression;
    }),
  },
  'RC-AUPD-11:default-url': {
    defaults: { [`${UPDATES}.requestUrlExpression`]: 'sensor/${deviceName}' },
  },
  'RC-AUPD-12:expression-ignored': {
    config: rules(UPDATES, (rule, unset) => {
      rule.valueExpression = unset.valueExpression;
    }),
  },
  'RC-AUPD-12:default-value': { defaults: { [`${UPDATES}.valueExpression`]: '${attributeValue}' } },
  // server-side RPC
  'RC-RPC-01:missing-section-defaulted': missingRuleDefaulted('serverSideRpc'),
  'RC-RPC-02:filter-ignored': {
    config: rules<ServerSideRpcRule>(RPC, (rule) => {
      rule.deviceNameFilter = anything;
    }),
  },
  'RC-RPC-02:default-filter': { defaults: { [`${RPC}.deviceNameFilter`]: '.*REST$' } },
  'RC-RPC-03:filter-ignored': {
    config: rules<ServerSideRpcRule>(RPC, (rule) => {
      rule.methodFilter = anything;
    }),
  },
  'RC-RPC-03:default-filter': { defaults: { [`${RPC}.methodFilter`]: '.*' } },
  'RC-RPC-04:expression-ignored': {
    config: rules(RPC, (rule, unset) => {
      rule.requestUrlExpression = unset.requestUrlExpression;
    }),
  },
  'RC-RPC-04:default-url': {
    defaults: { [`${RPC}.requestUrlExpression`]: 'http://127.0.0.1:5001/rpc/${deviceName}' },
  },
  'RC-RPC-06:response-timeout-ignored': {
    config: rules<ServerSideRpcRule>(RPC, (rule, _, { defaults, quirks }) => {
      if (quirks.responseTimeoutHonoured)
        rule.responseTimeoutSec = defaults[`${RPC}.responseTimeout`];
    }),
  },
  'RC-RPC-06:no-deadline': {
    config: rules<ServerSideRpcRule>(RPC, (rule, _, { quirks }) => {
      if (quirks.responseTimeoutHonoured) rule.responseTimeoutSec = NO_BOUND_SEC;
    }),
  },
  'RC-RPC-06:default-response-timeout': { defaults: { [`${RPC}.responseTimeout`]: 10 } },
  'RC-RPC-07:method-ignored': {
    config: rules(RPC, (rule, unset) => {
      rule.method = unset.method;
    }),
  },
  'RC-RPC-07:default-method': { defaults: { [`${RPC}.httpMethod`]: 'POST' } },
  'RC-RPC-08:expression-ignored': {
    config: rules(RPC, (rule, unset) => {
      rule.valueExpression = unset.valueExpression;
    }),
  },
  'RC-RPC-08:default-value': { defaults: { [`${RPC}.valueExpression`]: '{"params": ${params}}' } },
  'RC-RPC-09:timeout-ignored': {
    config: rules(RPC, (rule) => {
      rule.timeoutSec = NO_BOUND_SEC;
    }),
  },
  'RC-RPC-09:default-timeout': { defaults: { [`${RPC}.timeout`]: 5 } },
  'RC-RPC-09:default-timeout-short': { defaults: { [`${RPC}.timeout`]: 0.3 } },
  'RC-RPC-10:tries-ignored': {
    config: rules(RPC, (rule, unset) => {
      rule.tries = unset.tries;
    }),
  },
  'RC-RPC-10:default-tries': { defaults: { [`${RPC}.tries`]: 1 } },
  'RC-RPC-11:headers-ignored': {
    config: rules(RPC, (rule, unset) => {
      rule.headers = unset.headers;
    }),
  },
  'RC-RPC-11:no-default-content-type': { defaults: { [`${RPC}.httpHeaders`]: {} } },
  'RC-RPC-12:security-ignored': {
    config: rules(RPC, (rule) => {
      rule.security = { type: 'anonymous' };
    }),
  },
  'RC-RPC-12:default-basic': { defaults: { [`${RPC}.security.type`]: 'basic' } },
};

/** The configuration faults that are on, in the table's order. */
export function activeConfigFaults(): ConfigFault[] {
  return (Object.keys(CONFIG_FAULTS) as FaultId[])
    .filter((id) => faultActive(id))
    .map((id) => CONFIG_FAULTS[id]!);
}
