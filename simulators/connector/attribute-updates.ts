/**
 * requestsMapping.attributeUpdates: a shared-attribute update of a device connected through this
 * connector becomes one outgoing call per updated attribute and matching rule (deviceNameFilter on
 * the device name, attributeFilter on the attribute name, both whole-name regular expressions). The
 * URL takes ${deviceName}, ${attributeKey} and ${attributeValue} percent-encoded; the body template
 * takes them as JSON text fragments when the call sends JSON. Other ${...} read the update's data.
 */
import type { Logger } from 'pino';
import { evaluateText, urlComponent } from '../../lib/expressions';
import type { AttributeUpdate } from '../gateway/mqtt-gateway';
import type { AttributeUpdateRule } from './config-types';
import {
  absoluteUrl,
  callOut,
  renderBody,
  type CallOutcome,
  type OutgoingDispatchers,
} from './outgoing-call';

type OutgoingCall = Parameters<typeof callOut>[0];

/** The attribute-update handler's steps (steps.ts); step-faults.ts wraps them. */
export interface AttributeUpdateSteps {
  /** The updated attributes that become calls. */
  updated(data: Record<string, unknown>): Array<[string, unknown]>;
  /** The variables the URL expression takes. */
  urlVariables(variables: {
    deviceName: string;
    attributeKey: string;
    attributeValue: unknown;
  }): Record<string, unknown>;
  /** The outgoing call. */
  send(call: OutgoingCall, dispatchers: OutgoingDispatchers): Promise<CallOutcome>;
}

export const ATTRIBUTE_UPDATE_STEPS: AttributeUpdateSteps = {
  updated: (data) => Object.entries(data),
  urlVariables: (variables) => variables,
  send: (call, dispatchers) => callOut(call, dispatchers),
};

export async function sendAttributeUpdate(
  update: AttributeUpdate,
  rules: AttributeUpdateRule[],
  dispatchers: OutgoingDispatchers,
  logger: Logger,
  steps: AttributeUpdateSteps = ATTRIBUTE_UPDATE_STEPS,
): Promise<CallOutcome[]> {
  const calls: Array<Promise<CallOutcome>> = [];
  for (const [attributeKey, attributeValue] of steps.updated(update.data)) {
    for (const rule of rules) {
      if (!rule.deviceNameFilter.test(update.device) || !rule.attributeFilter.test(attributeKey))
        continue;
      const variables = { deviceName: update.device, attributeKey, attributeValue };
      const url = evaluateText(rule.requestUrlExpression, update.data, {
        variables: steps.urlVariables(variables),
        render: urlComponent,
        missing: 'keep',
      });
      const body = renderBody(rule, update.data, variables);
      if (url === undefined || body === undefined) continue;
      calls.push(
        steps.send({ url: absoluteUrl(url), body, config: rule }, dispatchers).then((outcome) => {
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
    }
  }
  return Promise.all(calls);
}
