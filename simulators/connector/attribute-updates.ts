/**
 * requestsMapping.attributeUpdates: a shared-attribute update of a device connected through this connector
 * becomes one outgoing call per updated attribute and matching rule (deviceNameFilter on the device name,
 * attributeFilter on the attribute name, both whole-name regular expressions). The URL takes ${deviceName},
 * ${attributeKey} and ${attributeValue} percent-encoded; the body template takes them as JSON text fragments
 * when the call sends JSON. Other ${...} read the update's data.
 */
import type { Logger } from 'pino';
import { evaluateText, urlComponent } from '../../lib/expressions';
import type { AttributeUpdate } from '../gateway/mqtt-gateway';
import { faultActive } from '../../faults';
import type { AttributeUpdateRule } from './config-types';
import {
  absoluteUrl,
  callOut,
  renderBody,
  type CallOutcome,
  type OutgoingDispatchers,
} from './outgoing-call';

export async function sendAttributeUpdate(
  update: AttributeUpdate,
  rules: AttributeUpdateRule[],
  dispatchers: OutgoingDispatchers,
  logger: Logger,
): Promise<CallOutcome[]> {
  const calls: Array<Promise<CallOutcome>> = [];
  const updated = Object.entries(update.data);
  for (const [attributeKey, attributeValue] of faultActive('RC-AUPD-10:first-attribute-only')
    ? updated.slice(0, 1)
    : updated) {
    for (const rule of rules) {
      if (!rule.deviceNameFilter.test(update.device) || !rule.attributeFilter.test(attributeKey))
        continue;
      const variables = { deviceName: update.device, attributeKey, attributeValue };
      const url = evaluateText(rule.requestUrlExpression, update.data, {
        variables: faultActive('RC-AUPD-11:attribute-key-missing')
          ? { deviceName: update.device, attributeValue }
          : variables,
        render: urlComponent,
        missing: 'keep',
      });
      const body = renderBody(rule, update.data, variables);
      if (url === undefined || body === undefined) continue;
      const config = rule;
      calls.push(
        callOut({ url: absoluteUrl(url), body, config }, dispatchers).then((outcome) => {
          const log = {
            device: update.device,
            attributeKey,
            url,
            attempts: outcome.attempts,
            status: outcome.status,
          };
          if (outcome.ok) logger.debug(log, 'attribute update sent');
          else logger.warn({ ...log, error: outcome.error }, 'attribute update not delivered');
          return outcome;
        }),
      );
      if (faultActive('RC-AUPD-01:sent-twice'))
        calls.push(callOut({ url: absoluteUrl(url), body, config }, dispatchers));
    }
  }
  return Promise.all(calls);
}
