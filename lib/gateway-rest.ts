/**
 * The conformance rest.json made runnable by ThingsBoard IoT Gateway 3.8.3. The gateway has no
 * default for several members docs/reference/interfaces.md gives defaults for, and without them
 * stops the connector or drops the request (docs/reference/rest-connector-facts.md;
 * docs/tb-gateway-3.8-deviations.md). `gatewayReadyRest` adds exactly those members, each with the
 * value docs/reference/interfaces.md gives as the default, and nothing else; every addition is a
 * declared deviation of the tb-gateway-3.8 profile (GATEWAY_REQUIRED_MEMBERS names the requirement
 * it belongs to).
 */

type Json = Record<string, unknown>;

/**
 * The conformance file's constant device and profile names (source constant) made the run's: the
 * same names a scenario's <<rest-constant-device>> gives (namePrefix, run id, local name), so a
 * gateway that remembers devices it connected never sees a name of an earlier run.
 */
export function withRunNames(configText: string, runId: string, namePrefix = 'iotc-'): string {
  return configText.replaceAll(`iotc-${RUN_CONSTANT}`, `${namePrefix}${runId}-${RUN_CONSTANT}`);
}

/**
 * The local names the configuration fixes for the whole run (withRunNames): a scenario names them
 * as the run does, whichever lane of its worker it runs in (steps/world.ts unique).
 */
export const RUN_CONSTANT = 'rest-constant-';

/**
 * A member 3.8.3 cannot run without, where it belongs, what docs/reference/interfaces.md makes its
 * default, and its requirement.
 */
interface RequiredMember {
  section:
    | 'server'
    | 'mapping'
    | 'mapping.converter'
    | 'attributeRequests'
    | 'attributeUpdates'
    | 'serverSideRpc';
  member: string;
  specDefault: unknown;
  requirement: string;
}

export const GATEWAY_REQUIRED_MEMBERS: readonly RequiredMember[] = [
  // rest_connector.py:174,194-202 reads server_config['host'] without default: KeyError, nothing
  // listens
  { section: 'server', member: 'host', specDefault: '127.0.0.1', requirement: 'RC-SRV-01' },
  { section: 'mapping', member: 'endpoint', specDefault: '/test_device', requirement: 'RC-MAP-02' },
  { section: 'mapping', member: 'HTTPMethods', specDefault: ['GET'], requirement: 'RC-MAP-03' },
  {
    section: 'mapping.converter',
    member: 'deviceInfo',
    // 3.8.3 reads the sources and the profile with defaults; only the name expression has none
    specDefault: { deviceNameExpression: 'Device ${name}' },
    requirement: 'RC-JSON-02',
  },
  {
    section: 'attributeRequests',
    member: 'endpoint',
    specDefault: '/sharedAttributes',
    requirement: 'RC-AREQ-01',
  },
  {
    section: 'attributeRequests',
    member: 'type',
    specDefault: 'shared',
    requirement: 'RC-AREQ-02',
  },
  {
    section: 'attributeRequests',
    member: 'HTTPMethods',
    specDefault: ['POST'],
    requirement: 'RC-AREQ-03',
  },
  { section: 'attributeRequests', member: 'timeout', specDefault: 10.0, requirement: 'RC-AREQ-05' },
  {
    section: 'attributeRequests',
    member: 'deviceNameExpression',
    specDefault: '${deviceName}',
    requirement: 'RC-AREQ-06',
  },
  {
    section: 'attributeRequests',
    member: 'attributeNameExpression',
    specDefault: '${attribute}',
    requirement: 'RC-AREQ-07',
  },
  {
    section: 'attributeUpdates',
    member: 'deviceNameFilter',
    specDefault: '.*REST$',
    requirement: 'RC-AUPD-09',
  },
  {
    section: 'attributeUpdates',
    member: 'attributeFilter',
    specDefault: 'data',
    requirement: 'RC-AUPD-10',
  },
  // json_rest_downlink_converter.py:39 reads requestUrlExpression without default: KeyError,
  // nothing is sent
  {
    section: 'attributeUpdates',
    member: 'requestUrlExpression',
    specDefault: 'sensor/${deviceName}/${attributeKey}',
    requirement: 'RC-AUPD-11',
  },
  {
    section: 'attributeUpdates',
    member: 'valueExpression',
    specDefault: '{"${attributeKey}":"${attributeValue}"}',
    requirement: 'RC-AUPD-12',
  },
  {
    section: 'serverSideRpc',
    member: 'deviceNameFilter',
    specDefault: '.*',
    requirement: 'RC-RPC-02',
  },
  {
    section: 'serverSideRpc',
    member: 'methodFilter',
    specDefault: 'echo',
    requirement: 'RC-RPC-03',
  },
  // json_rest_downlink_converter.py:52 reads requestUrlExpression without default: no call, no
  // reply (408)
  {
    section: 'serverSideRpc',
    member: 'requestUrlExpression',
    specDefault: 'http://127.0.0.1:5001/${deviceName}',
    requirement: 'RC-RPC-04',
  },
  {
    section: 'serverSideRpc',
    member: 'valueExpression',
    specDefault: '${params}',
    requirement: 'RC-RPC-08',
  },
];

function objects(value: unknown): Json[] {
  return Array.isArray(value)
    ? value.filter((item): item is Json => item !== null && typeof item === 'object')
    : [];
}

/** The sections of a rest.json, each a list of the objects the required members belong to. */
function sections(config: Json): Record<RequiredMember['section'], Json[]> {
  const requests = (config.requestsMapping ?? {}) as Json;
  const mapping = objects(config.mapping);
  const server = config.server;
  return {
    server: server !== null && typeof server === 'object' ? [server as Json] : [],
    mapping,
    'mapping.converter': mapping
      .map((item) => item.converter)
      .filter(
        (converter): converter is Json => converter !== null && typeof converter === 'object',
      ),
    attributeRequests: objects(requests.attributeRequests),
    attributeUpdates: objects(requests.attributeUpdates),
    serverSideRpc: objects(requests.serverSideRpc),
  };
}

/** A copy of `config` with every member 3.8.3 needs filled in with the specification's default. */
export function gatewayReadyRest(config: Json): Json {
  const copy = structuredClone(config);
  const found = sections(copy);
  for (const required of GATEWAY_REQUIRED_MEMBERS) {
    for (const item of found[required.section]) {
      if (item[required.member] === undefined)
        item[required.member] = structuredClone(required.specDefault);
    }
  }
  return copy;
}

/**
 * The required members a rest.json leaves out, as "<section>[<index>].<member>" (for the deviation
 * scenarios).
 */
export function missingGatewayMembers(config: Json, requirements?: readonly string[]): string[] {
  const found = sections(config);
  const missing: string[] = [];
  for (const required of GATEWAY_REQUIRED_MEMBERS) {
    if (requirements && !requirements.includes(required.requirement)) continue;
    found[required.section].forEach((item, index) => {
      if (item[required.member] === undefined)
        missing.push(`${required.section}[${index}].${required.member}`);
    });
  }
  return missing;
}
