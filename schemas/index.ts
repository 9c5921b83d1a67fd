/**
 * schemas/ is the single source of truth for payload shapes: the TypeScript types (below, and DocumentOf in
 * document-types.ts, which parseValid returns), the ajv validators (validate.ts) and the fast-check arbitraries
 * (arbitrary/) all derive from these JSON Schemas.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { persistentRpcAcceptedSchema, persistentRpcSchema, serverRpcCallSchema } from './rpc';
import type { targetProfileSchema } from './target';
import type { restConnectorConfigSchema } from './rest-connector';
import type { httpTelemetryLoadOptionsSchema } from './load-http-telemetry';
import type { mqttGatewayLoadOptionsSchema } from './load-mqtt-gateway';
import type { mqttConnectLoadOptionsSchema } from './load-mqtt-connect';
import type { reportRateLimitLoadOptionsSchema } from './load-report-rate-limit';
import type { requirementCatalogueSchema, requirementSchema } from './requirements';

export * from './kv';
export * from './telemetry';
export * from './attributes';
export * from './claim';
export * from './provision';
export * from './rpc';
export * from './firmware';
export * from './gateway';
export * from './target';
export * from './requirements';
export * from './conformance';
export * from './rest-connector';
export * from './load-http-telemetry';
export * from './load-mqtt-gateway';
export * from './load-mqtt-connect';
export * from './load-report-rate-limit';
export * from './load-thresholds';
export * from './document-types';

export type ServerRpcCall = FromSchema<typeof serverRpcCallSchema>;
export type PersistentRpcAccepted = FromSchema<typeof persistentRpcAcceptedSchema>;
export type PersistentRpcRecord = FromSchema<typeof persistentRpcSchema>;
export type TargetProfile = FromSchema<typeof targetProfileSchema>;
export type Requirement = FromSchema<typeof requirementSchema>;
export type RequirementCatalogue = FromSchema<typeof requirementCatalogueSchema>;
/** A rest.json as written (defaults not applied; simulators/connector/config.ts completes it). */
export type RestConnectorFile = FromSchema<typeof restConnectorConfigSchema>;
export type HttpTelemetryLoadOptions = FromSchema<typeof httpTelemetryLoadOptionsSchema>;
export type MqttGatewayLoadOptions = FromSchema<typeof mqttGatewayLoadOptionsSchema>;
export type MqttConnectLoadOptions = FromSchema<typeof mqttConnectLoadOptionsSchema>;
export type ReportRateLimitLoadOptions = FromSchema<typeof reportRateLimitLoadOptionsSchema>;
