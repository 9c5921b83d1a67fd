/** Faults that break requirements of the rest-connector interface (features/rest-connector/). */
import type { FaultDefinition } from './definition';

export const REST_CONNECTOR_FAULTS = [
  // the connector as a whole and its configuration
  {
    id: 'RC-GEN-01:nothing-forwarded',
    breaks: 'requests are converted and answered 200, but nothing reaches the platform',
  },
  {
    id: 'RC-GEN-02:updates-not-called',
    breaks: 'shared-attribute updates of the connector devices never become outgoing calls',
  },
  {
    id: 'RC-CFG-01:requests-mapping-ignored',
    breaks: 'the requestsMapping member of rest.json is not read',
  },
  // server
  {
    id: 'RC-SRV-01:default-host',
    breaks: 'without server.host the connector listens on the IPv6 loopback, not 127.0.0.1',
  },
  {
    id: 'RC-SRV-02:port-ignored',
    breaks: 'the connector listens on a port of its own choosing, not server.port',
  },
  { id: 'RC-SRV-03:ssl-ignored', breaks: 'server.SSL true still serves plain HTTP' },
  {
    id: 'RC-SRV-05:cert-ignored',
    breaks: 'the connector presents a generated certificate, not server.security.cert',
  },
  {
    id: 'RC-SRV-06:key-ignored',
    breaks:
      'server.security.key is not read: the connector serves TLS with a generated key and certificate',
  },
  // mapping
  { id: 'RC-MAP-01:only-first-mapping', breaks: 'only the first mapping entry gets an endpoint' },
  {
    id: 'RC-MAP-02:default-endpoint',
    breaks: 'a mapping without endpoint serves /test, not /test_device',
  },
  {
    id: 'RC-MAP-02:unknown-path-served',
    breaks: 'a path no mapping names is served by the first endpoint instead of 404',
  },
  { id: 'RC-MAP-03:default-methods', breaks: 'a mapping without HTTPMethods takes POST, not GET' },
  {
    id: 'RC-MAP-03:methods-ignored',
    breaks: 'a mapping endpoint converts requests of any method, listed or not',
  },
  { id: 'RC-MAP-03:first-method-only', breaks: 'only the first method of HTTPMethods is served' },
  {
    id: 'RC-MAP-04:security-ignored',
    breaks: 'mapping endpoints admit every request, whatever their security says',
  },
  {
    id: 'RC-MAP-05:first-converter-for-all',
    breaks: 'every endpoint converts with the converter of the first mapping',
  },
  // security
  {
    id: 'RC-SEC-01:swapped-credentials',
    breaks: 'basic security expects base64(password:username)',
  },
  {
    id: 'RC-SEC-02:scheme-not-checked',
    breaks: 'any scheme word before the base64 credentials is accepted, not only Basic',
  },
  { id: 'RC-SEC-02:password-not-checked', breaks: 'basic security compares the user name only' },
  {
    id: 'RC-SEC-02:refused-forwarded-later',
    breaks: 'a request refused with 401 is converted and forwarded after the answer',
  },
  {
    id: 'RC-SEC-02:refused-still-converted',
    breaks: 'a request refused with 401 is still converted and forwarded',
  },
  { id: 'RC-SEC-03:default-anonymous', breaks: 'a mapping without security is anonymous' },
  {
    id: 'RC-SEC-04:default-credentials',
    breaks: 'basic username and password default to empty strings, not <USERNAME> and <PASSWORD>',
  },
  {
    id: 'RC-SEC-05:anonymous-needs-credentials',
    breaks: 'an anonymous endpoint refuses requests without an Authorization header',
  },
  {
    id: 'RC-AUTH-01:first-security-for-all',
    breaks: 'every endpoint takes the security of the first mapping',
  },
  // converters
  {
    id: 'RC-CONV-01:untyped-converts-nothing',
    breaks: 'a converter section without type takes no attributes or timeseries',
  },
  { id: 'RC-CONV-02:custom-as-json', breaks: 'type custom is converted by the json converter' },
  {
    id: 'RC-CONV-03:missing-sent-as-text',
    breaks: 'a value that comes out as None is passed on as the text None',
  },
  {
    id: 'RC-JSON-01:explicit-json-ignored',
    breaks: 'a converter section saying type json takes no attributes or timeseries',
  },
  {
    id: 'RC-JSON-02:default-name-expression',
    breaks: 'deviceNameExpression defaults to ${name}, not Device ${name}',
  },
  {
    id: 'RC-JSON-03:request-name-not-read',
    breaks: 'deviceNameExpressionSource request uses the expression as a fixed name',
  },
  {
    id: 'RC-JSON-03:default-source-constant',
    breaks: 'deviceNameExpressionSource defaults to constant',
  },
  {
    id: 'RC-JSON-04:request-profile-not-read',
    breaks: 'deviceProfileExpressionSource request uses the expression as a fixed profile name',
  },
  {
    id: 'RC-JSON-04:default-source-constant',
    breaks: 'deviceProfileExpressionSource defaults to constant',
  },
  {
    id: 'RC-JSON-05:default-profile',
    breaks: 'deviceProfileExpression defaults to Default, not default',
  },
  { id: 'RC-JSON-06:attributes-as-telemetry', breaks: 'attributes entries are sent as telemetry' },
  {
    id: 'RC-JSON-07:timeseries-as-attributes',
    breaks: 'timeseries entries are sent as client attributes',
  },
  {
    id: 'RC-ENT-01:key-not-evaluated',
    breaks: 'an entry key is sent as written, ${...} not evaluated',
  },
  {
    id: 'RC-ENT-02:type-ignored',
    breaks: 'values keep the type they arrived with, the entry type is not applied',
  },
  { id: 'RC-ENT-02:text-values', breaks: 'every value is sent as text, whatever the entry type' },
  {
    id: 'RC-ENT-03:value-not-evaluated',
    breaks: 'an entry value is sent as written, ${...} not evaluated',
  },
  {
    id: 'RC-ENT-03:nested-path-unsupported',
    breaks: 'a value expression with a dotted path (${a.b}) finds nothing',
  },
  {
    id: 'RC-ENT-04:first-expression-only',
    breaks: 'a value combining several expressions takes the first expression only',
  },
  { id: 'RC-ENT-05:ts-field-ignored', breaks: 'tsField is not read' },
  { id: 'RC-ENT-06:ts-ignored', breaks: 'the ts property of the message is not read' },
  {
    id: 'RC-ENT-06:timestamp-ignored',
    breaks: 'the timestamp property of the message is not read',
  },
  { id: 'RC-ENT-07:dayfirst-ignored', breaks: 'dayfirst true is not applied' },
  { id: 'RC-ENT-08:default-dayfirst', breaks: 'dayfirst defaults to true' },
  { id: 'RC-ENT-09:yearfirst-ignored', breaks: 'yearfirst true is not applied' },
  { id: 'RC-ENT-10:default-yearfirst', breaks: 'yearfirst defaults to true' },
  // request bodies
  {
    id: 'RC-BODY-01:multipart-refused',
    breaks: 'multipart/form-data is refused with 415 on a JSON endpoint',
  },
  { id: 'RC-BODY-02:first-field-only', breaks: 'only the first multipart field is kept' },
  {
    id: 'RC-BODY-03:multipart-text-values',
    breaks: 'multipart values are passed on as text, not converted to the entry type',
  },
  { id: 'RC-BODY-04:file-parts-as-fields', breaks: 'file parts are read as fields' },
  { id: 'RC-BODY-05:plus-not-space', breaks: 'a + in the query stays a +, not a space' },
  {
    id: 'RC-BODY-05:query-ignored-on-get',
    breaks: 'GET requests do not read their query parameters',
  },
  // custom converters
  {
    id: 'RC-CUST-01:raw-body-withheld',
    breaks: 'a custom converter is given an empty body instead of the request bytes',
  },
  {
    id: 'RC-CUST-02:device-info-ignored',
    breaks: 'a custom converter ignores its deviceInfo and names every device Custom device',
  },
  {
    id: 'RC-CUST-02:default-profile',
    breaks: 'the profile expression of a custom converter defaults to custom, not default',
  },
  {
    id: 'RC-CUST-03:extension-ignored',
    breaks: 'converter.extension is not read: the first module of the extensions folder is loaded',
  },
  {
    id: 'RC-CUST-04:extension-config-dropped',
    breaks: 'extensionConfig is not passed to the custom converter',
  },
  {
    id: 'RC-CUST-05:only-known-members',
    breaks: 'only type, extension, extensionConfig and deviceInfo reach the custom converter',
  },
  // responses
  { id: 'RC-RESP-01:default-body', breaks: 'without a response section a 200 carries the body OK' },
  {
    id: 'RC-RESP-02:success-body-ignored',
    breaks: 'a configured successResponse is replaced by the default',
  },
  { id: 'RC-RESP-02:default-success', breaks: 'successResponse defaults to Success, not OK' },
  {
    id: 'RC-RESP-03:unsuccessful-body-ignored',
    breaks: 'a configured unsuccessfulResponse is replaced by the default',
  },
  {
    id: 'RC-RESP-03:default-unsuccessful',
    breaks: 'unsuccessfulResponse defaults to Failure, not Error',
  },
  {
    id: 'RC-RESP-04:default-attribute',
    breaks: 'responseAttribute defaults to response, not result',
  },
  {
    id: 'RC-RESP-04:attribute-ignored',
    breaks: 'a configured responseAttribute is replaced by the default',
  },
  { id: 'RC-RESP-05:default-not-expected', breaks: 'responseExpected defaults to false' },
  {
    id: 'RC-RESP-05:expected-ignored',
    breaks: 'responseExpected false still waits for a remote answer',
  },
  {
    id: 'RC-RESP-06:timeout-in-ms',
    breaks: 'response.timeout is read in milliseconds, not seconds',
  },
  {
    id: 'RC-RESP-06:default-timeout-zero',
    breaks: 'without response.timeout the connector does not wait for the remote answer',
  },
  {
    id: 'RC-ERR-01:only-401-unsuccessful',
    breaks: 'unsuccessfulResponse answers only 401; other refusals carry successResponse',
  },
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
    id: 'RC-AUPD-05:default-basic',
    breaks: 'attribute updates without security send basic <USERNAME>:<PASSWORD>',
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
    // a real gateway 3.8.3 does this (only the first key is matched): tb-gateway-3.8 declares it under RC-AUPD-10
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
