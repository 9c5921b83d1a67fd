/**
 * Quirks mode of the reference connector: it reproduces a chosen subset of a real gateway version's known
 * differences from interfaces.md, so that a deviation profile of that version (declared deviations, verified by
 * `@deviation-<id>` scenarios) is itself tested here. The reference's own behaviour (no quirks) is the
 * specification's; a quirks mode never becomes the default. As simulators/platform/quirks.ts, differences only:
 * never the real gateway's blocking defects (one global answer queue, a blocked event loop).
 */
export interface ConnectorQuirks {
  /** Hardcoded responses without successResponse / unsuccessfulResponse answer an empty body, not OK / Error. */
  noHardcodedResponseDefaults: boolean;
  /** The security a mapping endpoint has when rest.json gives none: basic per interfaces.md. */
  mappingSecurityDefault: 'basic' | 'anonymous';
  /** Defaults of the outgoing calls (attributeUpdates, serverSideRpc): interfaces.md says false and true. */
  sslVerifyDefault: boolean;
  allowRedirectsDefault: boolean;
  /** The placeholder that carries the RPC id in requestUrlExpression / valueExpression (interfaces.md: requestId). */
  rpcIdPlaceholder: 'requestId' | 'restId';
}

export const NO_CONNECTOR_QUIRKS: ConnectorQuirks = {
  noHardcodedResponseDefaults: false,
  mappingSecurityDefault: 'basic',
  sslVerifyDefault: false,
  allowRedirectsDefault: true,
  rpcIdPlaceholder: 'requestId',
};

export const CONNECTOR_QUIRKS_MODES = {
  /**
   * ThingsBoard IoT Gateway 3.8.3 (rest-connector-facts.md): no OK / Error defaults (§5, §12), mappings without
   * security are anonymous (§12), SSLVerify true and allowRedirects false by default (§8), only ${restId} (§0.5,
   * §9: ${requestId} stays literal and is sent percent-encoded).
   */
  'tb-gateway-3.8': {
    noHardcodedResponseDefaults: true,
    mappingSecurityDefault: 'anonymous',
    sslVerifyDefault: true,
    allowRedirectsDefault: false,
    rpcIdPlaceholder: 'restId',
  },
} as const satisfies Record<string, ConnectorQuirks>;

export type ConnectorQuirksMode = keyof typeof CONNECTOR_QUIRKS_MODES;

export function connectorQuirks(mode: ConnectorQuirksMode | undefined): ConnectorQuirks {
  return mode ? CONNECTOR_QUIRKS_MODES[mode] : NO_CONNECTOR_QUIRKS;
}
