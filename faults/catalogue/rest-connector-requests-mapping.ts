/**
 * Faults that break requirements of the rest-connector interface in the requestsMapping section of
 * rest.json: attribute requests, attribute updates and server-side RPC (the rest:
 * rest-connector.ts).
 */
import type { FaultDefinition } from './definition';

export const REST_CONNECTOR_REQUESTS_MAPPING_FAULTS = [
  // attribute requests
  {
    id: 'RC-AREQ-01:default-endpoint',
    breaks: 'an attribute request without endpoint serves /attributes, not /sharedAttributes',
  },
  { id: 'RC-AREQ-02:type-ignored', breaks: 'attribute requests always ask for shared attributes' },
  { id: 'RC-AREQ-02:default-client', breaks: 'attribute request type defaults to client' },
  {
    id: 'RC-AREQ-03:default-methods',
    breaks: 'attribute request HTTPMethods default to GET, not POST',
  },
  {
    id: 'RC-AREQ-03:methods-ignored',
    breaks: 'attribute-request endpoints take every method, listed or not',
  },
  {
    id: 'RC-AREQ-04:default-anonymous',
    breaks: 'an attribute request without security is anonymous',
  },
  {
    id: 'RC-AREQ-04:security-ignored',
    breaks: 'attribute-request endpoints admit every request, whatever their security says',
  },
  {
    id: 'RC-AREQ-06:default-device-expression',
    breaks: 'deviceNameExpression of attribute requests defaults to ${device}',
  },
  {
    id: 'RC-AREQ-07:default-attribute-expression',
    breaks: 'attributeNameExpression defaults to ${attributes}',
  },
  {
    id: 'RC-AREQ-07:first-name-only',
    breaks: 'only the first of several comma-separated attribute expressions is requested',
  },
  // attribute updates
  { id: 'RC-AUPD-01:sent-twice', breaks: 'every matching update is sent twice' },
  {
    id: 'RC-AUPD-01:missing-section-defaulted',
    breaks:
      'a requestsMapping without attributeUpdates gets one rule of the defaults (.*REST$, data, sensor/${deviceName}/${attributeKey})',
  },
  {
    id: 'RC-AUPD-02:method-ignored',
    breaks: 'attribute updates are always sent with POST, whatever httpMethod says',
  },
  {
    id: 'RC-AUPD-02:default-method',
    breaks: 'httpMethod of attribute updates defaults to PUT, not POST',
  },
  { id: 'RC-AUPD-03:verify-ignored', breaks: 'SSLVerify true does not verify the certificate' },
  { id: 'RC-AUPD-03:default-verify', breaks: 'SSLVerify defaults to true' },
  {
    id: 'RC-AUPD-04:headers-ignored',
    breaks: 'configured httpHeaders of attribute updates are replaced by the default',
  },
  {
    id: 'RC-AUPD-04:no-default-content-type',
    breaks: 'without httpHeaders attribute updates carry no CONTENT-TYPE application/json',
  },
  {
    id: 'RC-AUPD-05:security-ignored',
    breaks: 'attribute updates are sent without their basic credentials',
  },
  {
    id: 'RC-AUPD-05:default-anonymous',
    breaks:
      'attribute updates without security send no Authorization header (anonymous), not basic',
  },
  { id: 'RC-AUPD-06:no-timeout', breaks: 'an attribute update attempt is never abandoned' },
  {
    id: 'RC-AUPD-06:timeout-ignored',
    breaks: 'a configured timeout of attribute updates is replaced by the default 0.5 s',
  },
  {
    id: 'RC-AUPD-06:default-timeout',
    breaks: 'the attribute update timeout defaults to 5 s, not 0.5 s',
  },
  {
    id: 'RC-AUPD-06:default-timeout-short',
    breaks: 'the attribute update timeout defaults to 0.2 s, not 0.5 s (the bound from below)',
  },
  {
    id: 'RC-AUPD-07:tries-ignored',
    breaks: 'configured tries of attribute updates are replaced by the default 3',
  },
  { id: 'RC-AUPD-07:default-tries', breaks: 'attribute update tries default to 1, not 3' },
  { id: 'RC-AUPD-08:default-no-follow', breaks: 'allowRedirects defaults to false' },
  { id: 'RC-AUPD-08:false-ignored', breaks: 'allowRedirects false still follows redirects' },
  {
    id: 'RC-AUPD-09:filter-ignored',
    breaks: 'deviceNameFilter is not applied: every device matches',
  },
  { id: 'RC-AUPD-09:default-filter', breaks: 'deviceNameFilter defaults to .*, not .*REST$' },
  {
    id: 'RC-AUPD-10:filter-ignored',
    breaks: 'attributeFilter is not applied: every attribute matches',
  },
  { id: 'RC-AUPD-10:default-filter', breaks: 'attributeFilter defaults to .*, not data' },
  {
    // a real gateway 3.8.3 does this (only the first key is matched): tb-gateway-3.8 declares it
    // under RC-AUPD-10
    id: 'RC-AUPD-10:first-attribute-only',
    breaks: 'an update of several attributes is matched and sent for its first attribute only',
  },
  {
    id: 'RC-AUPD-11:attribute-key-missing',
    breaks: '${attributeKey} is not filled in the request URL',
  },
  {
    id: 'RC-AUPD-11:expression-ignored',
    breaks: 'a configured requestUrlExpression of attribute updates is replaced by the default',
  },
  {
    id: 'RC-AUPD-11:default-url',
    breaks:
      'without requestUrlExpression an attribute update goes to sensor/${deviceName}, not .../${attributeKey}',
  },
  {
    id: 'RC-AUPD-12:expression-ignored',
    breaks: 'a configured valueExpression of attribute updates is replaced by the default',
  },
  {
    id: 'RC-AUPD-12:default-value',
    breaks: 'the default valueExpression sends the bare value, not {key: value}',
  },
  // server-side RPC
  {
    id: 'RC-RPC-01:not-called',
    breaks: 'an RPC matching a rule is answered with an error without any outgoing call',
  },
  {
    id: 'RC-RPC-01:missing-section-defaulted',
    breaks:
      'a requestsMapping without serverSideRpc gets one rule of the defaults (any device, echo, http://127.0.0.1:5001/${deviceName})',
  },
  { id: 'RC-RPC-02:filter-ignored', breaks: 'deviceNameFilter of RPC rules is not applied' },
  {
    id: 'RC-RPC-02:default-filter',
    breaks: 'deviceNameFilter of RPC rules defaults to .*REST$, not .*',
  },
  { id: 'RC-RPC-03:filter-ignored', breaks: 'methodFilter is not applied: every method matches' },
  { id: 'RC-RPC-03:default-filter', breaks: 'methodFilter defaults to .*, not echo' },
  {
    id: 'RC-RPC-04:expression-ignored',
    breaks: 'a configured requestUrlExpression of RPC rules is replaced by the default',
  },
  {
    id: 'RC-RPC-04:default-url',
    breaks: 'without requestUrlExpression an RPC goes to http://127.0.0.1:5001/rpc/${deviceName}',
  },
  { id: 'RC-RPC-05:request-id-missing', breaks: '${requestId} is not filled in the URL' },
  { id: 'RC-RPC-05:method-name-missing', breaks: '${methodName} is not filled in the URL' },
  {
    id: 'RC-RPC-06:response-timeout-ignored',
    breaks: 'a configured responseTimeout is replaced by the default 1 s',
  },
  {
    id: 'RC-RPC-06:default-response-timeout',
    breaks: 'responseTimeout defaults to 10 s, not 1 s',
  },
  { id: 'RC-RPC-06:no-deadline', breaks: 'responseTimeout does not bound the wait for the reply' },
  {
    id: 'RC-RPC-07:method-ignored',
    breaks: 'RPC calls are always sent with GET, whatever httpMethod says',
  },
  { id: 'RC-RPC-07:default-method', breaks: 'httpMethod of RPC rules defaults to POST, not GET' },
  {
    id: 'RC-RPC-08:expression-ignored',
    breaks: 'a configured valueExpression of RPC rules is replaced by ${params}',
  },
  {
    id: 'RC-RPC-08:default-value',
    breaks: 'the default valueExpression sends {"params": ...}, not the params themselves',
  },
  {
    id: 'RC-RPC-08:nested-params-unsupported',
    breaks: '${params.field} finds nothing in the value expression',
  },
  {
    id: 'RC-RPC-09:timeout-ignored',
    breaks:
      'the per-attempt timeout of RPC calls is not applied (only responseTimeout ends a call)',
  },
  {
    id: 'RC-RPC-09:default-timeout',
    breaks: 'the per-attempt timeout of RPC calls defaults to 5 s, not 0.5 s',
  },
  {
    id: 'RC-RPC-09:default-timeout-short',
    breaks:
      'the per-attempt timeout of RPC calls defaults to 0.3 s, not 0.5 s (the bound from below)',
  },
  {
    id: 'RC-RPC-10:tries-ignored',
    breaks: 'configured tries of RPC rules are replaced by the default 3',
  },
  { id: 'RC-RPC-10:default-tries', breaks: 'RPC tries default to 1, not 3' },
  {
    id: 'RC-RPC-11:headers-ignored',
    breaks: 'configured httpHeaders of RPC rules are replaced by the default',
  },
  {
    id: 'RC-RPC-11:no-default-content-type',
    breaks: 'without httpHeaders RPC calls carry no CONTENT-TYPE application/json',
  },
  {
    id: 'RC-RPC-12:security-ignored',
    breaks: 'RPC calls are sent without their basic credentials',
  },
  {
    id: 'RC-RPC-12:default-basic',
    breaks: 'RPC rules without security send basic <USERNAME>:<PASSWORD>',
  },
  {
    id: 'RC-RPC-13:reply-empty',
    breaks: 'the external answer is not returned: the RPC reply is {}',
  },
  {
    id: 'RC-RPC-13:failure-as-success',
    breaks: 'a failed external call is replied as a success ({})',
  },
  {
    id: 'RC-RPC-16:built-in-unknown',
    breaks: 'the built-in get and set methods are not known: no rule, no call',
  },
  {
    id: 'RC-RPC-17:missing-not-reported',
    breaks:
      'a built-in method with missing params is attempted anyway instead of an error naming them',
  },
  {
    id: 'RC-RPC-17:http-method-ignored',
    breaks: 'the httpMethod param of a built-in method is ignored (GET)',
  },
] as const satisfies readonly FaultDefinition[];
