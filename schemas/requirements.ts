/**
 * features/requirements.json: the requirement catalogue, one entry per normative statement of
 * docs/reference/interfaces.md, and (mqtt-device-api) of the MQTT device API
 * docs/reference/interfaces.md names without showing, as ThingsBoard 4.3 serves it.
 */
export const INTERFACES = [
  'key-value-data',
  'http-device-api',
  'mqtt-gateway-api',
  'mqtt-device-api',
  'rest-connector',
  'admin-auth',
  'analytics-report',
  // not an interface of the specification: behaviour under abuse any target should show (issue 13)
  'robustness',
  // not interfaces of the specification: what `iotc certify` judges of a client beyond them (issue
  // 28)
  'client-tls',
  'client-behaviour',
] as const;

/**
 * Who carries the obligation: the platform (served by the reference platform, checked by `iotc
 * run`), a device or a gateway using the platform's device APIs (checked by `iotc certify`), or the
 * REST connector of the IoT gateway.
 */
export const ROLES = ['platform', 'device', 'gateway', 'connector'] as const;
export type Role = (typeof ROLES)[number];

export const requirementSchema = {
  type: 'object',
  required: ['id', 'interface', 'role', 'statement', 'section', 'level', 'testable'],
  properties: {
    id: { type: 'string', pattern: '^[A-Z]+(-[A-Z0-9]+)+$' },
    interface: { enum: INTERFACES },
    role: { enum: ROLES },
    statement: { type: 'string', minLength: 1 },
    section: { type: 'string', minLength: 1 },
    level: { enum: ['MUST', 'SHOULD', 'MAY'] },
    testable: { type: 'boolean' },
    capability: { type: 'string' },
    note: { type: 'string' },
    /**
     * Where a requirement that is not a statement of the specification comes from (an issue, a
     * platform fact).
     */
    source: { type: 'string', minLength: 1 },
    /**
     * For a requirement stating a default: the objects of the conformance rest.json
     * (src/target/embedded-rest.json) that omit the member, so that its scenarios exercise the
     * default. `object` is a path such as `server`, `mapping[4]`, `mapping[2].converter.deviceInfo`
     * or `requestsMapping.serverSideRpc[4]`. A run checks that the configuration the target really
     * loads still omits it (src/target/effective-rest.ts); where it does not, and the target
     * declares no deviation for the requirement, the requirement is NOT TESTED with that reason.
     */
    defaultOmittedIn: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['object', 'member'],
        properties: {
          object: { type: 'string', minLength: 1 },
          member: { type: 'string', minLength: 1 },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

export const requirementCatalogueSchema = {
  $id: 'iotc:requirements',
  type: 'object',
  required: ['source', 'requirements'],
  properties: {
    source: { type: 'string' },
    /**
     * SHA-256 of the specification the catalogue was written from: a report says when the two
     * differ.
     */
    sourceSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    requirements: { type: 'array', items: requirementSchema },
  },
  additionalProperties: false,
} as const;
