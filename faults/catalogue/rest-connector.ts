/**
 * Faults that break requirements of the rest-connector interface (features/rest-connector/): the
 * connector, its server and the mapping section of rest.json (requestsMapping:
 * rest-connector-requests-mapping.ts).
 */
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
  {
    id: 'RC-CFG-01:missing-attribute-requests-defaulted',
    breaks:
      'a requestsMapping without attributeRequests serves one attribute-request endpoint of the defaults (/sharedAttributes)',
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
  {
    id: 'RC-SRV-02:default-port',
    breaks: 'without server.port the connector listens on port 5050, not 5000',
  },
  { id: 'RC-SRV-03:ssl-ignored', breaks: 'server.SSL true still serves plain HTTP' },
  { id: 'RC-SRV-03:ssl-false-ignored', breaks: 'server.SSL false still serves HTTPS' },
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
    id: 'RC-ERR-01:405-without-unsuccessful',
    breaks:
      'a method the hardcoded endpoint does not list is answered 405 with the router text, not unsuccessfulResponse',
  },
  {
    id: 'RC-ERR-01:only-401-unsuccessful',
    breaks: 'unsuccessfulResponse answers only 401; other refusals carry successResponse',
  },
] as const satisfies readonly FaultDefinition[];
