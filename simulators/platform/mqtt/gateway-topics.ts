/**
 * The ten gateway topics (interfaces.md "MQTT gateway API"), uplink side. A payload is validated whole against
 * its schema (schemas/gateway.ts) before anything is stored, so a malformed message stores nothing (PUBACK 0x99).
 * Data for a device that is not connected connects it first, with the profile `default` (platform-facts.md §4.5).
 *
 * Where interfaces.md and ThingsBoard disagree, the reference serves both:
 * - an attribute request in interfaces.md's shape (`client` and `shared` as arrays of key names) is answered
 *   {id, device, client: {...}, shared: {...}} (each scope requested; neither = all of both), like the device API;
 *   in ThingsBoard's shape (`client: true|false` with `key` or `keys`) it is answered as ThingsBoard does:
 *   {id, device, value} for one key, {id, device, values: {...}} for several, {id, device} when none is found;
 * - a telemetry element without `ts` is stored at server time (interfaces.md; ThingsBoard would store a key named
 *   `values`, a deviation of its profile).
 */
import { stringifyLossless } from '../../../src/kv/values';
import {
  gatewayAttributeRequestSchema,
  gatewayAttributesSchema,
  gatewayClaimSchema,
  gatewayConnectSchema,
  gatewayDisconnectSchema,
  gatewayRpcReplySchema,
  gatewayTelemetrySchema,
} from '../../../schemas';
import { parseValid, typedEntries } from '../core/payloads';
import { pickAttributes, setMember } from '../core/render';
import type { AttributeScope } from '../core/model';
import type { GatewayDevices } from './gateway-devices';
import { PublishFailure, REASON } from './reason-codes';
import type { MqttSession } from './session';

export const GATEWAY_ATTRIBUTES_RESPONSE_TOPIC = 'v1/gateway/attributes/response';

type Handler = (session: MqttSession, devices: GatewayDevices, text: string) => void;

const HANDLERS: Record<string, Handler> = {
  'v1/gateway/connect': (_session, devices, text) => {
    const { device, type } = parseValid(text, gatewayConnectSchema, 'gateway connect') as {
      device: string;
      type?: string;
    };
    devices.connect(device, type);
  },

  'v1/gateway/disconnect': (_session, devices, text) => {
    const { device } = parseValid(text, gatewayDisconnectSchema, 'gateway disconnect') as {
      device: string;
    };
    devices.disconnect(device);
  },

  'v1/gateway/telemetry': (session, devices, text) => {
    const { quirks } = session.context;
    const document = parseValid(
      text,
      gatewayTelemetrySchema,
      'gateway telemetry',
      quirks,
      (plain) => telemetryValueObjects(plain),
    ) as Record<string, Array<{ ts?: unknown; values: unknown }>>;
    const now = Date.now();
    // every entry is converted before anything is stored: a bad value anywhere refuses the whole message
    const converted = Object.entries(document).map(([name, entries]) => ({
      name,
      records: entries.map((entry) =>
        entry.ts === undefined && quirks.gatewayEntryWithoutTsIsKeyValues
          ? { ts: now, values: typedEntries(entry, quirks) } // ThingsBoard: the element itself is the key-value object
          : {
              ts: entry.ts === undefined ? now : Number(String(entry.ts)),
              values: typedEntries(entry.values, quirks),
            },
      ),
    }));
    // all devices first, then all data: a refused device refuses the whole message (all or nothing)
    const targets = devices.connectAll(converted.map(({ name }) => name));
    for (const [index, { records }] of converted.entries())
      session.context.core.saveTelemetry(targets[index], records);
  },

  'v1/gateway/attributes': (session, devices, text) => {
    const { quirks } = session.context;
    const document = parseValid(
      text,
      gatewayAttributesSchema,
      'gateway attributes',
      quirks,
      (plain) => Object.values(plain as object),
    ) as Record<string, unknown>;
    const converted = Object.entries(document).map(([name, values]) => ({
      name,
      entries: typedEntries(values, quirks),
    }));
    const targets = devices.connectAll(converted.map(({ name }) => name));
    for (const [index, { entries }] of converted.entries())
      session.context.core.saveAttributes(targets[index], 'CLIENT_SCOPE', entries);
  },

  'v1/gateway/attributes/request': (session, devices, text) => {
    const request = parseValid(
      text,
      gatewayAttributeRequestSchema,
      'gateway attribute request',
    ) as Record<string, unknown> & { id: unknown; device: string };
    if (
      typeof request.client !== 'boolean' &&
      session.context.quirks.gatewayAttributeRequestThingsboardShapeOnly
    ) {
      throw new PublishFailure(
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
        'client must be true or false',
        true,
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
      );
    }
    const device = devices.connect(request.device);
    const answer: Record<string, unknown> = { id: request.id, device: request.device };
    if (typeof request.client === 'boolean') {
      const scope: AttributeScope = request.client ? 'CLIENT_SCOPE' : 'SHARED_SCOPE';
      const keys = typeof request.key === 'string' ? [request.key] : (request.keys as string[]);
      const found = pickAttributes(device, scope, keys) ?? {};
      const foundKeys = Object.keys(found);
      if (keys.length === 1 && foundKeys.length === 1) answer.value = found[foundKeys[0]];
      else if (foundKeys.length > 0) answer.values = found;
    } else {
      const client = request.client as string[] | undefined;
      const shared = request.shared as string[] | undefined;
      const both = client === undefined && shared === undefined;
      if (both || client)
        setMember(answer, 'client', pickAttributes(device, 'CLIENT_SCOPE', client) ?? {});
      if (both || shared)
        setMember(answer, 'shared', pickAttributes(device, 'SHARED_SCOPE', shared) ?? {});
    }
    session.publish(GATEWAY_ATTRIBUTES_RESPONSE_TOPIC, stringifyLossless(answer));
  },

  'v1/gateway/rpc': (session, devices, text) => {
    const reply = parseValid(text, gatewayRpcReplySchema, 'gateway RPC reply') as {
      device: string;
      id: unknown;
      data: unknown;
    };
    const device = devices.connect(reply.device);
    session.context.core.replyRpc(device, Number(String(reply.id)), stringifyLossless(reply.data));
  },

  'v1/gateway/claim': (session, devices, text) => {
    const document = parseValid(text, gatewayClaimSchema, 'gateway claim') as Record<
      string,
      { secretKey?: string; durationMs?: unknown }
    >;
    const claims = Object.entries(document);
    const targets = devices.connectAll(claims.map(([name]) => name));
    claims.forEach(([, claim], index) => {
      const durationMs =
        claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
      session.context.core.registerClaim(targets[index], claim.secretKey, durationMs);
    });
  },
};

export function handleGatewayPublish(
  session: MqttSession,
  devices: GatewayDevices,
  topic: string,
  payload: Buffer,
): void {
  const handler = HANDLERS[topic];
  if (!handler) throw PublishFailure.topicName(topic);
  handler(session, devices, payload.toString('utf8'));
}

/** The key-value objects of a gateway telemetry document (for the drop-nulls quirk). */
function telemetryValueObjects(plain: unknown): unknown[] {
  if (!plain || typeof plain !== 'object') return [];
  const found: unknown[] = [];
  for (const entries of Object.values(plain)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries)
      if (entry && typeof entry === 'object') found.push((entry as { values?: unknown }).values);
  }
  return found;
}
