/**
 * The device topics (v1/devices/me/...; the table DEVICE_MQTT_API of schemas/device-mqtt.ts),
 * uplink side, as ThingsBoard serves them (docs/reference/platform-facts.md §4.3). A gateway uses
 * them for its own telemetry, attributes, configuration updates and RPC
 * (docs/reference/interfaces.md: the gateway is also an ordinary device). Payload rules are the
 * HTTP device API's: the same parsing code (core/payloads.ts). Each handler is a list of named
 * steps with its planted faults (faults/catalogue/mqtt-device-api.ts) registered as wrappers at the
 * same entry (topic-steps.ts).
 */
import type { FaultId } from '../../../faults';
import { stringifyLossless } from '../../../lib/kv/values';
import {
  claimSchema,
  clientAttributesSchema,
  type DeviceMqttRole,
  deviceTopic,
  deviceTopicRole,
} from '../../../schemas';
import { BadRequestError } from '../core/errors';
import type { AttributeScope, Device } from '../core/model';
import { parseJson, parseValid, telemetryEntries, typedEntries } from '../core/payloads';
import type { TelemetryRecord } from '../core/platform-core';
import { attributesAnswer, pickAttributes } from '../core/render';
import { PublishFailure, PublishUnanswered } from './reason-codes';
import type { MqttSession } from './session';
import { SESSION_LIMITS_METHOD, sessionLimits } from './session-limits';
import { STOP, type StepFault } from '../../../faults/steps';
import { runSteps, stepHandler } from './topic-steps';

/** What every device topic's handler starts from: one publish of the device's session. */
interface DevicePublish {
  readonly session: MqttSession;
  readonly device: Device;
  readonly text: string;
  /** The request id the topic carries ('' for a topic without one). */
  readonly id: string;
}

interface TelemetryState extends DevicePublish {
  empty: boolean;
  now: number;
  records: TelemetryRecord[];
}

interface AttributesState extends DevicePublish {
  values: ReturnType<typeof typedEntries>;
  scope: AttributeScope;
}

interface ClaimState extends DevicePublish {
  secretKey: string | undefined;
  durationMs: number | undefined;
}

interface AttributeRequestState extends DevicePublish {
  clientList: string[] | undefined;
  sharedList: string[] | undefined;
  answer: ReturnType<typeof attributesAnswer>;
  answerId: string | number;
}

interface ClientRpcState extends DevicePublish {
  request: unknown;
  answerId: string | number;
  /** The text of the handler's answer ('' when it has none). */
  render: (answer: unknown) => string;
}

const handler = <State>() => stepHandler<DevicePublish, State>();

/** Whether this session's MQTT version is the one a fault names ('v5' or 'v311'). */
const onVersion = (session: MqttSession, version: 'v5' | 'v311') =>
  session.v5 === (version === 'v5');

// Each parse lists the publish's fields instead of spreading it (`{ ...publish, more }`): on Node 20
// an object spread followed by more properties takes V8's slow path, about 1 µs per property added
// (3.6 µs of a gateway telemetry publish's ~17 µs of CPU; bench/README.md, MQTT QoS 1 hot path).
const HANDLERS = {
  telemetry: handler<TelemetryState>()({
    parse: (publish) => ({
      session: publish.session,
      device: publish.device,
      text: publish.text,
      id: publish.id,
      empty: /^\s*\[\s*\]\s*$/.test(publish.text),
      now: Date.now(),
      records: [],
    }),
    steps: {
      // ThingsBoard never acknowledges telemetry with no entry (quirks.ts
      // emptyTelemetryUnansweredMs)
      unanswered: ({ empty, session }) => {
        if (empty && session.context.quirks.emptyTelemetryUnansweredMs > 0)
          throw new PublishUnanswered('the telemetry publish has no entry');
      },
      convert: (state) => {
        state.records = telemetryEntries(state.text, state.now, state.session.context.quirks);
      },
      // applied after the PUBACK (core/scheduler.ts), as ThingsBoard's rule engine does
      save: ({ session, device, records }) => {
        const { core } = session.context;
        core.scheduler.later('save', () => core.saveTelemetry(device, records));
      },
    },
    faults: [
      {
        id: 'MQTT-DEV-TEL-01-EMPTY:empty-array-refused',
        step: 'unanswered',
        at: 'before',
        changes: 'refuses []',
        apply: ({ empty }) => {
          if (empty) throw new BadRequestError('telemetry holds no entry');
        },
      },
      ...(['v311', 'v5'] as const).map(
        (version): StepFault<TelemetryState, 'convert'> => ({
          id: `MQTT-DEV-TEL-01:${version}-dropped`,
          step: 'convert',
          at: 'after',
          changes: `stores nothing from an MQTT ${version} session`,
          apply: (state) => {
            if (onVersion(state.session, version)) state.records = [];
          },
        }),
      ),
      ...elementFaults([
        [
          'MQTT-DEV-TEL-01:device-ts-ignored',
          "a timestamped element's ts replaced by server time",
          (r, e) => (e.timestamped ? { ...r, ts: e.now } : r),
        ],
        [
          'MQTT-DEV-TEL-01:server-ts-epoch',
          'an element without ts stored at 0',
          (r, e) => (e.timestamped ? r : { ...r, ts: 0 }),
        ],
        [
          'MQTT-DEV-TEL-01:object-last-key-dropped',
          "a plain object's last key dropped",
          (r, e) => (!e.array && !e.timestamped ? { ...r, values: r.values.slice(0, -1) } : r),
        ],
      ]),
      {
        id: 'MQTT-DEV-TEL-01:array-first-element-only',
        step: 'convert',
        at: 'after',
        changes: "keeps an array's first element only",
        apply: (state) => {
          if (Array.isArray(JSON.parse(state.text))) state.records = state.records.slice(0, 1);
        },
      },
    ],
  }),

  attributes: handler<AttributesState>()({
    parse: (publish) => {
      const { quirks } = publish.session.context;
      const values = typedEntries(
        parseValid(publish.text, clientAttributesSchema, 'attributes', quirks),
        quirks,
      );
      return {
        session: publish.session,
        device: publish.device,
        text: publish.text,
        id: publish.id,
        values,
        scope: 'CLIENT_SCOPE' as AttributeScope,
      };
    },
    steps: {
      save: ({ session, device, scope, values }) => {
        const { core } = session.context;
        core.scheduler.later('save', () => core.saveAttributes(device, scope, values));
      },
    },
    faults: [
      ...(['v311', 'v5'] as const).map(
        (version): StepFault<AttributesState, 'save'> => ({
          id: `MQTT-DEV-ATTR-01:${version}-not-stored`,
          step: 'save',
          at: 'before',
          changes: `stores nothing from an MQTT ${version} session`,
          apply: ({ session }) => (onVersion(session, version) ? STOP : undefined),
        }),
      ),
      {
        id: 'MQTT-DEV-ATTR-01:last-key-dropped',
        step: 'save',
        at: 'before',
        changes: 'drops the last key',
        apply: ({ values }) => void values.pop(),
      },
      {
        id: 'MQTT-DEV-ATTR-01:stored-as-shared',
        step: 'save',
        at: 'before',
        changes: 'stores them as shared attributes',
        apply: (state) => {
          state.scope = 'SHARED_SCOPE';
        },
      },
    ],
  }),

  claim: handler<ClaimState>()({
    parse: (publish) => {
      // an empty payload is allowed: both fields take their defaults
      const claim =
        publish.text.trim() === '' ? {} : parseValid(publish.text, claimSchema, 'claim');
      const durationMs =
        claim.durationMs === undefined ? undefined : Number(String(claim.durationMs));
      return {
        session: publish.session,
        device: publish.device,
        text: publish.text,
        id: publish.id,
        secretKey: claim.secretKey,
        durationMs,
      };
    },
    steps: {
      // registered after the PUBACK (core/scheduler.ts), as ThingsBoard's claim goes through the
      // device actor
      register: ({ session, device, secretKey, durationMs }) => {
        const { core } = session.context;
        core.scheduler.later('claim', () => core.registerClaim(device, secretKey, durationMs));
      },
    },
    faults: [
      {
        id: 'MQTT-DEV-CLAIM-01:claim-ignored',
        step: 'register',
        at: 'instead',
        changes: 'registers nothing',
        apply: () => STOP,
      },
      {
        id: 'MQTT-DEV-CLAIM-01:duration-ignored',
        step: 'register',
        at: 'before',
        changes: 'ignores durationMs',
        apply: (state) => {
          state.durationMs = undefined;
        },
      },
      {
        id: 'MQTT-DEV-CLAIM-01:duration-as-seconds',
        step: 'register',
        at: 'before',
        changes: 'reads durationMs as seconds',
        apply: (state) => {
          if (state.durationMs !== undefined) state.durationMs *= 1000;
        },
      },
      {
        id: 'MQTT-DEV-CLAIM-01:secret-key-dropped',
        step: 'register',
        at: 'before',
        changes: 'registers the empty secret key',
        apply: (state) => {
          state.secretKey = '';
        },
      },
    ],
  }),

  /**
   * {"clientKeys":"a,b","sharedKeys":"c"} → {"client":{...},"shared":{...}} on
   * .../attributes/response/{id}; {} = all.
   */
  attributesRequest: handler<AttributeRequestState>()({
    parse: (publish) => {
      const { text, session } = publish;
      if (text.trim() === '') throw new BadRequestError('Invalid attribute request: empty payload');
      const request = parseJson(text, 'attribute request', session.context.quirks);
      if (!request || typeof request !== 'object' || Array.isArray(request))
        throw new BadRequestError('Invalid attribute request: not an object');
      const { clientKeys, sharedKeys } = request as { clientKeys?: unknown; sharedKeys?: unknown };
      return {
        session: publish.session,
        device: publish.device,
        text: publish.text,
        id: publish.id,
        clientList: keyList(clientKeys),
        sharedList: keyList(sharedKeys),
        answer: {},
        answerId: publish.id,
      };
    },
    steps: {
      collect: (state) => {
        state.answer = attributesAnswer(state.device, state.clientList, state.sharedList);
      },
      // sent even when the device did not subscribe (docs/reference/platform-facts.md §4.3)
      answer: ({ session, answerId, answer }) => {
        session.publish(deviceTopic('attributesResponse', answerId), stringifyLossless(answer), {
          always: true,
        });
      },
    },
    faults: [
      {
        id: 'MQTT-DEV-ATTR-02:client-keys-ignored',
        step: 'collect',
        at: 'after',
        changes: 'answers every client key when some are asked',
        apply: ({ clientList, answer, device }) => {
          if (clientList) answer.client = pickAttributes(device, 'CLIENT_SCOPE', undefined);
        },
      },
      {
        id: 'MQTT-DEV-ATTR-02:shared-keys-ignored',
        step: 'collect',
        at: 'after',
        changes: 'answers every shared key when some are asked',
        apply: ({ sharedList, answer, device }) => {
          if (sharedList) answer.shared = pickAttributes(device, 'SHARED_SCOPE', undefined);
        },
      },
      {
        id: 'MQTT-DEV-ATTR-02:unasked-scope-answered',
        step: 'collect',
        at: 'after',
        changes: 'answers the scope not asked too',
        apply: ({ clientList, sharedList, answer, device }) => {
          if ((clientList === undefined) === (sharedList === undefined)) return;
          if (sharedList) answer.client = pickAttributes(device, 'CLIENT_SCOPE', undefined);
          else answer.shared = pickAttributes(device, 'SHARED_SCOPE', undefined);
        },
      },
      {
        id: 'MQTT-DEV-ATTR-02:empty-request-answers-nothing',
        step: 'collect',
        at: 'after',
        changes: 'answers {} to {}',
        apply: (state) => {
          if (!state.clientList && !state.sharedList) state.answer = {};
        },
      },
      {
        id: 'MQTT-DEV-ATTR-02:answer-on-next-id',
        step: 'answer',
        at: 'before',
        changes: 'answers on the next id',
        apply: (state) => {
          state.answerId = Number(state.id) + 1;
        },
      },
    ],
  }),

  /**
   * Client-side RPC: the platform's handler answers on v1/devices/me/rpc/response/{id}. The method
   * getSessionLimits is answered by the transport itself (every ThingsBoard SDK device and gateway
   * sends it on connect).
   */
  rpcRequest: handler<ClientRpcState>()({
    parse: (publish) => ({
      session: publish.session,
      device: publish.device,
      text: publish.text,
      id: publish.id,
      request: parseJson(publish.text, 'client-side RPC request', publish.session.context.quirks),
      answerId: publish.id,
      render: (answer) => (answer === undefined ? '' : JSON.stringify(answer)),
    }),
    steps: {
      sessionLimits: ({ request, session, id }) => {
        if ((request as { method?: unknown } | null)?.method !== SESSION_LIMITS_METHOD) return;
        // after the PUBACK (publish.ts sends it when this returns), as ThingsBoard's
        // onGetSessionLimitsRpc
        setImmediate(() =>
          session.publish(deviceTopic('rpcResponse', id), JSON.stringify(sessionLimits(session)), {
            always: true,
          }),
        );
        return STOP;
      },
      forward: ({ session, device, request, answerId, render }) => {
        void Promise.resolve(
          session.context.clientRpc({ name: device.name, id: device.id }, request),
        )
          .then((answer) =>
            session.publish(deviceTopic('rpcResponse', answerId), render(answer), { always: true }),
          )
          .catch((error: unknown) =>
            session.context.logger.error({ err: error }, 'client-side RPC handler failed'),
          );
      },
    },
    faults: [
      {
        id: 'MQTT-DEV-RPC-04:echoed',
        step: 'sessionLimits',
        at: 'instead',
        changes: 'getSessionLimits goes to the handler like any method',
        apply: () => undefined,
      },
      {
        id: 'MQTT-DEV-RPC-03:answer-on-next-id',
        step: 'forward',
        at: 'before',
        changes: 'answers on the next id',
        apply: (state) => {
          state.answerId = Number(state.id) + 1;
        },
      },
      {
        id: 'MQTT-DEV-RPC-03:answer-empty',
        step: 'forward',
        at: 'before',
        changes: 'answers with an empty payload',
        apply: (state) => {
          state.render = () => '';
        },
      },
    ],
  }),

  /**
   * The device's reply to a server-side RPC: any payload, kept raw
   * (docs/reference/platform-facts.md §4.3).
   */
  rpcResponse: handler<DevicePublish>()({
    parse: (publish) => publish,
    steps: {
      // the REST caller gets 200 with no body for an empty reply and 406 for one that is not JSON
      // (admin/rpc-routes.ts), as on ThingsBoard
      relay: ({ session, device, id, text }) => {
        session.context.core.replyRpc(device, Number(id), text);
      },
    },
    faults: [
      {
        id: 'MQTT-DEV-RPC-02:reply-must-be-json',
        step: 'relay',
        at: 'before',
        changes: 'refuses a reply that is not JSON',
        apply: ({ text }) => void parseJson(text, 'RPC reply'),
      },
      {
        id: 'MQTT-DEV-RPC-01:reply-not-relayed',
        step: 'relay',
        at: 'before',
        changes: 'drops a JSON reply',
        apply: ({ text }) => (isJson(text) ? STOP : undefined),
      },
    ],
  }),
} satisfies { [Role in DeviceMqttRole]?: unknown };

type DeviceUplinkRole = keyof typeof HANDLERS;

/** The handler of each uplink role, as the dispatch calls it. */
const RUN: Record<DeviceUplinkRole, (publish: DevicePublish) => void> = {
  telemetry: (publish) => runSteps(HANDLERS.telemetry, publish),
  attributes: (publish) => runSteps(HANDLERS.attributes, publish),
  claim: (publish) => runSteps(HANDLERS.claim, publish),
  attributesRequest: (publish) => runSteps(HANDLERS.attributesRequest, publish),
  rpcRequest: (publish) => runSteps(HANDLERS.rpcRequest, publish),
  rpcResponse: (publish) => runSteps(HANDLERS.rpcResponse, publish),
};

export function handleDevicePublish(session: MqttSession, topic: string, payload: Buffer): void {
  // by role in the device API's table (schemas/device-mqtt.ts DEVICE_MQTT_API)
  const found = deviceTopicRole(topic);
  if (!found || !Object.hasOwn(RUN, found.role)) throw PublishFailure.topicName(topic);
  RUN[found.role as DeviceUplinkRole]({
    session,
    device: session.device!,
    text: payload.toString('utf8'),
    id: found.id ?? '',
  });
}

/** The planted faults of each topic handler, by role (which fault wraps which step). */
export function deviceHandlerFaults(): Array<{ role: DeviceUplinkRole; id: string; step: string }> {
  return Object.entries(HANDLERS).flatMap(([role, entry]) =>
    entry.faults.map((fault) => ({
      role: role as DeviceUplinkRole,
      id: fault.id,
      step: fault.step,
    })),
  );
}

/** A comma-separated key list as its keys; undefined when not a string. */
function keyList(value: unknown): string[] | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean)
    : undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * One element of a telemetry payload as sent: timestamped ({ts, values}) or not, and whether in an
 * array.
 */
interface SentElement {
  timestamped: boolean;
  array: boolean;
  now: number;
}

/**
 * Faults changing each telemetry record after step `convert`, knowing the element it came from: the
 * payload is parsed again (only then) since telemetryEntries gives one record per element, in
 * order.
 */
function elementFaults(
  faults: Array<
    [FaultId, string, (record: TelemetryRecord, element: SentElement) => TelemetryRecord]
  >,
): Array<StepFault<TelemetryState, 'convert'>> {
  return faults.map(([id, changes, change]) => ({
    id,
    step: 'convert',
    at: 'after',
    changes,
    apply: (state) => {
      const document = JSON.parse(state.text) as unknown;
      const array = Array.isArray(document);
      const elements = (array ? document : [document]) as Array<Record<string, unknown>>;
      state.records = state.records.map((record, index) => {
        const element = elements[index] ?? {};
        const timestamped = Object.hasOwn(element, 'ts') && Object.hasOwn(element, 'values');
        return change(record, { timestamped, array, now: state.now });
      });
    },
  }));
}
