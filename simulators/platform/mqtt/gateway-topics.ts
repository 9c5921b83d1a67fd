/**
 * The gateway topics (docs/reference/interfaces.md "MQTT gateway API", the table GATEWAY_API of
 * schemas/gateway.ts), uplink side. A payload is validated whole against its schema
 * (schemas/gateway.ts) before anything is stored, so a malformed message stores nothing (PUBACK
 * 0x99). Data for a device that is not connected connects it first, with the profile `default`
 * (docs/reference/platform-facts.md §4.5).
 *
 * Where docs/reference/interfaces.md and ThingsBoard disagree, the reference serves both:
 * - an attribute request in docs/reference/interfaces.md's shape (`client` and `shared` as arrays
 *   of key names) is answered {id, device, client: {...}, shared: {...}} (each scope requested;
 *   neither = all of both), like the device API; in ThingsBoard's shape (`client: true|false` with
 *   `key` or `keys`) it is answered as ThingsBoard does: {id, device, value} for one key, {id,
 *   device, values: {...}} for several, {id, device} when none is found;
 * - a telemetry element without `ts` is stored at server time (docs/reference/interfaces.md;
 *   ThingsBoard would store a key named `values`, a deviation of its profile).
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
import type { FaultId } from '../../../faults';
import { BadRequestError } from '../core/errors';
import { parseValid, typedEntries, withoutLateRecords as withoutLate } from '../core/payloads';
import { pickAttributes, setMember } from '../core/render';
import type { AttributeScope, Device } from '../core/model';
import type { GatewayDevices } from './gateway-devices';
import { PublishFailure, PublishUnanswered, REASON } from './reason-codes';
import type { MqttSession } from './session';
import { STOP, type StepFault } from '../../../faults/steps';
import { runSteps, stepHandler } from './topic-steps';

/**
 * Quirks mode gatewayDisconnectScalarDeviceAsText: a number or boolean device is read as its text,
 * as Gson's getAsString does on ThingsBoard ({"device": 42} names the device "42"); anything else
 * is left to the schema.
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

/** What every gateway topic's handler starts from: one publish of the gateway's session. */
interface GatewayPublish {
  readonly session: MqttSession;
  readonly devices: GatewayDevices;
  readonly text: string;
}

type Records = Array<{ ts: number; values: Array<[string, TypedValue]> }>;
/**
 * Per device of a data message: its records, whether each was sent without ts, and (once routed)
 * the device.
 */
type Planned<Data> = Array<{ name: string; data: Data; device?: Device }>;

interface ConnectState extends GatewayPublish {
  device: string;
  type: string | undefined;
  /** The profile a device created now gets; undefined: the profile `default`. */
  profile: string | undefined;
  existing: Device | undefined;
}

interface DisconnectState extends GatewayPublish {
  device: string;
}

interface TelemetryState extends GatewayPublish {
  now: number;
  document: Record<string, Array<{ ts?: unknown }>>;
  /** Per device, its records with whether the element was sent without ts. */
  planned: Planned<Array<Records[number] & { withoutTs: boolean }>>;
}

interface AttributesState extends GatewayPublish {
  planned: Planned<Array<[string, TypedValue]>>;
  scope: AttributeScope;
}

interface AttributeRequestState extends GatewayPublish {
  request: FromGatewayAttributeRequest;
  device: Device;
  answer: Record<string, unknown>;
  /** Spec shape: whether each scope's key list is applied (a fault ignores them). */
  keyFilter: boolean;
  shared: string[] | undefined;
  topic: string;
}

interface RpcState extends GatewayPublish {
  device: Device;
  id: number;
  data: unknown;
}

interface ClaimState extends GatewayPublish {
  planned: Planned<{ secretKey: string | undefined; durationMs: number | undefined }>;
}

type FromGatewayAttributeRequest = ReturnType<typeof parseAttributeRequest>;
function parseAttributeRequest(text: string) {
  return parseValid(text, gatewayAttributeRequestSchema, 'gateway attribute request');
}

const handler = <State>() => stepHandler<GatewayPublish, State>();

/**
 * The handler of each topic a gateway publishes on, by its role in the gateway API's table
 * (schemas/gateway.ts): its steps (behaviour only) and, at the same entry, the planted faults
 * wrapping them (faults/catalogue/mqtt-gateway-api.ts).
 */
// Each parse lists the publish's fields instead of spreading it (`{ ...publish, more }`): on Node 20
// an object spread followed by more properties takes V8's slow path, about 1 µs per property added
// (3.6 µs of a gateway telemetry publish's ~17 µs of CPU; bench/README.md, MQTT QoS 1 hot path).
const HANDLERS = {
  connect: handler<ConnectState>()({
    parse: (publish) => {
      const { device, type } = parseValid(publish.text, gatewayConnectSchema, 'gateway connect');
      const existing = publish.session.context.core.deviceNamed(device);
      return {
        session: publish.session,
        devices: publish.devices,
        text: publish.text,
        device,
        type,
        profile: type,
        existing,
      };
    },
    steps: {
      connect: ({ devices, device, profile }) => void devices.connect(device, profile),
    },
    faults: [
      {
        id: 'GW-CONN-01:type-required',
        step: 'parse',
        at: 'after',
        changes: 'refuses a connect without type',
        apply: ({ type }) => {
          if (type === undefined)
            throw new BadRequestError('Invalid gateway connect: type is required');
        },
      },
      {
        id: 'GW-CONN-02:type-ignored',
        step: 'parse',
        at: 'after',
        changes: 'creates the device with the profile default whatever type says',
        apply: (state) => {
          state.profile = undefined;
        },
      },
      {
        id: 'GW-CONN-03:default-profile-misnamed',
        step: 'parse',
        at: 'after',
        changes: 'without type, creates the device with the profile gateway',
        apply: (state) => {
          if (state.type === undefined) state.profile = 'gateway';
        },
      },
      {
        id: 'GW-STATE-03:absent-profile-default',
        step: 'parse',
        at: 'after',
        changes: 'a type naming no profile gives the profile default instead of a new one',
        apply: (state) => {
          if (state.type && !state.session.context.core.profileByName(state.type))
            state.profile = undefined;
        },
      },
      {
        id: 'GW-STATE-02:connect-creates-nothing',
        step: 'connect',
        at: 'before',
        changes: 'an unknown device is neither created nor connected',
        apply: ({ existing }) => (existing ? undefined : STOP),
      },
      {
        id: 'GW-STATE-01:existing-device-profile-replaced',
        step: 'connect',
        at: 'before',
        changes: "an existing device's profile becomes type",
        apply: ({ session, existing, type }) => {
          if (!existing || !type) return;
          const { core } = session.context;
          core.updateDevice(existing, {
            profileId: (core.profileByName(type) ?? core.saveProfile({ name: type })).id,
          });
        },
      },
      {
        id: 'GW-STATE-01:existing-device-not-routed',
        step: 'connect',
        at: 'after',
        changes: 'an existing device is disconnected again at once',
        apply: ({ devices, device, existing }) => {
          if (existing) devices.disconnect(device);
        },
      },
      {
        id: 'GW-STATE-04:routing-waits-for-data',
        step: 'connect',
        at: 'after',
        changes: 'the device is disconnected again at once (routed only by its data)',
        apply: ({ devices, device }) => devices.disconnect(device),
      },
    ],
  }),

  disconnect: handler<DisconnectState>()({
    parse: (publish) => {
      const { text, session } = publish;
      const { device } = parseValid(
        session.context.quirks.gatewayDisconnectScalarDeviceAsText
          ? scalarDeviceAsText(text)
          : text,
        gatewayDisconnectSchema,
        'gateway disconnect',
      );
      return { session: publish.session, devices: publish.devices, text: publish.text, device };
    },
    steps: {
      disconnect: ({ devices, device }) => devices.disconnect(device),
    },
    faults: [
      {
        id: 'GW-DISC-01:disconnect-refused',
        step: 'parse',
        at: 'after',
        changes: 'refuses every disconnect',
        apply: () => {
          throw new BadRequestError('Invalid gateway disconnect: refused');
        },
      },
      {
        id: 'GW-STATE-07:disconnect-creates-device',
        step: 'disconnect',
        at: 'before',
        changes: 'a disconnect naming an unknown device creates it',
        apply: ({ session, device }) => {
          if (!session.context.core.deviceNamed(device))
            session.context.core.createDevice({ name: device });
        },
      },
      {
        id: 'GW-STATE-05:disconnect-ignored',
        step: 'disconnect',
        at: 'instead',
        changes: 'the device stays connected',
        apply: () => undefined,
      },
    ],
  }),

  telemetry: handler<TelemetryState>()({
    parse: (publish) => {
      const { quirks } = publish.session.context;
      // ThingsBoard reads each element as device-API telemetry: without both ts and values it is
      // the key-value object
      const thingsboard = quirks.gatewayEntryWithoutTsIsKeyValues;
      const document = parseValid(
        publish.text,
        thingsboard ? gatewayTelemetryThingsboardSchema : gatewayTelemetrySchema,
        'gateway telemetry',
        quirks,
        (plain) => telemetryValueObjects(plain),
      );
      return {
        session: publish.session,
        devices: publish.devices,
        text: publish.text,
        now: Date.now(),
        document,
        planned: [],
      };
    },
    steps: {
      // every entry is converted before anything is stored: a bad value anywhere refuses the whole
      // message
      convert: (state) => {
        const { quirks } = state.session.context;
        const thingsboard = quirks.gatewayEntryWithoutTsIsKeyValues;
        const { now } = state;
        state.planned = Object.entries(state.document).map(([name, entries]) => {
          const records = entries.map((entry) =>
            thingsboard && !(Object.hasOwn(entry, 'ts') && Object.hasOwn(entry, 'values'))
              ? { ts: now, values: typedEntries(entry, quirks), withoutTs: entry.ts === undefined }
              : {
                  ts: entry.ts === undefined ? now : Number(String(entry.ts)),
                  values: typedEntries((entry as { values: object }).values, quirks),
                  withoutTs: entry.ts === undefined,
                },
          );
          return { name, data: withoutLate(records, quirks) };
        });
      },
      // all devices first, then all data: a refused device refuses the whole message (all or
      // nothing)
      route: routeData,
      save: ({ session, planned }) => {
        const { core } = session.context;
        for (const { device, data } of planned) {
          if (!device) continue;
          const records = data.map(({ ts, values }) => ({ ts, values }));
          // applied after the PUBACK (core/scheduler.ts)
          core.scheduler.later('save', () => core.saveTelemetry(device, records));
        }
      },
      answer: ({ session, document }) => {
        // ThingsBoard: a device whose entry array is empty never counts down the publish's
        // acknowledgement (quirks.ts)
        if (
          session.context.quirks.emptyTelemetryUnansweredMs > 0 &&
          Object.values(document).some((entries) => entries.length === 0)
        )
          throw new PublishUnanswered('a device of the telemetry publish has no entry');
      },
    },
    faults: [
      {
        id: 'GW-TEL-01-EMPTY:empty-entries-refused',
        step: 'parse',
        at: 'after',
        changes: 'refuses a message where a device has no entry',
        apply: ({ document }) => {
          if (Object.values(document).some((entries) => entries.length === 0))
            throw new BadRequestError('Invalid gateway telemetry: a device has no entry');
        },
      },
      ...recordFaults<TelemetryState>([
        [
          'GW-TEL-01:first-key-dropped',
          'drops the first key of each entry',
          (r) => {
            r.values = r.values.slice(1);
          },
        ],
        [
          'GW-TEL-01:ts-as-seconds',
          'reads a sent ts as seconds',
          (r) => {
            if (!r.withoutTs) r.ts *= 1000;
          },
        ],
        [
          'GW-RULE-02-TS:ts-ignored',
          'stores every entry at server time',
          (r, { now }) => {
            r.ts = now;
          },
        ],
        [
          'GW-TEL-03:entry-without-ts-at-epoch',
          'stores an entry without ts at 0',
          (r) => {
            if (r.withoutTs) r.ts = 0;
          },
        ],
      ]),
      {
        id: 'GW-TEL-03:entry-without-ts-dropped',
        step: 'convert',
        at: 'after',
        changes: 'drops the entries without ts',
        apply: ({ planned }) => {
          for (const device of planned) device.data = device.data.filter((r) => !r.withoutTs);
        },
      },
      {
        id: 'GW-TEL-02:first-entry-only',
        step: 'convert',
        at: 'after',
        changes: "keeps each device's first entry only",
        apply: ({ planned }) => {
          for (const device of planned) device.data = device.data.slice(0, 1);
        },
      },
      {
        id: 'GW-TEL-02:first-device-only',
        step: 'convert',
        at: 'after',
        changes: "keeps the message's first device only",
        apply: (state) => {
          state.planned = state.planned.slice(0, 1);
        },
      },
      ...routeFaults<TelemetryState>(),
      {
        id: 'GW-RULE-02-KEYS:new-keys-dropped',
        step: 'save',
        at: 'before',
        changes: 'stores only the keys the device already has',
        apply: ({ planned }) => {
          for (const entry of planned) {
            const { device } = entry;
            if (!device) continue;
            entry.data = entry.data.map((r) => ({
              ...r,
              values: r.values.filter(([key]) => device.latest.has(key)),
            }));
          }
        },
      },
    ],
  }),

  attributes: handler<AttributesState>()({
    parse: (publish) => {
      const { quirks } = publish.session.context;
      const document = parseValid(
        publish.text,
        gatewayAttributesSchema,
        'gateway attributes',
        quirks,
        (plain) => Object.values(plain as object),
      );
      const planned = Object.entries(document).map(([name, values]) => ({
        name,
        data: typedEntries(values, quirks),
      }));
      return {
        session: publish.session,
        devices: publish.devices,
        text: publish.text,
        planned,
        scope: 'CLIENT_SCOPE' as AttributeScope,
      };
    },
    steps: {
      route: routeData, // all or nothing, as telemetry
      save: ({ session, planned, scope }) => {
        const { core } = session.context;
        for (const { device, data } of planned)
          if (device) core.scheduler.later('save', () => core.saveAttributes(device, scope, data));
      },
    },
    faults: [
      {
        id: 'GW-ATTR-02:first-device-only',
        step: 'route',
        at: 'before',
        changes: "keeps the message's first device only",
        apply: (state) => {
          state.planned = state.planned.slice(0, 1);
        },
      },
      ...routeFaults<AttributesState>(),
      ...attributeFaults([
        ['GW-ATTR-01:first-key-dropped', 'drops the first key', (data) => data.slice(1)],
        [
          'GW-RULE-02-UPD:put-if-absent',
          'keeps a stored value instead of updating it',
          (data, stored) => data.filter(([key]) => !stored.has(key)),
        ],
        [
          'GW-RULE-02-KEYS:new-keys-dropped',
          'stores only the keys the device already has',
          (data, stored) => data.filter(([key]) => stored.has(key)),
        ],
      ]),
      {
        id: 'GW-ATTR-01:stored-as-shared',
        step: 'save',
        at: 'before',
        changes: 'stores them as shared attributes',
        apply: (state) => {
          state.scope = 'SHARED_SCOPE';
        },
      },
    ],
  }),

  attributesRequest: handler<AttributeRequestState>()({
    parse: (publish) => {
      const request = parseAttributeRequest(publish.text);
      return {
        session: publish.session,
        devices: publish.devices,
        text: publish.text,
        request,
        device: undefined as unknown as Device, // set by the step connect
        answer: { id: request.id, device: request.device },
        keyFilter: true,
        shared: typeof request.client === 'boolean' ? undefined : request.shared,
        topic: GATEWAY_API.attributesResponse.topic,
      };
    },
    steps: {
      check: ({ request, session }) => {
        if (
          typeof request.client !== 'boolean' &&
          session.context.quirks.gatewayAttributeRequestThingsboardShapeOnly
        ) {
          // getAsBoolean() of an array throws a RuntimeException, and MqttTransportHandler.java
          // 457-460 acknowledges the packet (MQTT 5 0x83, MQTT 3.1.1 a plain PUBACK) before it
          // closes the channel (5: DISCONNECT 0x83)
          throw new PublishFailure(
            REASON.IMPLEMENTATION_SPECIFIC_ERROR,
            'client must be true or false',
            true,
            REASON.IMPLEMENTATION_SPECIFIC_ERROR,
            true,
          );
        }
      },
      connect: (state) => {
        state.device = state.devices.connect(state.request.device);
      },
      collect: ({ request, device, answer, keyFilter, shared }) => {
        if (typeof request.client === 'boolean') {
          const scope: AttributeScope = request.client ? 'CLIENT_SCOPE' : 'SHARED_SCOPE';
          // the schema requires key or keys; FromSchema cannot say so (anyOf of `required`)
          const keys = typeof request.key === 'string' ? [request.key] : (request.keys ?? []);
          const found = pickAttributes(device, scope, keys) ?? {};
          const foundKeys = Object.keys(found);
          if (keys.length === 1 && foundKeys.length === 1) answer.value = found[foundKeys[0]];
          else if (foundKeys.length > 0) answer.values = found;
          return;
        }
        const client = request.client;
        const both = client === undefined && shared === undefined;
        if (both || client) {
          const keys = keyFilter ? client : undefined;
          setMember(answer, 'client', pickAttributes(device, 'CLIENT_SCOPE', keys) ?? {});
        }
        if (both || shared) {
          const keys = keyFilter ? shared : undefined;
          setMember(answer, 'shared', pickAttributes(device, 'SHARED_SCOPE', keys) ?? {});
        }
      },
      answer: ({ session, topic, answer }) => {
        session.publish(topic, stringifyLossless(answer));
      },
    },
    faults: [
      {
        id: 'GW-ATTRREQ-01:shared-required',
        step: 'check',
        at: 'after',
        changes: 'refuses a request in the spec shape without shared',
        apply: ({ request }) => {
          if (typeof request.client !== 'boolean' && request.shared === undefined)
            throw new BadRequestError('Invalid gateway attribute request: shared is required');
        },
      },
      {
        id: 'GW-ATTRREQ-01:key-filter-ignored',
        step: 'collect',
        at: 'before',
        changes: 'answers every key of the scopes asked',
        apply: (state) => {
          state.keyFilter = false;
        },
      },
      {
        id: 'GW-ATTRREQ-01:shared-keys-ignored',
        step: 'collect',
        at: 'before',
        changes: 'reads no shared key list',
        apply: (state) => {
          state.shared = undefined;
        },
      },
      {
        id: 'GW-ATTRREQ-02:id-not-echoed',
        step: 'answer',
        at: 'before',
        changes: 'answers with another id',
        apply: ({ answer, request }) => {
          answer.id = Number(String(request.id)) + 1000;
        },
      },
      {
        id: 'GW-ATTRREQ-02:answer-topic-wrong',
        step: 'answer',
        at: 'before',
        changes: 'answers on .../attributes/reply',
        apply: (state) => {
          state.topic = state.topic.replace(/response$/, 'reply');
        },
      },
    ],
  }),

  rpc: handler<RpcState>()({
    parse: (publish) => {
      const reply = parseValid(publish.text, gatewayRpcReplySchema, 'gateway RPC reply');
      const device = publish.devices.connect(reply.device);
      return {
        session: publish.session,
        devices: publish.devices,
        text: publish.text,
        device,
        id: Number(String(reply.id)),
        data: reply.data,
      };
    },
    steps: {
      reply: ({ session, device, id, data }) =>
        session.context.core.replyRpc(device, id, stringifyLossless(data)),
    },
    faults: [
      {
        id: 'GW-RPC-02:reply-id-ignored',
        step: 'reply',
        at: 'before',
        changes: 'answers the first delivered RPC whatever id says',
        apply: (state) => {
          state.id =
            [...state.device.rpcs.values()].find((rpc) => rpc.state === 'DELIVERED')?.id ??
            state.id;
        },
      },
      {
        id: 'GW-RPC-02:reply-data-dropped',
        step: 'reply',
        at: 'before',
        changes: 'relays {} as the reply',
        apply: (state) => {
          state.data = {};
        },
      },
    ],
  }),

  claim: handler<ClaimState>()({
    parse: (publish) => {
      const document = parseValid(publish.text, gatewayClaimSchema, 'gateway claim');
      const planned = Object.entries(document).map(([name, claim]) => ({
        name,
        data: {
          secretKey: claim.secretKey,
          durationMs: claim.durationMs === undefined ? undefined : Number(String(claim.durationMs)),
        },
      }));
      return { session: publish.session, devices: publish.devices, text: publish.text, planned };
    },
    steps: {
      connect: ({ devices, planned }) => {
        devices.reserveRoom(planned.map(({ name }) => name)); // all or nothing, as telemetry
        for (const entry of planned) entry.device = devices.connect(entry.name);
      },
      register: ({ session, planned }) => {
        const { core } = session.context;
        // registered after the PUBACK (core/scheduler.ts)
        for (const { device, data } of planned)
          if (device)
            core.scheduler.later('claim', () =>
              core.registerClaim(device, data.secretKey, data.durationMs),
            );
      },
    },
    faults: [
      {
        id: 'GW-CLAIM-01:claim-ignored',
        step: 'connect',
        at: 'before',
        changes: 'ignores the message',
        apply: () => STOP,
      },
      ...claimFaults([
        [
          'GW-CLAIM-03:default-ten-years',
          'without durationMs, ten years',
          (claim) => {
            if (claim.durationMs === undefined) claim.durationMs = TEN_YEARS_MS;
          },
        ],
        [
          'GW-CLAIM-03:duration-ignored',
          'ignores durationMs',
          (claim) => {
            claim.durationMs = undefined;
          },
        ],
        [
          'GW-CLAIM-03:duration-as-seconds',
          'reads durationMs as seconds',
          (claim) => {
            if (claim.durationMs !== undefined) claim.durationMs *= 1000;
          },
        ],
        [
          'GW-CLAIM-01:secret-key-dropped',
          'registers the empty secret key',
          (claim) => {
            claim.secretKey = '';
          },
        ],
        [
          'GW-CLAIM-02:default-key-device-name',
          "without secretKey, the device's name",
          (claim, name) => {
            if (claim.secretKey === undefined) claim.secretKey = name;
          },
        ],
      ]),
    ],
  }),
} satisfies { [Role in GatewayUplinkRole]: unknown };

/** The handler of each uplink role, as the dispatch calls it. */
const RUN: Record<GatewayUplinkRole, (publish: GatewayPublish) => void> = {
  connect: (publish) => runSteps(HANDLERS.connect, publish),
  disconnect: (publish) => runSteps(HANDLERS.disconnect, publish),
  telemetry: (publish) => runSteps(HANDLERS.telemetry, publish),
  attributes: (publish) => runSteps(HANDLERS.attributes, publish),
  attributesRequest: (publish) => runSteps(HANDLERS.attributesRequest, publish),
  rpc: (publish) => runSteps(HANDLERS.rpc, publish),
  claim: (publish) => runSteps(HANDLERS.claim, publish),
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
  RUN[role]({ session, devices, text: payload.toString('utf8') });
}

/**
 * The planted faults of each topic handler, by role (for tests and the docs: which fault wraps
 * which step).
 */
export function gatewayHandlerFaults(): Array<{
  role: GatewayUplinkRole;
  id: string;
  step: string;
}> {
  return Object.entries(HANDLERS).flatMap(([role, entry]) =>
    entry.faults.map((fault) => ({
      role: role as GatewayUplinkRole,
      id: fault.id,
      step: fault.step,
    })),
  );
}

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * Step `route` of a data message: connects every device it names (docs/reference/interfaces.md rule
 * 2: an unknown one is created with the profile default), all or none (the device limit is checked
 * for all first).
 */
function routeData({ devices, planned }: GatewayPublish & { planned: Planned<unknown> }): void {
  devices.reserveRoom(planned.map(({ name }) => name));
  for (const entry of planned) entry.device = devices.connect(entry.name);
}

/** The planted faults of step `route` (shared by telemetry and attributes). */
function routeFaults<State extends GatewayPublish & { planned: Planned<unknown> }>(): Array<
  StepFault<State, 'route'>
> {
  return [
    {
      id: 'GW-RULE-02:unknown-device-data-dropped',
      step: 'route',
      at: 'before',
      changes: 'drops the data of a device that does not exist',
      apply: ({ session, devices, planned }) => {
        const { core } = session.context;
        for (let i = planned.length - 1; i >= 0; i--) {
          const { name } = planned[i];
          if (!devices.isConnected(name) && !core.deviceNamed(name)) planned.splice(i, 1);
        }
      },
    },
    {
      id: 'GW-RULE-02:implicit-profile-not-default',
      step: 'route',
      at: 'before',
      changes: 'a device the data creates gets the profile gateway-device',
      apply: ({ devices, planned }) => {
        devices.reserveRoom(planned.map(({ name }) => name));
        for (const { name } of planned)
          if (!devices.isConnected(name)) devices.connect(name, 'gateway-device');
      },
    },
  ];
}

/** Faults changing each telemetry record after step `convert`. */
function recordFaults<State extends TelemetryState>(
  faults: Array<
    [
      FaultId,
      string,
      (record: TelemetryState['planned'][number]['data'][number], state: State) => void,
    ]
  >,
): Array<StepFault<State, 'convert'>> {
  return faults.map(([id, changes, change]) => ({
    id,
    step: 'convert',
    at: 'after',
    changes,
    apply: (state) => {
      for (const { data } of state.planned) for (const record of data) change(record, state);
    },
  }));
}

/**
 * Faults changing each device's attributes after step `route` (they see what the device stores).
 */
function attributeFaults(
  faults: Array<
    [
      FaultId,
      string,
      (
        data: Array<[string, TypedValue]>,
        stored: ReadonlyMap<string, unknown>,
      ) => Array<[string, TypedValue]>,
    ]
  >,
): Array<StepFault<AttributesState, 'route'>> {
  return faults.map(([id, changes, change]) => ({
    id,
    step: 'route',
    at: 'after',
    changes,
    apply: ({ planned }) => {
      for (const entry of planned)
        if (entry.device) entry.data = change(entry.data, entry.device.attributes.CLIENT_SCOPE);
    },
  }));
}

/** Faults changing each device's claim before step `connect`. */
function claimFaults(
  faults: Array<
    [FaultId, string, (claim: ClaimState['planned'][number]['data'], name: string) => void]
  >,
): Array<StepFault<ClaimState, 'connect'>> {
  return faults.map(([id, changes, change]) => ({
    id,
    step: 'connect',
    at: 'before',
    changes,
    apply: ({ planned }) => {
      for (const { name, data } of planned) change(data, name);
    },
  }));
}

/** The key-value objects of a gateway telemetry document (for the drop-nulls quirk). */
function telemetryValueObjects(plain: unknown): unknown[] {
  if (!plain || typeof plain !== 'object') return [];
  const found: unknown[] = [];
  for (const entries of Object.values(plain)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!entry || typeof entry !== 'object') continue;
      // a timestamped element's values, else the element itself (ThingsBoard's reading of an
      // element without values)
      found.push(Object.hasOwn(entry, 'values') ? (entry as { values: unknown }).values : entry);
    }
  }
  return found;
}
