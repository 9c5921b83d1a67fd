/**
 * The device topics (v1/devices/me/...), uplink side, as ThingsBoard serves them (platform-facts.md §4.3). A gateway
 * uses them for its own telemetry, attributes, configuration updates and RPC (interfaces.md: the gateway is also an
 * ordinary device). Payload rules are the HTTP device API's: the same parsing code (core/payloads.ts).
 */
import { faultActive } from '../../../faults';
import { stringifyLossless } from '../../../src/kv/values';
import { claimSchema, clientAttributesSchema } from '../../../schemas';
import { BadRequestError } from '../core/errors';
import { parseJson, parseValid, telemetryEntries, typedEntries } from '../core/payloads';
import { attributesAnswer } from '../core/render';
import { PublishFailure } from './reason-codes';
import type { MqttSession } from './session';
import { SESSION_LIMITS_METHOD, sessionLimits } from './session-limits';

const ATTRIBUTES_REQUEST = /^v1\/devices\/me\/attributes\/request\/(\d{1,10})$/;
const RPC_RESPONSE = /^v1\/devices\/me\/rpc\/response\/(\d{1,10})$/;
const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d{1,10})$/;

export function handleDevicePublish(session: MqttSession, topic: string, payload: Buffer): void {
  const device = session.device!;
  const { core, quirks } = session.context;
  const text = payload.toString('utf8');
  switch (topic) {
    case 'v1/devices/me/telemetry':
      core.saveTelemetry(device, telemetryEntries(text, Date.now(), quirks));
      return;
    case 'v1/devices/me/attributes':
      core.saveAttributes(
        device,
        'CLIENT_SCOPE',
        typedEntries(parseValid(text, clientAttributesSchema, 'attributes', quirks), quirks),
      );
      return;
    case 'v1/devices/me/claim': {
      // an empty payload is allowed: both fields take their defaults
      const claim =
        text.trim() === ''
          ? {}
          : (parseValid(text, claimSchema, 'claim') as {
              secretKey?: string;
              durationMs?: unknown;
            });
      core.registerClaim(
        device,
        claim.secretKey,
        claim.durationMs === undefined ? undefined : Number(String(claim.durationMs)),
      );
      return;
    }
  }
  let match = ATTRIBUTES_REQUEST.exec(topic);
  if (match) return answerAttributeRequest(session, match[1], text);
  match = RPC_RESPONSE.exec(topic);
  if (match) {
    // any payload, kept raw (platform-facts.md §4.3): the REST caller gets 200 with no body for an empty reply and
    // 406 for one that is not JSON (admin/rpc-routes.ts), as on ThingsBoard
    if (faultActive('MQTT-DEV-RPC-02:reply-must-be-json')) parseJson(text, 'RPC reply');
    core.replyRpc(device, Number(match[1]), text);
    return;
  }
  match = RPC_REQUEST.exec(topic);
  if (match) return answerClientRpc(session, match[1], text);
  throw PublishFailure.topicName(topic);
}

/** {"clientKeys":"a,b","sharedKeys":"c"} → {"client":{...},"shared":{...}} on .../attributes/response/{id}; {} = all. */
function answerAttributeRequest(session: MqttSession, id: string, text: string): void {
  if (text.trim() === '') throw new BadRequestError('Invalid attribute request: empty payload');
  const request = parseJson(text, 'attribute request');
  if (!request || typeof request !== 'object' || Array.isArray(request))
    throw new BadRequestError('Invalid attribute request: not an object');
  const { clientKeys, sharedKeys } = request as { clientKeys?: unknown; sharedKeys?: unknown };
  const keys = (value: unknown) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((key) => key.trim())
          .filter(Boolean)
      : undefined;
  const answer = attributesAnswer(session.device!, keys(clientKeys), keys(sharedKeys));
  // sent even when the device did not subscribe (platform-facts.md §4.3)
  session.publish(`v1/devices/me/attributes/response/${id}`, stringifyLossless(answer), {
    always: true,
  });
}

/**
 * Client-side RPC: the platform's handler answers on v1/devices/me/rpc/response/{id}. The method getSessionLimits
 * is answered by the transport itself (every ThingsBoard SDK device and gateway sends it on connect).
 */
function answerClientRpc(session: MqttSession, id: string, text: string): void {
  const request = parseJson(text, 'client-side RPC request');
  const device = session.device!;
  if (
    (request as { method?: unknown } | null)?.method === SESSION_LIMITS_METHOD &&
    !faultActive('MQTT-DEV-RPC-04:echoed')
  ) {
    // after the PUBACK (publish.ts sends it when this returns), as ThingsBoard's onGetSessionLimitsRpc
    setImmediate(() =>
      session.publish(`v1/devices/me/rpc/response/${id}`, JSON.stringify(sessionLimits(session)), {
        always: true,
      }),
    );
    return;
  }
  void Promise.resolve(session.context.clientRpc({ name: device.name, id: device.id }, request))
    .then((answer) =>
      session.publish(
        `v1/devices/me/rpc/response/${id}`,
        answer === undefined ? '' : JSON.stringify(answer),
        { always: true },
      ),
    )
    .catch((error: unknown) =>
      session.context.logger.error({ err: error }, 'client-side RPC handler failed'),
    );
}
