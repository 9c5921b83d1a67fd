/**
 * requestsMapping.attributeUpdates: a shared-attribute update of a device connected through this connector
 * becomes one outgoing call per updated attribute and matching rule (deviceNameFilter on the device name,
 * attributeFilter on the attribute name, both whole-name regular expressions). The URL takes ${deviceName},
 * ${attributeKey} and ${attributeValue} percent-encoded; the body template takes them as JSON text fragments
 * when the call sends JSON. Other ${...} read the update's data.
 */
import type { Logger } from 'pino';
import { evaluate, evaluateText, jsonFragment, parseTemplate, textOf, urlComponent } from '../../src/expressions';
import type { AttributeUpdate } from '../gateway/mqtt-gateway';
import type { AttributeUpdateRule, OutgoingCallConfig } from './config';
import { absoluteUrl, callOut, type CallOutcome, type OutgoingDispatchers } from './outgoing-call';

export async function sendAttributeUpdate(update: AttributeUpdate, rules: AttributeUpdateRule[], dispatchers: OutgoingDispatchers, logger: Logger): Promise<CallOutcome[]> {
  const calls: Array<Promise<CallOutcome>> = [];
  for (const [attributeKey, attributeValue] of Object.entries(update.data)) {
    for (const rule of rules) {
      if (!rule.deviceNameFilter.test(update.device) || !rule.attributeFilter.test(attributeKey)) continue;
      const variables = { deviceName: update.device, attributeKey, attributeValue };
      const url = evaluateText(rule.requestUrlExpression, update.data, { variables, render: urlComponent, missing: 'keep' });
      const body = renderBody(rule, update.data, variables);
      if (url === undefined || body === undefined) continue;
      calls.push(
        callOut({ url: absoluteUrl(url), body, config: rule }, dispatchers).then((outcome) => {
          const log = { device: update.device, attributeKey, url, attempts: outcome.attempts, status: outcome.status };
          if (outcome.ok) logger.debug(log, 'attribute update sent');
          else logger.warn({ ...log, error: outcome.error }, 'attribute update not delivered');
          return outcome;
        }),
      );
    }
  }
  return Promise.all(calls);
}

/** The body of an outgoing call: the valueExpression, JSON-aware when the call sends JSON. */
export function renderBody(config: OutgoingCallConfig, data: unknown, variables: Record<string, unknown>): string | undefined {
  const json = Object.entries(config.headers).some(([name, value]) => name.toLowerCase() === 'content-type' && /json/i.test(value));
  const parts = parseTemplate(config.valueExpression).parts;
  if (parts.length === 1 && 'path' in parts[0]!) {
    // the body is one value: as a JSON document, or as text
    const value = evaluate(config.valueExpression, data, { variables });
    if (value === undefined) return undefined;
    return json ? JSON.stringify(value) : textOf(value);
  }
  return evaluateText(config.valueExpression, data, { variables, render: json ? jsonFragment : textOf, missing: 'keep' });
}
