/**
 * The device topics (v1/devices/me/...), uplink side, as ThingsBoard serves them (docs/reference/platform-facts.md §4.3). A gateway
 * uses them for its own telemetry, attributes, configuration updates and RPC (docs/reference/interfaces.md: the gateway is also an
 * ordinary device). Payload rules are the HTTP device API's: the same parsing code (core/payloads.ts).
 */
import { type FaultId, faultActive } from '../../../faults';
import { stringifyLossless } from '../../../lib/kv/values';
import {
  claimSchema,
  clientAttributesSchema,
  deviceTopic,
  deviceTopicRole,
} from '../../../schemas';
import { BadRequestError } from '../core/errors';
import { parseJson, parseValid, telemetryEntries, typedEntries } from '../core/payloads';
import type { TelemetryRecord } from '../core/platform-core';
import { attributesAnswer, pickAttributes } from '../core/render';
import { PublishFailure, PublishUnanswered } from './reason-codes';
import type { MqttSession } from './session';
import { SESSION_LIMITS_METHOD, sessionLimits } from './session-limits';

export function handleDevicePublish(session: MqttSession, topic: string, payload: Buffer): void {
  const device = session.device!;
  const { core, quirks } = session.context;
  const text = payload.toString('utf8');
  // by role in the device API's table (schemas/device-mqtt.ts DEVICE_MQTT_API)
  const { role, id = '' } = deviceTopicRole(topic) ?? {};
  switch (role) {
    case 'telemetry': {
      const empty = /^\s*\[\s*\]\s*$/.test(text);
      if (empty && faultActive('MQTT-DEV-TEL-01-EMPTY:empty-array-refused'))
        throw new BadRequestError('telemetry holds no entry');
      // ThingsBoard never acknowledges telemetry with no entry (quirks.ts emptyTelemetryUnansweredMs)
      if (empty && quirks.emptyTelemetryUnansweredMs > 0)
        throw new PublishUnanswered('the telemetry publish has no entry');
      const now = Date.now();
      const records = telemetryEntries(text, now, quirks);
      const saved = withTelemetryFaults(session, text, records, now);
      // applied after the PUBACK (core/scheduler.ts), as ThingsBoard's rule engine does
      core.scheduler.later('save', () => core.saveTelemetry(device, saved));
      return;
    }
    case 'attributes': {
      const values = typedEntries(
        parseValid(text, clientAttributesSchema, 'attributes', quirks),
        quirks,
      );
      if (
        session.v5
          ? faultActive('MQTT-DEV-ATTR-01:v5-not-stored')
          : faultActive('MQTT-DEV-ATTR-01:v311-not-stored')
      )
        return;
      if (faultActive('MQTT-DEV-ATTR-01:last-key-dropped')) values.pop();
      const scope = faultActive('MQTT-DEV-ATTR-01:stored-as-shared')
        ? 'SHARED_SCOPE'
        : 'CLIENT_SCOPE';
      core.scheduler.later('save', () => core.saveAttributes(device, scope, values));
      return;
    }
    case 'claim': {
      // an empty payload is allowed: both fields take their defaults
      const claim = text.trim() === '' ? {} : parseValid(text, claimSchema, 'claim');
      if (faultActive('MQTT-DEV-CLAIM-01:claim-ignored')) return;
      let durationMs =
        claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
      if (faultActive('MQTT-DEV-CLAIM-01:duration-ignored')) durationMs = undefined;
      if (faultActive('MQTT-DEV-CLAIM-01:duration-as-seconds') && durationMs !== undefined)
        durationMs *= 1000;
      const secretKey = faultActive('MQTT-DEV-CLAIM-01:secret-key-dropped') ? '' : claim.secretKey;
      // registered after the PUBACK (core/scheduler.ts), as ThingsBoard's claim goes through the device actor
      core.scheduler.later('claim', () => core.registerClaim(device, secretKey, durationMs));
      return;
    }
    case 'attributesRequest':
      return answerAttributeRequest(session, id, text);
    case 'rpcResponse':
      // any payload, kept raw (docs/reference/platform-facts.md §4.3): the REST caller gets 200 with no body for an empty reply and
      // 406 for one that is not JSON (admin/rpc-routes.ts), as on ThingsBoard
      if (faultActive('MQTT-DEV-RPC-02:reply-must-be-json')) parseJson(text, 'RPC reply');
      if (faultActive('MQTT-DEV-RPC-01:reply-not-relayed') && isJson(text)) return;
      core.replyRpc(device, Number(id), text);
      return;
    case 'rpcRequest':
      return answerClientRpc(session, id, text);
    default:
      throw PublishFailure.topicName(topic);
  }
}

/** {"clientKeys":"a,b","sharedKeys":"c"} → {"client":{...},"shared":{...}} on .../attributes/response/{id}; {} = all. */
function answerAttributeRequest(session: MqttSession, id: string, text: string): void {
  if (text.trim() === '') throw new BadRequestError('Invalid attribute request: empty payload');
  const request = parseJson(text, 'attribute request', session.context.quirks);
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
  const device = session.device!;
  const clientList = keys(clientKeys);
  const sharedList = keys(sharedKeys);
  let answer = attributesAnswer(device, clientList, sharedList);
  // planted faults (faults/catalogue/mqtt-device-api.ts): the answer with a key list ignored, the scope not asked
  // added, nothing for {}, or on the next id
  const one = (clientList === undefined) !== (sharedList === undefined);
  if (
    (clientList && faultActive('MQTT-DEV-ATTR-02:client-keys-ignored')) ||
    (one && sharedList && faultActive('MQTT-DEV-ATTR-02:unasked-scope-answered'))
  )
    answer.client = pickAttributes(device, 'CLIENT_SCOPE', undefined);
  if (
    (sharedList && faultActive('MQTT-DEV-ATTR-02:shared-keys-ignored')) ||
    (one && clientList && faultActive('MQTT-DEV-ATTR-02:unasked-scope-answered'))
  )
    answer.shared = pickAttributes(device, 'SHARED_SCOPE', undefined);
  if (!clientList && !sharedList && faultActive('MQTT-DEV-ATTR-02:empty-request-answers-nothing'))
    answer = {};
  const answerId = faultActive('MQTT-DEV-ATTR-02:answer-on-next-id') ? Number(id) + 1 : id;
  // sent even when the device did not subscribe (docs/reference/platform-facts.md §4.3)
  session.publish(deviceTopic('attributesResponse', answerId), stringifyLossless(answer), {
    always: true,
  });
}

/**
 * Client-side RPC: the platform's handler answers on v1/devices/me/rpc/response/{id}. The method getSessionLimits
 * is answered by the transport itself (every ThingsBoard SDK device and gateway sends it on connect).
 */
function answerClientRpc(session: MqttSession, id: string, text: string): void {
  const request = parseJson(text, 'client-side RPC request', session.context.quirks);
  const device = session.device!;
  if (
    (request as { method?: unknown } | null)?.method === SESSION_LIMITS_METHOD &&
    !faultActive('MQTT-DEV-RPC-04:echoed')
  ) {
    // after the PUBACK (publish.ts sends it when this returns), as ThingsBoard's onGetSessionLimitsRpc
    setImmediate(() =>
      session.publish(deviceTopic('rpcResponse', id), JSON.stringify(sessionLimits(session)), {
        always: true,
      }),
    );
    return;
  }
  // planted faults (faults/catalogue/mqtt-device-api.ts): the answer on the next id, or empty
  const answerId = faultActive('MQTT-DEV-RPC-03:answer-on-next-id') ? Number(id) + 1 : id;
  void Promise.resolve(session.context.clientRpc({ name: device.name, id: device.id }, request))
    .then((answer) =>
      session.publish(
        deviceTopic('rpcResponse', answerId),
        answer === undefined || faultActive('MQTT-DEV-RPC-03:answer-empty')
          ? ''
          : JSON.stringify(answer),
        { always: true },
      ),
    )
    .catch((error: unknown) =>
      session.context.logger.error({ err: error }, 'client-side RPC handler failed'),
    );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const TELEMETRY_FAULTS = [
  'MQTT-DEV-TEL-01:v311-dropped',
  'MQTT-DEV-TEL-01:v5-dropped',
  'MQTT-DEV-TEL-01:array-first-element-only',
  'MQTT-DEV-TEL-01:object-last-key-dropped',
  'MQTT-DEV-TEL-01:device-ts-ignored',
  'MQTT-DEV-TEL-01:server-ts-epoch',
] as const satisfies readonly FaultId[];

/**
 * Planted faults of MQTT-DEV-TEL-01 (faults/catalogue/mqtt-device-api.ts), applied to what telemetryEntries made of
 * the payload; with none on, the records are returned as they are. The payload is parsed again (only then) to know
 * which record came from which form: telemetryEntries gives one record per element, in order.
 */
function withTelemetryFaults(
  session: MqttSession,
  text: string,
  records: TelemetryRecord[],
  now: number,
): TelemetryRecord[] {
  if (!TELEMETRY_FAULTS.some((id) => faultActive(id))) return records;
  if (
    session.v5
      ? faultActive('MQTT-DEV-TEL-01:v5-dropped')
      : faultActive('MQTT-DEV-TEL-01:v311-dropped')
  )
    return [];
  const document = JSON.parse(text) as unknown;
  const array = Array.isArray(document);
  const elements = (array ? document : [document]) as Array<Record<string, unknown>>;
  const changed = records.map((record, index) => {
    const element = elements[index] ?? {};
    if (Object.hasOwn(element, 'ts') && Object.hasOwn(element, 'values'))
      return faultActive('MQTT-DEV-TEL-01:device-ts-ignored') ? { ...record, ts: now } : record;
    const values =
      !array && faultActive('MQTT-DEV-TEL-01:object-last-key-dropped')
        ? record.values.slice(0, -1)
        : record.values;
    return { ts: faultActive('MQTT-DEV-TEL-01:server-ts-epoch') ? 0 : record.ts, values };
  });
  return array && faultActive('MQTT-DEV-TEL-01:array-first-element-only')
    ? changed.slice(0, 1)
    : changed;
}
