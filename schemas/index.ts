/**
 * schemas/ is the single source of truth for payload shapes: the TypeScript types below, the ajv validators
 * (validate.ts) and the fast-check arbitraries (arbitrary.ts) all derive from these JSON Schemas.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { clientAttributesSchema, attributesResponseSchema } from './attributes';
import type { claimSchema } from './claim';
import type { provisionRequestSchema, provisionResponseSchema } from './provision';
import type {
  persistentRpcAcceptedSchema,
  persistentRpcSchema,
  rpcRequestSchema,
  serverRpcCallSchema,
} from './rpc';
import type { targetProfileSchema } from './target';
import type { restConnectorConfigSchema } from './rest-connector';
import type { httpTelemetryLoadOptionsSchema } from './load-http-telemetry';
import type {
  gatewayAttributeRequestSchema,
  gatewayClaimSchema,
  gatewayConnectSchema,
  gatewayRpcReplySchema,
} from './gateway';
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
export * from './rest-connector';
export * from './load-http-telemetry';
export * from './document-types';

export type ClientAttributes = FromSchema<typeof clientAttributesSchema>;
export type AttributesResponse = FromSchema<typeof attributesResponseSchema>;
export type Claim = FromSchema<typeof claimSchema>;
export type ProvisionRequest = FromSchema<typeof provisionRequestSchema>;
export type ProvisionResponse = FromSchema<typeof provisionResponseSchema>;
export type RpcRequest = FromSchema<typeof rpcRequestSchema>;
export type ServerRpcCall = FromSchema<typeof serverRpcCallSchema>;
export type PersistentRpcAccepted = FromSchema<typeof persistentRpcAcceptedSchema>;
export type PersistentRpcRecord = FromSchema<typeof persistentRpcSchema>;
export type TargetProfile = FromSchema<typeof targetProfileSchema>;
export type Requirement = FromSchema<typeof requirementSchema>;
export type RequirementCatalogue = FromSchema<typeof requirementCatalogueSchema>;
/** A rest.json as written (defaults not applied; simulators/connector/config.ts completes it). */
export type RestConnectorFile = FromSchema<typeof restConnectorConfigSchema>;
export type HttpTelemetryLoadOptions = FromSchema<typeof httpTelemetryLoadOptionsSchema>;
export type GatewayConnect = FromSchema<typeof gatewayConnectSchema>;
export type GatewayAttributeRequest = FromSchema<typeof gatewayAttributeRequestSchema>;
export type GatewayRpcReply = FromSchema<typeof gatewayRpcReplySchema>;
export type GatewayClaim = FromSchema<typeof gatewayClaimSchema>;
