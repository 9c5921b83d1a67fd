/**
 * Loading rest.json: the checks of checks.ts, then the defaults of docs/reference/interfaces.md applied once, so the rest of the
 * connector reads a complete, typed configuration.
 */
import { readFileSync } from 'node:fs';
import type { RestConnectorFile } from '../../schemas';
import { faultActive } from '../../faults';
import { checkConnectorConfig } from './checks';
import { describeJsonSyntaxError } from '../../schemas/validate';
import { missingGatewayMembers } from '../../lib/gateway-rest';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { IotcError } from '../../lib/errors';
import { converter, response, security } from './config-sections';
import { attributeUpdateRule, serverSideRpcRule } from './outgoing-rules';
import type { EndpointConfig, ConnectorConfig } from './config-types';

/** A rest.json that is not a valid REST connector configuration, each problem named by its JSON path. */
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
 * Reads, checks and completes a rest.json file; throws ConnectorConfigError listing every problem. A quirks mode
 * (quirks.ts) changes defaults the way a real gateway version does.
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
      port: Number(file.server.port ?? (faultActive('RC-SRV-02:default-port') ? 5050 : 5000)),
      ssl: file.server.SSL ?? false,
      security: file.server.security,
    },
    mapping,
    attributeRequests: (
      requests.attributeRequests ??
      (faultActive('RC-CFG-01:missing-attribute-requests-defaulted')
        ? [{} as NonNullable<typeof requests.attributeRequests>[number]]
        : [])
    ).map((rule) => ({
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
    attributeUpdates: (
      requests.attributeUpdates ??
      (faultActive('RC-AUPD-01:missing-section-defaulted')
        ? [{} as NonNullable<typeof requests.attributeUpdates>[number]]
        : [])
    ).map((rule) => attributeUpdateRule(rule, quirks)),
    serverSideRpc: (
      requests.serverSideRpc ??
      (faultActive('RC-RPC-01:missing-section-defaulted')
        ? [{} as NonNullable<typeof requests.serverSideRpc>[number]]
        : [])
    ).map((rule) => serverSideRpcRule(rule, quirks)),
    quirks,
  };
}

function mappingMethods(methods: readonly string[] | undefined): string[] {
  if (!methods) return [faultActive('RC-MAP-03:default-methods') ? 'POST' : 'GET'];
  return faultActive('RC-MAP-03:first-method-only') ? methods.slice(0, 1) : [...methods];
}
