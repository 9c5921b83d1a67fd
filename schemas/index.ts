/**
 * schemas/ is the single source of truth for payload shapes: the TypeScript types (below, and
 * DocumentOf in document-types.ts, which parseValid returns), the ajv validators (validate.ts) and
 * the fast-check arbitraries (arbitrary/) all derive from these JSON Schemas.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { persistentRpcAcceptedSchema, persistentRpcSchema, serverRpcCallSchema } from './rpc';
import type { targetProfileSchema } from './target';
import type { restConnectorConfigSchema } from './rest-connector';
import { httpTelemetryLoadOptionsSchema } from './load-http-telemetry';
import { mqttGatewayLoadOptionsSchema } from './load-mqtt-gateway';
import { mqttConnectLoadOptionsSchema } from './load-mqtt-connect';
import type { LoadOptionsSchema } from './load-options';
import { reportRateLimitLoadOptionsSchema } from './load-report-rate-limit';
import type { requirementCatalogueSchema, requirementSchema } from './requirements';

export * from './kv';
export * from './telemetry';
export * from './attributes';
export * from './claim';
export * from './provision';
export * from './rpc';
export * from './firmware';
export * from './gateway';
export * from './device-mqtt';
export * from './device-http';
export * from './ota-mqtt';
export * from './provision-mqtt';
export * from './target';
export * from './requirements';
export * from './conformance';
export * from './rest-connector';
export * from './load-http-telemetry';
export * from './load-mqtt-gateway';
export * from './load-mqtt-connect';
export * from './load-report-rate-limit';
export * from './load-thresholds';
export * from './load-options';
export * from './document-types';

export type ServerRpcCall = FromSchema<typeof serverRpcCallSchema>;
export type PersistentRpcAccepted = FromSchema<typeof persistentRpcAcceptedSchema>;
export type PersistentRpcRecord = FromSchema<typeof persistentRpcSchema>;
export type TargetProfile = FromSchema<typeof targetProfileSchema>;
export type Requirement = FromSchema<typeof requirementSchema>;
export type RequirementCatalogue = FromSchema<typeof requirementCatalogueSchema>;
/**
 * A rest.json as written (defaults not applied, so a defaulted member may be absent;
 * simulators/connector/config.ts completes it).
 */
export type RestConnectorFile = FromSchema<
  typeof restConnectorConfigSchema,
  { keepDefaultedPropertiesOptional: true }
>;

/**
 * Every load profile's options, in the order of `iotc load --help`: one entry per profile, from
 * which its command and flags are derived (src/cli/load-commands.ts) and its module found
 * (load/<cli.command>.ts, load/profiles.ts).
 */
export const LOAD_OPTIONS_SCHEMAS: readonly LoadOptionsSchema[] = [
  reportRateLimitLoadOptionsSchema,
  mqttGatewayLoadOptionsSchema,
  httpTelemetryLoadOptionsSchema,
  mqttConnectLoadOptionsSchema,
];
// defaults are the command line's; a profile run programmatically is given what it needs, or
// applies its own
type LoadOptionsOf<Schema extends JSONSchema> = FromSchema<
  Schema,
  { keepDefaultedPropertiesOptional: true }
>;
export type HttpTelemetryLoadOptions = LoadOptionsOf<typeof httpTelemetryLoadOptionsSchema>;
export type MqttGatewayLoadOptions = LoadOptionsOf<typeof mqttGatewayLoadOptionsSchema>;
export type MqttConnectLoadOptions = LoadOptionsOf<typeof mqttConnectLoadOptionsSchema>;
export type ReportRateLimitLoadOptions = LoadOptionsOf<typeof reportRateLimitLoadOptionsSchema>;
