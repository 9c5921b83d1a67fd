/**
 * Quirks mode of the reference connector: it reproduces a chosen subset of a real gateway version's
 * known differences from docs/reference/interfaces.md, so that a deviation profile of that version
 * (declared deviations, verified by `@deviation-<id>` scenarios) is itself tested here. The
 * reference's own behaviour (no quirks) is the specification's; a quirks mode never becomes the
 * default. As simulators/platform/quirks.ts, differences only: never the real gateway's blocking
 * defects (one global answer queue, a blocked event loop).
 */
import type { DefaultsChange } from './defaults';

export interface ConnectorQuirks {
  /**
   * The defaults of rest.json the version has in place of the schema's (schemas/rest-connector.ts),
   * as data: defaults.ts layers them over the schema's, before the faults'.
   */
  defaults: DefaultsChange;
  /**
   * The placeholder that carries the RPC id in requestUrlExpression / valueExpression
   * (docs/reference/interfaces.md: requestId).
   */
  rpcIdPlaceholder: 'requestId' | 'restId';
  /** Only the first ${...} of each /-separated segment of an RPC requestUrlExpression is filled. */
  rpcUrlFirstPlaceholderPerSegment: boolean;
  /**
   * A file must name the members the version has no default for (src/target/gateway-rest.ts), else
   * it is refused.
   */
  requiresGatewayMembers: boolean;
  /** Entry types are ignored: every value is sent as the text Python's str() gives it. */
  valuesAsText: boolean;
  /**
   * A missing field inside a composite value is rendered as the text None (a value that is None
   * alone is dropped).
   */
  noneInCompositeValues: boolean;
  /**
   * The status of an Authorization header that is not Basic with decodable credentials
   * (docs/reference/interfaces.md: refused, 401).
   */
  malformedAuthorizationStatus: 401 | 500;
  /**
   * The web server's own pages answer some refusals instead of the endpoint's response variant
   * (unsuccessfulResponse): the router's 405 for a method the endpoint does not list, and the 500
   * page of an uncaught error (an Authorization that is not Basic with decodable credentials, when
   * that is a 500; a JSON body that is no object).
   */
  errorPagesOfTheServer: boolean;
  /** A body that is not UTF-8 text is refused with 500 before any converter runs. */
  binaryBodiesRefused: boolean;
  /** A remote answer is the text Python's str() gives the value, not JSON. */
  remoteAnswerAsPythonText: boolean;
  /**
   * An attribute-request endpoint answers the platform's whole attribute message, not key to value.
   */
  attributeAnswerIsPlatformMessage: boolean;
  /**
   * Which member of an outgoing rule names its method (docs/reference/interfaces.md: httpMethod).
   */
  outgoingMethodMember: 'httpMethod' | 'HTTPMethod';
  /** A GET call carries the rendered valueExpression as its body too (python requests sends it). */
  bodyWithGet: boolean;
  /** tries is honoured (docs/reference/interfaces.md) or every call is attempted once. */
  triesHonoured: boolean;
  /**
   * responseTimeout bounds an RPC call (docs/reference/interfaces.md), or only timeout bounds the
   * one attempt.
   */
  responseTimeoutHonoured: boolean;
  /**
   * RPC replies wrap the answer as {result: answer}, failures as {result: {error: <reason phrase>,
   * code}}.
   */
  rpcReplyWrapped: boolean;
  /**
   * The built-in get / set methods take JSON params (docs/reference/interfaces.md) or fail on them
   * without a reply.
   */
  builtInRpcJsonParams: boolean;
}

export const NO_CONNECTOR_QUIRKS: ConnectorQuirks = {
  defaults: {},
  rpcIdPlaceholder: 'requestId',
  rpcUrlFirstPlaceholderPerSegment: false,
  requiresGatewayMembers: false,
  valuesAsText: false,
  noneInCompositeValues: false,
  malformedAuthorizationStatus: 401,
  errorPagesOfTheServer: false,
  binaryBodiesRefused: false,
  remoteAnswerAsPythonText: false,
  attributeAnswerIsPlatformMessage: false,
  outgoingMethodMember: 'httpMethod',
  bodyWithGet: false,
  triesHonoured: true,
  responseTimeoutHonoured: true,
  rpcReplyWrapped: false,
  builtInRpcJsonParams: true,
};

export const CONNECTOR_QUIRKS_MODES = {
  /**
   * ThingsBoard IoT Gateway 3.8.3 (docs/reference/rest-connector-facts.md, and what a real 3.8.3
   * did on the wire: docs/tb-gateway-3.8-deviations.md): no OK / Error defaults (§5, §12), mappings
   * without security are anonymous (§12) and so are attribute-update rules without security
   * (rest_connector.py __form_request_from_content_type sends credentials only for security.type
   * basic), SSLVerify true and allowRedirects false by default (§8), only ${restId}, one
   * placeholder per URL segment (§0.5, §9), no default for the members gateway-rest.ts lists,
   * values as text (§0.1), None in composites (§0.2), 500 for a non-Basic header (§0.9) and for
   * binary bodies, responseExpected false and Python text answers (§5), aiohttp's own 405 and 500
   * pages instead of unsuccessfulResponse (the router answers the 405; BasicAuth.decode's
   * ValueError at rest_connector.py:772 and a JSON body that is no object are uncaught, so aiohttp
   * answers 500), the platform's attribute message as the answer (§7), only HTTPMethod (default
   * GET), no default headers, one attempt, responseTimeout ignored (§0.6, §8, §9), wrapped RPC
   * replies (§9), built-in get/set only with string params (§10).
   */
  'tb-gateway-3.8': {
    defaults: {
      // hardcoded responses without successResponse / unsuccessfulResponse answer an empty body
      'mapping[].response.successResponse': '',
      'mapping[].response.unsuccessfulResponse': '',
      'mapping[].response.responseExpected': false,
      'mapping[].security.type': 'anonymous',
      'requestsMapping.attributeRequests[].security.type': 'anonymous',
      'requestsMapping.attributeUpdates[].security.type': 'anonymous',
      'requestsMapping.attributeUpdates[].SSLVerify': true,
      'requestsMapping.serverSideRpc[].SSLVerify': true,
      'requestsMapping.attributeUpdates[].allowRedirects': false,
      'requestsMapping.serverSideRpc[].allowRedirects': false,
      'requestsMapping.attributeUpdates[].httpMethod': 'GET',
      'requestsMapping.serverSideRpc[].httpMethod': 'GET',
      // no default headers
      'requestsMapping.attributeUpdates[].httpHeaders': {},
      'requestsMapping.serverSideRpc[].httpHeaders': {},
    },
    rpcIdPlaceholder: 'restId',
    rpcUrlFirstPlaceholderPerSegment: true,
    requiresGatewayMembers: true,
    valuesAsText: true,
    noneInCompositeValues: true,
    malformedAuthorizationStatus: 500,
    errorPagesOfTheServer: true,
    binaryBodiesRefused: true,
    remoteAnswerAsPythonText: true,
    attributeAnswerIsPlatformMessage: true,
    outgoingMethodMember: 'HTTPMethod',
    bodyWithGet: true,
    triesHonoured: false,
    responseTimeoutHonoured: false,
    rpcReplyWrapped: true,
    builtInRpcJsonParams: false,
  },
} as const satisfies Record<string, ConnectorQuirks>;

export type ConnectorQuirksMode = keyof typeof CONNECTOR_QUIRKS_MODES;

export function connectorQuirks(mode: ConnectorQuirksMode | undefined): ConnectorQuirks {
  return mode ? CONNECTOR_QUIRKS_MODES[mode] : NO_CONNECTOR_QUIRKS;
}
