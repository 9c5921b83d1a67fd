/**
 * Loading rest.json: the checks of checks.ts, then the effective configuration made once (schema
 * defaults, quirks, configuration faults: completeConfig), so the rest of the connector reads a
 * complete, typed configuration.
 */
import { readFileSync } from 'node:fs';
import type { RestConnectorFile } from '../../schemas';
import { checkConnectorConfig } from './checks';
import { describeJsonSyntaxError } from '../../schemas/validate';
import { missingGatewayMembers } from '../../lib/gateway-rest';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { IotcError } from '../../lib/errors';
import { converter, response, security } from './config-sections';
import { attributeUpdateRule, serverSideRpcRule } from './outgoing-rules';
import { layeredDefaults, type ConnectorDefaults } from './defaults';
import { activeConfigFaults } from './config-faults';
import type { EndpointConfig, ConnectorConfig } from './config-types';

/**
 * A rest.json that is not a valid REST connector configuration, each problem named by its JSON
 * path.
 */
export class ConnectorConfigError extends IotcError {
  readonly code = 'IOTC_CONNECTOR_CONFIG';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid REST connector configuration:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Reads, checks and completes a rest.json file; throws ConnectorConfigError listing every problem.
 * A quirks mode (quirks.ts) changes defaults the way a real gateway version does.
 */
export function loadConnectorConfig(
  path: string,
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
): ConnectorConfig {
  let parsed: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ConnectorConfigError(path, [
        `$: not JSON: ${describeJsonSyntaxError(text, error as Error)}`,
      ]);
    }
  } catch (error) {
    if (error instanceof ConnectorConfigError) throw error;
    throw new ConnectorConfigError(path, [`$: ${(error as Error).message}`]);
  }
  return completeConfig(parsed, path, quirks);
}

/**
 * Checks a parsed rest.json and completes it: the ONE place the effective configuration is made, in
 * this order: the schema's defaults (defaults.ts reads them from schemas/rest-connector.ts), the
 * quirks mode's defaults (quirks.ts), then the active faults that change configuration
 * (config-faults.ts). Handlers read only the result.
 */
export function completeConfig(
  value: unknown,
  source = 'rest.json',
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
): ConnectorConfig {
  const faults = activeConfigFaults();
  const defaults = layeredDefaults(
    quirks.defaults,
    ...faults.flatMap((fault) => (fault.defaults ? [fault.defaults] : [])),
  );
  const problems = checkConnectorConfig(value, defaults);
  if (!problems.length && quirks.requiresGatewayMembers)
    problems.push(
      ...missingGatewayMembers(value as Record<string, unknown>).map(
        (member) => `${member}: required by the gateway version this connector reproduces`,
      ),
    );
  if (problems.length) throw new ConnectorConfigError(source, problems);
  const file = faults.reduce(
    (read, fault) => (fault.file ? fault.file(read) : read),
    value as RestConnectorFile,
  );
  const config = applyDefaults(file, quirks, defaults);
  for (const fault of faults) fault.config?.(config, { file, defaults, quirks });
  return config;
}

/** rest.json with every member it leaves out taken from `defaults`. */
function applyDefaults(
  file: RestConnectorFile,
  quirks: ConnectorQuirks,
  defaults: ConnectorDefaults,
): ConnectorConfig {
  const requests = file.requestsMapping ?? {};
  const mapping: EndpointConfig[] = file.mapping.map((mapping) => ({
    endpoint: mapping.endpoint ?? defaults['mapping[].endpoint'],
    methods: [...(mapping.HTTPMethods ?? defaults['mapping[].HTTPMethods'])],
    security: security(mapping.security, defaults, 'mapping[].security'),
    converter: converter(mapping.converter as Record<string, unknown> | undefined, defaults),
    response: response(mapping.response, defaults),
  }));
  const at = 'requestsMapping.attributeRequests[]';
  return {
    server: {
      host: file.server.host ?? defaults['server.host'],
      port: Number(file.server.port ?? defaults['server.port']),
      ssl: file.server.SSL ?? defaults['server.SSL'],
      security: file.server.security,
    },
    mapping,
    attributeRequests: (requests.attributeRequests ?? []).map((rule) => ({
      endpoint: rule.endpoint ?? defaults[`${at}.endpoint`],
      type: rule.type ?? defaults[`${at}.type`],
      methods: [...(rule.HTTPMethods ?? defaults[`${at}.HTTPMethods`])],
      security: security(rule.security, defaults, `${at}.security`),
      timeoutSec: rule.timeout ?? defaults[`${at}.timeout`],
      deviceNameExpression: rule.deviceNameExpression ?? defaults[`${at}.deviceNameExpression`],
      attributeNameExpression:
        rule.attributeNameExpression ?? defaults[`${at}.attributeNameExpression`],
    })),
    attributeUpdates: (requests.attributeUpdates ?? []).map((rule) =>
      attributeUpdateRule(rule, quirks, defaults),
    ),
    serverSideRpc: (requests.serverSideRpc ?? []).map((rule) =>
      serverSideRpcRule(rule, quirks, defaults),
    ),
    quirks,
  };
}
