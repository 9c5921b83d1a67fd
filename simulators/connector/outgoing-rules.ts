/**
 * The outgoing calls of rest.json (requestsMapping.attributeUpdates and serverSideRpc) with their defaults, and the
 * planted faults that break their members (faults/catalogue/rest-connector-requests-mapping.ts).
 */
import type { RestConnectorFile } from '../../schemas';
import { faultActive } from '../../faults';
import type { ConnectorQuirks } from './quirks';
import { JSON_HEADERS, security } from './config-sections';
import type { OutgoingCallConfig, AttributeUpdateRule, ServerSideRpcRule } from './config-types';

type OutgoingSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['serverSideRpc']
>[number];

function outgoing(
  rule: OutgoingSection,
  defaults: { method: string; security: 'basic' | 'anonymous'; url: string; value: string },
  quirks: ConnectorQuirks,
): OutgoingCallConfig {
  const method =
    quirks.outgoingMethodMember === 'HTTPMethod'
      ? rule.HTTPMethod
      : (rule.httpMethod ?? rule.HTTPMethod);
  return {
    method: method ?? quirks.outgoingMethodDefault ?? defaults.method,
    sslVerify: rule.SSLVerify ?? quirks.sslVerifyDefault,
    headers: rule.httpHeaders ?? (quirks.defaultJsonContentType ? JSON_HEADERS : {}),
    // no section means the rule's default type (docs/reference/interfaces.md: basic with the username and password placeholders
    // for attribute updates, anonymous for RPC)
    security: security(rule.security, defaults.security),
    timeoutSec: rule.timeout ?? 0.5,
    tries: quirks.triesHonoured ? (rule.tries ?? 3) : 1,
    bodyWithGet: quirks.bodyWithGet,
    allowRedirects: rule.allowRedirects ?? quirks.allowRedirectsDefault,
    requestUrlExpression: rule.requestUrlExpression ?? defaults.url,
    valueExpression:
      rule.valueExpression === undefined
        ? defaults.value
        : typeof rule.valueExpression === 'string'
          ? rule.valueExpression
          : JSON.stringify(rule.valueExpression),
  };
}

/** A filter matches the whole name (Python's re.fullmatch, as the real gateway). */
function fullMatch(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

/**
 * A rule's filter: the pattern given, else the default. A planted fault may ignore the pattern (everything matches)
 * or put another default in its place.
 */
function filterOf(
  given: string | undefined,
  defaultPattern: string,
  broken: { ignored: boolean; defaultInstead: string | undefined },
): RegExp {
  if (broken.ignored) return fullMatch('.*');
  return fullMatch(given ?? broken.defaultInstead ?? defaultPattern);
}

type AttributeUpdateSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['attributeUpdates']
>[number];

export function attributeUpdateRule(
  rule: AttributeUpdateSection,
  quirks: ConnectorQuirks,
): AttributeUpdateRule {
  const defaults = {
    method: faultActive('RC-AUPD-02:default-method') ? 'PUT' : 'POST',
    security: faultActive('RC-AUPD-05:default-anonymous')
      ? ('anonymous' as const)
      : quirks.attributeUpdateSecurityDefault,
    url: faultActive('RC-AUPD-11:default-url')
      ? 'sensor/${deviceName}'
      : 'sensor/${deviceName}/${attributeKey}',
    value: faultActive('RC-AUPD-12:default-value')
      ? '${attributeValue}'
      : '{"${attributeKey}":"${attributeValue}"}',
  };
  const call = outgoing(rule, defaults, quirks);
  const fallback = outgoing({}, defaults, quirks);
  return {
    ...call,
    sslVerify: faultActive('RC-AUPD-03:verify-ignored')
      ? false
      : (rule.SSLVerify ?? (faultActive('RC-AUPD-03:default-verify') ? true : call.sslVerify)),
    ...brokenCall(rule, call, fallback, {
      headersIgnored: faultActive('RC-AUPD-04:headers-ignored'),
      noDefaultContentType: faultActive('RC-AUPD-04:no-default-content-type'),
      securityIgnored: faultActive('RC-AUPD-05:security-ignored'),
      defaultBasic: false, // basic is the default of attribute updates (RC-AUPD-05:default-anonymous breaks it)
      triesIgnored: faultActive('RC-AUPD-07:tries-ignored'),
      defaultTries: faultActive('RC-AUPD-07:default-tries'),
      urlIgnored: faultActive('RC-AUPD-11:expression-ignored'),
      valueIgnored: faultActive('RC-AUPD-12:expression-ignored'),
    }),
    timeoutSec: faultActive('RC-AUPD-06:timeout-ignored')
      ? fallback.timeoutSec
      : faultActive('RC-AUPD-06:no-timeout')
        ? 3600
        : rule.timeout === undefined && faultActive('RC-AUPD-06:default-timeout')
          ? 5
          : rule.timeout === undefined && faultActive('RC-AUPD-06:default-timeout-short')
            ? 0.2
            : call.timeoutSec,
    allowRedirects: faultActive('RC-AUPD-08:false-ignored')
      ? true
      : rule.allowRedirects === undefined && faultActive('RC-AUPD-08:default-no-follow')
        ? false
        : call.allowRedirects,
    deviceNameFilter: filterOf(rule.deviceNameFilter, '.*REST$', {
      ignored: faultActive('RC-AUPD-09:filter-ignored'),
      defaultInstead: faultActive('RC-AUPD-09:default-filter') ? '.*' : undefined,
    }),
    attributeFilter: filterOf(rule.attributeFilter, 'data', {
      ignored: faultActive('RC-AUPD-10:filter-ignored'),
      defaultInstead: faultActive('RC-AUPD-10:default-filter') ? '.*' : undefined,
    }),
  };
}

export function serverSideRpcRule(
  rule: OutgoingSection,
  quirks: ConnectorQuirks,
): ServerSideRpcRule {
  const defaults = {
    method: faultActive('RC-RPC-07:default-method') ? 'POST' : 'GET',
    security: 'anonymous' as const,
    url: faultActive('RC-RPC-04:default-url')
      ? 'http://127.0.0.1:5001/rpc/${deviceName}'
      : 'http://127.0.0.1:5001/${deviceName}',
    value: faultActive('RC-RPC-08:default-value') ? '{"params": ${params}}' : '${params}',
  };
  const call = outgoing(rule, defaults, quirks);
  const fallback = outgoing({}, defaults, quirks);
  return {
    ...call,
    method: faultActive('RC-RPC-07:method-ignored') ? fallback.method : call.method,
    ...brokenCall(rule, call, fallback, {
      headersIgnored: faultActive('RC-RPC-11:headers-ignored'),
      noDefaultContentType: faultActive('RC-RPC-11:no-default-content-type'),
      securityIgnored: faultActive('RC-RPC-12:security-ignored'),
      defaultBasic: faultActive('RC-RPC-12:default-basic'),
      triesIgnored: faultActive('RC-RPC-10:tries-ignored'),
      defaultTries: faultActive('RC-RPC-10:default-tries'),
      urlIgnored: faultActive('RC-RPC-04:expression-ignored'),
      valueIgnored: faultActive('RC-RPC-08:expression-ignored'),
    }),
    timeoutSec: faultActive('RC-RPC-09:timeout-ignored')
      ? 3600
      : rule.timeout === undefined && faultActive('RC-RPC-09:default-timeout')
        ? 5
        : rule.timeout === undefined && faultActive('RC-RPC-09:default-timeout-short')
          ? 0.3
          : call.timeoutSec,
    deviceNameFilter: filterOf(rule.deviceNameFilter, '.*', {
      ignored: faultActive('RC-RPC-02:filter-ignored'),
      defaultInstead: faultActive('RC-RPC-02:default-filter') ? '.*REST$' : undefined,
    }),
    methodFilter: filterOf(rule.methodFilter, 'echo', {
      ignored: faultActive('RC-RPC-03:filter-ignored'),
      defaultInstead: faultActive('RC-RPC-03:default-filter') ? '.*' : undefined,
    }),
    // without responseTimeout (a gateway 3.8 quirks mode) only timeout bounds the one attempt
    responseTimeoutSec: !quirks.responseTimeoutHonoured
      ? Infinity
      : faultActive('RC-RPC-06:response-timeout-ignored')
        ? 1
        : faultActive('RC-RPC-06:no-deadline')
          ? 3600
          : (rule.responseTimeout ?? (faultActive('RC-RPC-06:default-response-timeout') ? 10 : 1)),
    idPlaceholder: quirks.rpcIdPlaceholder,
  };
}

/** Which members of an outgoing call a fault breaks (the same for attribute updates and RPC rules). */
interface BrokenCall {
  headersIgnored: boolean;
  noDefaultContentType: boolean;
  securityIgnored: boolean;
  defaultBasic: boolean;
  triesIgnored: boolean;
  defaultTries: boolean;
  urlIgnored: boolean;
  valueIgnored: boolean;
}

function brokenCall(
  rule: OutgoingSection,
  call: OutgoingCallConfig,
  fallback: OutgoingCallConfig,
  broken: BrokenCall,
): Pick<
  OutgoingCallConfig,
  'headers' | 'security' | 'tries' | 'requestUrlExpression' | 'valueExpression'
> {
  return {
    headers: broken.headersIgnored
      ? fallback.headers
      : rule.httpHeaders === undefined && broken.noDefaultContentType
        ? {}
        : call.headers,
    security: broken.securityIgnored
      ? { type: 'anonymous' }
      : !rule.security && broken.defaultBasic
        ? security(undefined, 'basic')
        : call.security,
    tries: broken.triesIgnored
      ? fallback.tries
      : rule.tries === undefined && broken.defaultTries
        ? 1
        : call.tries,
    requestUrlExpression: broken.urlIgnored
      ? fallback.requestUrlExpression
      : call.requestUrlExpression,
    valueExpression: broken.valueIgnored ? fallback.valueExpression : call.valueExpression,
  };
}
