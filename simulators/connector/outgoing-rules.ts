/**
 * The outgoing calls of rest.json (requestsMapping.attributeUpdates and serverSideRpc) completed
 * with the effective defaults (defaults.ts). The planted faults that break their members are data
 * in config-faults.ts.
 */
import type { RestConnectorFile } from '../../schemas';
import type { ConnectorQuirks } from './quirks';
import type { ConnectorDefaults } from './defaults';
import { security } from './config-sections';
import type { OutgoingCallConfig, AttributeUpdateRule, ServerSideRpcRule } from './config-types';

type OutgoingSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['serverSideRpc']
>[number];

/** The two kinds of outgoing rule, by their schema path. */
export type OutgoingAt = 'requestsMapping.attributeUpdates[]' | 'requestsMapping.serverSideRpc[]';

/**
 * The members both kinds share; `outgoingCall({}, ...)` is a rule's value where the file says
 * nothing.
 */
export function outgoingCall(
  rule: OutgoingSection,
  at: OutgoingAt,
  quirks: ConnectorQuirks,
  defaults: ConnectorDefaults,
): OutgoingCallConfig {
  const method =
    quirks.outgoingMethodMember === 'HTTPMethod'
      ? rule.HTTPMethod
      : (rule.httpMethod ?? rule.HTTPMethod);
  return {
    method: method ?? defaults[`${at}.httpMethod`],
    sslVerify: rule.SSLVerify ?? defaults[`${at}.SSLVerify`],
    headers: { ...(rule.httpHeaders ?? defaults[`${at}.httpHeaders`]) },
    security: security(rule.security, defaults, `${at}.security`),
    timeoutSec: rule.timeout ?? defaults[`${at}.timeout`],
    tries: quirks.triesHonoured ? (rule.tries ?? defaults[`${at}.tries`]) : 1,
    bodyWithGet: quirks.bodyWithGet,
    allowRedirects: rule.allowRedirects ?? defaults[`${at}.allowRedirects`],
    requestUrlExpression: rule.requestUrlExpression ?? defaults[`${at}.requestUrlExpression`],
    valueExpression:
      rule.valueExpression === undefined
        ? defaults[`${at}.valueExpression`]
        : typeof rule.valueExpression === 'string'
          ? rule.valueExpression
          : JSON.stringify(rule.valueExpression),
  };
}

/** A filter matches the whole name (Python's re.fullmatch, as the real gateway). */
export function fullMatch(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

type AttributeUpdateSection = NonNullable<
  NonNullable<RestConnectorFile['requestsMapping']>['attributeUpdates']
>[number];

export function attributeUpdateRule(
  rule: AttributeUpdateSection,
  quirks: ConnectorQuirks,
  defaults: ConnectorDefaults,
): AttributeUpdateRule {
  const at = 'requestsMapping.attributeUpdates[]';
  return {
    ...outgoingCall(rule, at, quirks, defaults),
    deviceNameFilter: fullMatch(rule.deviceNameFilter ?? defaults[`${at}.deviceNameFilter`]),
    attributeFilter: fullMatch(rule.attributeFilter ?? defaults[`${at}.attributeFilter`]),
  };
}

export function serverSideRpcRule(
  rule: OutgoingSection,
  quirks: ConnectorQuirks,
  defaults: ConnectorDefaults,
): ServerSideRpcRule {
  const at = 'requestsMapping.serverSideRpc[]';
  return {
    ...outgoingCall(rule, at, quirks, defaults),
    deviceNameFilter: fullMatch(rule.deviceNameFilter ?? defaults[`${at}.deviceNameFilter`]),
    methodFilter: fullMatch(rule.methodFilter ?? defaults[`${at}.methodFilter`]),
    // without responseTimeout (a gateway 3.8 quirks mode) only timeout bounds the one attempt
    responseTimeoutSec: quirks.responseTimeoutHonoured
      ? (rule.responseTimeout ?? defaults[`${at}.responseTimeout`])
      : Infinity,
    idPlaceholder: quirks.rpcIdPlaceholder,
  };
}
