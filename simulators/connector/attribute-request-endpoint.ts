/**
 * requestsMapping.attributeRequests: an HTTP endpoint that asks the platform for attributes of a
 * device through v1/gateway/attributes/request and answers with them as a JSON object of key to
 * value. deviceNameExpression locates the device name, attributeNameExpression the attribute names
 * (several expressions separated by commas). No answer within timeout (seconds) gives 408.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { evaluateText } from '../../lib/expressions';
import { AttributeRequestTimeoutError, type AttributeResponse } from '../gateway/mqtt-gateway';
import type { PlatformLink } from './platform-link';
import { AUTHORIZATION_STEPS, authorization, type AuthorizationSteps } from './basic-auth';
import type { AttributeRequestConfig } from './config-types';
import { WWW_AUTHENTICATE } from './mapping-endpoint';
import { readRequestData, RequestBodyError } from './request-data';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { send } from './responses';

/** The attribute-request endpoint's steps (steps.ts); step-faults.ts wraps them. */
export interface AttributeRequestSteps {
  /** The comma-separated parts of attributeNameExpression, one attribute name each. */
  nameParts(expression: string): string[];
}

export const ATTRIBUTE_REQUEST_STEPS: AttributeRequestSteps = {
  nameParts: (expression) => expression.split(','),
};

export function attributeRequestHandler(
  config: AttributeRequestConfig,
  link: PlatformLink,
  logger: Logger,
  quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
  steps: AttributeRequestSteps = ATTRIBUTE_REQUEST_STEPS,
  authorizationSteps: AuthorizationSteps = AUTHORIZATION_STEPS,
) {
  return async (request: IncomingMessage, url: URL, reply: ServerResponse): Promise<void> => {
    if (authorization(config.security, request.headers, authorizationSteps) !== 'admitted') {
      request.resume();
      return send(reply, 401, '', undefined, WWW_AUTHENTICATE);
    }
    try {
      const { data } = await readRequestData(request, url, { rawBody: false, logger });
      const device = evaluateText(config.deviceNameExpression, data);
      const keys = attributeNames(config.attributeNameExpression, data, steps);
      if (!device)
        return send(
          reply,
          400,
          `the device name expression ${config.deviceNameExpression} finds no value in the request`,
          'text/plain; charset=utf-8',
        );
      if (!keys.length)
        return send(
          reply,
          400,
          `the attribute name expression ${config.attributeNameExpression} finds no value in the request`,
          'text/plain; charset=utf-8',
        );
      const scope = config.type === 'client' ? { client: keys } : { shared: keys };
      const { response } = await link.gateway.requestAttributes(
        { device, ...scope },
        config.timeoutSec * 1000,
      );
      const values = valuesOf(response, keys);
      const body = quirks.attributeAnswerIsPlatformMessage
        ? platformMessage(response, device, keys, values)
        : values;
      return send(reply, 200, JSON.stringify(body), 'application/json');
    } catch (error) {
      if (error instanceof AttributeRequestTimeoutError) return send(reply, 408, '');
      if (error instanceof RequestBodyError)
        return send(reply, error.status, error.message, 'text/plain; charset=utf-8');
      logger.error({ error: (error as Error).message }, 'attribute request failed');
      return send(reply, 500, '');
    }
  };
}

/**
 * `${a}, ${b}`: one name per comma-separated expression; expressions that find nothing are left
 * out.
 */
function attributeNames(expression: string, data: unknown, steps: AttributeRequestSteps): string[] {
  return steps
    .nameParts(expression)
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => evaluateText(part, data))
    .filter((name): name is string => typeof name === 'string' && name !== '');
}

/**
 * The answer a 3.8.3 gateway forwards: ThingsBoard's whole answer to its SDK's request, {id,
 * device, value} for one key and {id, device, values} for several (observed on the wire; the SDK
 * asks by key, so the shape follows).
 */
function platformMessage(
  response: AttributeResponse,
  device: string,
  keys: string[],
  values: Record<string, unknown>,
): Record<string, unknown> {
  const id = response.document.id;
  return keys.length === 1 ? { id, device, value: values[keys[0]!] } : { id, device, values };
}

/**
 * Key to value from the platform's answer, whichever of its shapes it has ({value}, {values},
 * {client, shared}).
 */
function valuesOf(response: AttributeResponse, keys: string[]): Record<string, unknown> {
  const document = response.document;
  const merged: Record<string, unknown> = {};
  for (const member of ['values', 'client', 'shared']) {
    const part = document[member];
    if (part !== null && typeof part === 'object' && !Array.isArray(part))
      Object.assign(merged, part);
  }
  if ('value' in document && keys.length === 1) merged[keys[0]!] = document.value;
  return merged;
}
