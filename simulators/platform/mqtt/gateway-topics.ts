/**
 * The gateway topics (docs/reference/interfaces.md "MQTT gateway API", the table GATEWAY_API of schemas/gateway.ts),
 * uplink side. A payload is validated whole against
 * its schema (schemas/gateway.ts) before anything is stored, so a malformed message stores nothing (PUBACK 0x99).
 * Data for a device that is not connected connects it first, with the profile `default` (docs/reference/platform-facts.md §4.5).
 *
 * Where docs/reference/interfaces.md and ThingsBoard disagree, the reference serves both:
 * - an attribute request in docs/reference/interfaces.md's shape (`client` and `shared` as arrays of key names) is answered
 *   {id, device, client: {...}, shared: {...}} (each scope requested; neither = all of both), like the device API;
 *   in ThingsBoard's shape (`client: true|false` with `key` or `keys`) it is answered as ThingsBoard does:
 *   {id, device, value} for one key, {id, device, values: {...}} for several, {id, device} when none is found;
 * - a telemetry element without `ts` is stored at server time (docs/reference/interfaces.md; ThingsBoard would store a key named
 *   `values`, a deviation of its profile).
 */
import { stringifyLossless, type TypedValue } from '../../../lib/kv/values';
import {
  GATEWAY_API,
  type GatewayUplinkRole,
  gatewayAttributeRequestSchema,
  gatewayAttributesSchema,
  gatewayClaimSchema,
  gatewayConnectSchema,
  gatewayDisconnectSchema,
  gatewayRpcReplySchema,
  gatewayTelemetrySchema,
  gatewayTelemetryThingsboardSchema,
  gatewayTopicRules,
} from '../../../schemas';
import { faultActive } from '../../../faults';
import { BadRequestError } from '../core/errors';
import { parseValid, typedEntries, withoutLateRecords as withoutLate } from '../core/payloads';
import { pickAttributes, setMember } from '../core/render';
import type { AttributeScope, Device } from '../core/model';
import type { GatewayDevices } from './gateway-devices';
import { PublishFailure, PublishUnanswered, REASON } from './reason-codes';
import type { MqttSession } from './session';

const GATEWAY_ATTRIBUTES_RESPONSE_TOPIC = GATEWAY_API.attributesResponse.topic;

type Handler = (session: MqttSession, devices: GatewayDevices, text: string) => void;

/**
 * Quirks mode gatewayDisconnectScalarDeviceAsText: a number or boolean device is read as its text, as Gson's
 * getAsString does on ThingsBoard ({"device": 42} names the device "42"); anything else is left to the schema.
 */
function scalarDeviceAsText(text: string): string {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return text;
  const { device } = document as { device?: unknown };
  if (typeof device !== 'number' && typeof device !== 'boolean') return text;
  return JSON.stringify({ ...document, device: String(device) });
}

/** The handler of each topic a gateway publishes on, by its role in the gateway API's table (schemas/gateway.ts). */
const HANDLERS: Record<GatewayUplinkRole, Handler> = {
  connect: (session, devices, text) => {
    const { device, type } = parseValid(text, gatewayConnectSchema, 'gateway connect');
    const { core } = session.context;
    const existing = core.deviceNamed(device);
    let profile = type;
    if (faultActive('GW-CONN-01:type-required') && type === undefined)
      throw new BadRequestError('Invalid gateway connect: type is required');
    if (faultActive('GW-CONN-02:type-ignored')) profile = undefined;
    if (faultActive('GW-CONN-03:default-profile-misnamed') && type === undefined)
      profile = 'gateway';
    if (faultActive('GW-STATE-03:absent-profile-default') && type && !core.profileByName(type))
      profile = undefined;
    if (faultActive('GW-STATE-02:connect-creates-nothing') && !existing) return;
    if (faultActive('GW-STATE-01:existing-device-profile-replaced') && existing && type)
      core.updateDevice(existing, {
        profileId: (core.profileByName(type) ?? core.saveProfile({ name: type })).id,
      });
    devices.connect(device, profile);
    if (
      (faultActive('GW-STATE-01:existing-device-not-routed') && existing) ||
      faultActive('GW-STATE-04:routing-waits-for-data')
    )
      devices.disconnect(device);
  },

  disconnect: (session, devices, text) => {
    if (faultActive('GW-DISC-01:disconnect-refused'))
      throw new BadRequestError('Invalid gateway disconnect: refused');
    const { device } = parseValid(
      session.context.quirks.gatewayDisconnectScalarDeviceAsText ? scalarDeviceAsText(text) : text,
      gatewayDisconnectSchema,
      'gateway disconnect',
    );
    if (
      faultActive('GW-STATE-07:disconnect-creates-device') &&
      !session.context.core.deviceNamed(device)
    )
      session.context.core.createDevice({ name: device });
    if (faultActive('GW-STATE-05:disconnect-ignored')) return;
    devices.disconnect(device);
  },

  telemetry: (session, devices, text) => {
    const { quirks } = session.context;
    // ThingsBoard reads each element as device-API telemetry: without both ts and values it is the key-value object
    const thingsboard = quirks.gatewayEntryWithoutTsIsKeyValues;
    const document = parseValid(
      text,
      thingsboard ? gatewayTelemetryThingsboardSchema : gatewayTelemetrySchema,
      'gateway telemetry',
      quirks,
      (plain) => telemetryValueObjects(plain),
    );
    if (
      faultActive('GW-TEL-01-EMPTY:empty-entries-refused') &&
      Object.values(document).some((entries) => entries.length === 0)
    )
      throw new BadRequestError('Invalid gateway telemetry: a device has no entry');
    const now = Date.now();
    // every entry is converted before anything is stored: a bad value anywhere refuses the whole message
    const converted = Object.entries(document).map(([name, entries]) => ({
      name,
      records: withoutLate(
        entries.map((entry) =>
          thingsboard && !(Object.hasOwn(entry, 'ts') && Object.hasOwn(entry, 'values'))
            ? { ts: now, values: typedEntries(entry, quirks) }
            : {
                ts: entry.ts === undefined ? now : Number(String(entry.ts)),
                values: typedEntries(entry.values, quirks),
              },
        ),
        quirks,
      ),
    }));
    const planned = faultyTelemetry(document, converted, now);
    // all devices first, then all data: a refused device refuses the whole message (all or nothing)
    devices.reserveRoom(planned.map(({ name }) => name));
    for (const { name, records } of planned) {
      const device = connectForData(session, devices, name);
      if (!device) continue;
      const saved = faultActive('GW-RULE-02-KEYS:new-keys-dropped')
        ? records.map((record) => ({
            ts: record.ts,
            values: record.values.filter(([key]) => device.latest.has(key)),
          }))
        : records;
      // applied after the PUBACK (core/scheduler.ts)
      const { core } = session.context;
      core.scheduler.later('save', () => core.saveTelemetry(device, saved));
    }
    // ThingsBoard: a device whose entry array is empty never counts down the publish's acknowledgement (quirks.ts)
    if (
      quirks.emptyTelemetryUnansweredMs > 0 &&
      Object.values(document).some((e) => e.length === 0)
    )
      throw new PublishUnanswered('a device of the telemetry publish has no entry');
  },

  attributes: (session, devices, text) => {
    const { quirks } = session.context;
    const document = parseValid(
      text,
      gatewayAttributesSchema,
      'gateway attributes',
      quirks,
      (plain) => Object.values(plain as object),
    );
    let converted = Object.entries(document).map(([name, values]) => ({
      name,
      entries: typedEntries(values, quirks),
    }));
    if (faultActive('GW-ATTR-02:first-device-only')) converted = converted.slice(0, 1);
    devices.reserveRoom(converted.map(({ name }) => name)); // all or nothing, as telemetry
    for (const { name, entries } of converted) {
      const device = connectForData(session, devices, name);
      if (!device) continue;
      const stored = device.attributes.CLIENT_SCOPE;
      let kept = faultActive('GW-ATTR-01:first-key-dropped') ? entries.slice(1) : entries;
      if (faultActive('GW-RULE-02-UPD:put-if-absent'))
        kept = kept.filter(([key]) => !stored.has(key));
      if (faultActive('GW-RULE-02-KEYS:new-keys-dropped'))
        kept = kept.filter(([key]) => stored.has(key));
      const scope = faultActive('GW-ATTR-01:stored-as-shared') ? 'SHARED_SCOPE' : 'CLIENT_SCOPE';
      const { core } = session.context;
      core.scheduler.later('save', () => core.saveAttributes(device, scope, kept));
    }
  },

  attributesRequest: (session, devices, text) => {
    const request = parseValid(text, gatewayAttributeRequestSchema, 'gateway attribute request');
    if (
      typeof request.client !== 'boolean' &&
      session.context.quirks.gatewayAttributeRequestThingsboardShapeOnly
    ) {
      // getAsBoolean() of an array throws a RuntimeException, and MqttTransportHandler.java 457-460 acknowledges
      // the packet (MQTT 5 0x83, MQTT 3.1.1 a plain PUBACK) before it closes the channel (5: DISCONNECT 0x83)
      throw new PublishFailure(
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
        'client must be true or false',
        true,
        REASON.IMPLEMENTATION_SPECIFIC_ERROR,
        true,
      );
    }
    if (
      faultActive('GW-ATTRREQ-01:shared-required') &&
      typeof request.client !== 'boolean' &&
      request.shared === undefined
    )
      throw new BadRequestError('Invalid gateway attribute request: shared is required');
    const device = devices.connect(request.device);
    const answer: Record<string, unknown> = { id: request.id, device: request.device };
    if (typeof request.client === 'boolean') {
      const scope: AttributeScope = request.client ? 'CLIENT_SCOPE' : 'SHARED_SCOPE';
      // the schema requires key or keys; FromSchema cannot say so (anyOf of `required`)
      const keys = typeof request.key === 'string' ? [request.key] : (request.keys ?? []);
      const found = pickAttributes(device, scope, keys) ?? {};
      const foundKeys = Object.keys(found);
      if (keys.length === 1 && foundKeys.length === 1) answer.value = found[foundKeys[0]];
      else if (foundKeys.length > 0) answer.values = found;
    } else {
      const anyKey = faultActive('GW-ATTRREQ-01:key-filter-ignored');
      const client = request.client;
      const shared = faultActive('GW-ATTRREQ-01:shared-keys-ignored') ? undefined : request.shared;
      const both = client === undefined && shared === undefined;
      if (both || client) {
        const keys = anyKey ? undefined : client;
        setMember(answer, 'client', pickAttributes(device, 'CLIENT_SCOPE', keys) ?? {});
      }
      if (both || shared) {
        const keys = anyKey ? undefined : shared;
        setMember(answer, 'shared', pickAttributes(device, 'SHARED_SCOPE', keys) ?? {});
      }
    }
    if (faultActive('GW-ATTRREQ-02:id-not-echoed')) answer.id = Number(String(request.id)) + 1000;
    session.publish(
      faultActive('GW-ATTRREQ-02:answer-topic-wrong')
        ? 'v1/gateway/attributes/reply'
        : GATEWAY_ATTRIBUTES_RESPONSE_TOPIC,
      stringifyLossless(answer),
    );
  },

  rpc: (session, devices, text) => {
    const reply = parseValid(text, gatewayRpcReplySchema, 'gateway RPC reply');
    const device = devices.connect(reply.device);
    let id = Number(String(reply.id));
    if (faultActive('GW-RPC-02:reply-id-ignored'))
      id = [...device.rpcs.values()].find((rpc) => rpc.state === 'DELIVERED')?.id ?? id;
    const data = faultActive('GW-RPC-02:reply-data-dropped') ? {} : reply.data;
    session.context.core.replyRpc(device, id, stringifyLossless(data));
  },

  claim: (session, devices, text) => {
    const document = parseValid(text, gatewayClaimSchema, 'gateway claim');
    if (faultActive('GW-CLAIM-01:claim-ignored')) return;
    devices.reserveRoom(Object.keys(document)); // all or nothing, as telemetry
    for (const [name, claim] of Object.entries(document)) {
      let durationMs =
        claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
      if (faultActive('GW-CLAIM-03:default-ten-years') && durationMs === undefined)
        durationMs = TEN_YEARS_MS;
      if (faultActive('GW-CLAIM-03:duration-ignored')) durationMs = undefined;
      if (faultActive('GW-CLAIM-03:duration-as-seconds') && durationMs !== undefined)
        durationMs *= 1000;
      let secretKey = faultActive('GW-CLAIM-01:secret-key-dropped') ? '' : claim.secretKey;
      if (faultActive('GW-CLAIM-02:default-key-device-name') && secretKey === undefined)
        secretKey = name;
      const device = devices.connect(name);
      // registered after the PUBACK (core/scheduler.ts)
      const { core } = session.context;
      core.scheduler.later('claim', () => core.registerClaim(device, secretKey, durationMs));
    }
  },
};

const UPLINK_ROLES = new Map(
  gatewayTopicRules()
    .filter((rule) => rule.direction !== 'downlink')
    .map((rule) => [rule.topic, rule.role as GatewayUplinkRole]),
);

export function handleGatewayPublish(
  session: MqttSession,
  devices: GatewayDevices,
  topic: string,
  payload: Buffer,
): void {
  const role = UPLINK_ROLES.get(topic);
  if (!role) throw PublishFailure.topicName(topic);
  HANDLERS[role](session, devices, payload.toString('utf8'));
}

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * Connects the device a data publish names (docs/reference/interfaces.md rule 2: an unknown one is created with the profile
 * default); undefined when a planted fault drops the data instead.
 */
function connectForData(
  session: MqttSession,
  devices: GatewayDevices,
  name: string,
): Device | undefined {
  if (
    faultActive('GW-RULE-02:unknown-device-data-dropped') &&
    !devices.isConnected(name) &&
    !session.context.core.deviceNamed(name)
  )
    return undefined;
  if (faultActive('GW-RULE-02:implicit-profile-not-default') && !devices.isConnected(name))
    return devices.connect(name, 'gateway-device');
  return devices.connect(name);
}

type TelemetryRecords = Array<{
  name: string;
  records: Array<{ ts: number; values: Array<[string, TypedValue]> }>;
}>;

const TELEMETRY_FAULTS = [
  'GW-TEL-01:first-key-dropped',
  'GW-TEL-01:ts-as-seconds',
  'GW-TEL-02:first-device-only',
  'GW-TEL-02:first-entry-only',
  'GW-TEL-03:entry-without-ts-at-epoch',
  'GW-TEL-03:entry-without-ts-dropped',
  'GW-RULE-02-TS:ts-ignored',
] as const;

/** The planted faults of gateway telemetry (faults/catalogue/mqtt-gateway-api.ts); unchanged when none is on. */
function faultyTelemetry(
  document: Record<string, Array<{ ts?: unknown }>>,
  converted: TelemetryRecords,
  now: number,
): TelemetryRecords {
  if (!TELEMETRY_FAULTS.some((id) => faultActive(id))) return converted;
  let devices = converted;
  if (faultActive('GW-TEL-02:first-device-only')) devices = devices.slice(0, 1);
  return devices.map(({ name, records }) => {
    const sent = document[name] ?? [];
    let kept = records.map((record, index) => {
      const withoutTs = sent[index]?.ts === undefined;
      let ts = record.ts;
      if (faultActive('GW-TEL-01:ts-as-seconds') && !withoutTs) ts *= 1000;
      if (faultActive('GW-RULE-02-TS:ts-ignored')) ts = now;
      if (faultActive('GW-TEL-03:entry-without-ts-at-epoch') && withoutTs) ts = 0;
      const values = faultActive('GW-TEL-01:first-key-dropped')
        ? record.values.slice(1)
        : record.values;
      return { ts, values, withoutTs };
    });
    if (faultActive('GW-TEL-03:entry-without-ts-dropped'))
      kept = kept.filter((record) => !record.withoutTs);
    if (faultActive('GW-TEL-02:first-entry-only')) kept = kept.slice(0, 1);
    return { name, records: kept.map(({ ts, values }) => ({ ts, values })) };
  });
}

/** The key-value objects of a gateway telemetry document (for the drop-nulls quirk). */
function telemetryValueObjects(plain: unknown): unknown[] {
  if (!plain || typeof plain !== 'object') return [];
  const found: unknown[] = [];
  for (const entries of Object.values(plain)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!entry || typeof entry !== 'object') continue;
      // a timestamped element's values, else the element itself (ThingsBoard's reading of an element without values)
      found.push(Object.hasOwn(entry, 'values') ? (entry as { values: unknown }).values : entry);
    }
  }
  return found;
}
