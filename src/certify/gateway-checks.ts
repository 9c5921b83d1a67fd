/**
 * The gateway's own obligations (catalogue role `gateway`), judged from the packets of the client
 * under test and the ones the reference sent it (mqtt-packets.ts): docs/reference/interfaces.md's
 * MQTT gateway API and its rules 1, 3 and 4. The token as user name and QoS 0/1 are judged as for
 * an MQTT device (mqtt-device-checks.ts).
 *
 * docs/reference/interfaces.md rule 2 lets a gateway publish data for a device it never connected
 * (the platform connects it), so connecting first is no obligation of its own; what is judged is
 * rule 3's claim (SHOULD: connected first) and rule 4's wait for the connect's PUBACK (SHOULD). The
 * reference holds that PUBACK a moment during a certification (certify-device.ts), so a gateway
 * that does not wait shows it in the trace.
 *
 * A gateway is also a device (docs/reference/interfaces.md; ThingsBoard's gateway session is a
 * device session, and the Python SDK's TBGatewayMqttClient extends TBDeviceMqttClient): its own
 * v1/devices/me/... traffic on the same connection is judged by the MQTT device checks themselves
 * (mqtt-device-checks.ts) for the requirements about topics, payloads and ordering,
 * MQTT-DEV-02..08. MQTT-DEV-01 and MQTT-DEV-09 are left out: for a gateway they are GW-CLI-01 and
 * GW-CLI-06 (the same checks), and one difference fails one requirement. MQTT-DEV-02 judges every
 * publish against the topics of both APIs, so a publish on a topic of neither fails it (and only
 * it: GW-CLI-02 judges the gateway topics' payloads). A gateway need not act as a device at all, so
 * a device requirement whose subject it never took up is NOT APPLICABLE with the reason, never PASS
 * and never NOT TESTED (an ordinary gateway still certifies CONFORMANT). The exception is the reply
 * to a server-side RPC of its own device: once the gateway subscribed to those requests, the
 * certification sends it one (certify-device.ts), so MQTT-DEV-07 and -08 are then NOT TESTED when
 * it never came.
 */
import { DEVICE_MQTT_API, deviceTopicFilter } from '../../schemas/device-mqtt';
import {
  GATEWAY_API,
  gatewayAttributeRequestSpecSchema,
  gatewayAttributeRequestThingsboardSchema,
  gatewayTopicRules,
} from '../../schemas/gateway';
import {
  type Violation,
  optionalOutcome,
  outcome,
  parseJson,
  repliedInTime,
} from './client-checks';
import {
  DEVICE_API_TOPICS,
  MQTT_DEVICE_CHECK_OF,
  type MqttDeviceCheck,
  publishedOnTopicsOf,
  qualityOfService,
  tokenAsUserName,
} from './mqtt-device-checks';
import {
  type Publish,
  answeredRpcs,
  millisecondsOutcome,
  schemaViolations,
  subscribedOutcome,
} from './mqtt-checks';
import { type ObservedPacket, delivered, filtersBefore, payloadOf, sent } from './mqtt-packets';
import { topicMatches } from '../../lib/mqtt/topic-filter';

/**
 * The uplink gateway topics, each with its schema (docs/reference/interfaces.md's shapes, from the
 * gateway API's table GATEWAY_API; mode thingsboard-4.3 judges the attribute request by
 * ThingsBoard's, payloadShapes) and where its payload names its devices.
 */
const UPLINK = new Map(
  gatewayTopicRules().flatMap((rule) =>
    rule.direction === 'downlink' || !rule.schema ? [] : [[rule.topic, rule] as const],
  ),
);

function gatewayPublishes(packets: readonly ObservedPacket[], topic?: string): Publish[] {
  return sent(packets, 'publish').filter((observed) =>
    topic === undefined ? UPLINK.has(observed.packet.topic) : observed.packet.topic === topic,
  );
}

/** The JSON object of a publish, or undefined. */
function body(observed: Publish): Record<string, unknown> | undefined {
  const parsed = parseJson(payloadOf(observed.packet));
  return parsed.ok &&
    typeof parsed.value === 'object' &&
    parsed.value !== null &&
    !Array.isArray(parsed.value)
    ? (parsed.value as Record<string, unknown>)
    : undefined;
}

/**
 * The devices a gateway publish is for: object keys (telemetry, attributes, claim) or its device
 * member.
 */
function devicesOf(observed: Publish): string[] {
  const document = body(observed);
  if (!document) return [];
  if (UPLINK.get(observed.packet.topic)?.devices === 'keys') return Object.keys(document);
  return typeof document.device === 'string' ? [document.device] : [];
}

/**
 * What a certification judges by (`iotc certify --mode`): `spec`, docs/reference/interfaces.md; `thingsboard-4.3`,
 * as ThingsBoard 4.3 judges it where it declares a deviation of a client requirement's subject. Of the requirements
 * certified, only the gateway attribute request differs (GW-ATTRREQ-01, docs/thingsboard-4.3-deviations.md): its
 * shape `{id, device, client: true|false, key|keys}` is the only one ThingsBoard reads, and what its Python SDK and
 * IoT Gateway send; the specification's `{id, device, client: [...], shared: [...]}` ends the session there.
 */
export type CertifyMode = 'spec' | 'thingsboard-4.3';

/**
 * GW-CLI-02: every publish on a gateway topic is valid against that topic's schema (the mode's
 * attribute request).
 */
function payloadShapes(mode: CertifyMode): MqttDeviceCheck {
  return (input) => {
    const judged = gatewayPublishes(input.packets);
    const violations = judged.flatMap((observed) => {
      const { topic } = observed.packet;
      if (mode === 'spec' || topic !== GATEWAY_API.attributesRequest.topic)
        return schemaViolations(observed, UPLINK.get(topic)?.schema ?? {});
      const wrong = schemaViolations(observed, gatewayAttributeRequestThingsboardSchema);
      if (
        wrong.length === 0 ||
        schemaViolations(observed, gatewayAttributeRequestSpecSchema).length
      )
        return wrong;
      return [
        {
          item: observed as ObservedPacket,
          reason: `PUBLISH ${topic}: the specification's shape (client and shared as key lists), which ThingsBoard 4.3 refuses, ending the session (deviation GW-ATTRREQ-01): it reads {id, device, client: true|false, key|keys}`,
        },
      ];
    });
    return outcome<ObservedPacket>(judged, violations, 'the client published on no gateway topic');
  };
}

/** GW-CLI-03: the ts of gateway telemetry entries is unix milliseconds. */
const milliseconds: MqttDeviceCheck = (input) => {
  const result = millisecondsOutcome(
    gatewayPublishes(input.packets, GATEWAY_API.telemetry.topic),
    (payload) =>
      Object.values(typeof payload === 'object' && payload !== null ? payload : {})
        .flatMap((value) => (Array.isArray(value) ? value : []))
        .flatMap((entry) =>
          typeof entry === 'object' && entry !== null && 'ts' in entry
            ? [(entry as { ts: unknown }).ts]
            : [],
        ),
    'the client sent no gateway telemetry with ts (it may let the server assign the ts)',
  );
  return result.exercised ? result : { ...result, notApplicable: true };
};

/**
 * GW-RULE-01: an attribute request follows a subscription to the responses, an RPC reply one to the
 * requests.
 */
const subscribedFirst: MqttDeviceCheck = (input) =>
  subscribedOutcome(
    input.packets,
    [
      ...gatewayPublishes(input.packets, GATEWAY_API.attributesRequest.topic).map((observed) => ({
        observed,
        topic: GATEWAY_API.attributesResponse.topic,
      })),
      ...gatewayPublishes(input.packets, GATEWAY_API.rpc.topic).map((observed) => ({
        observed,
        topic: GATEWAY_API.rpc.topic,
      })),
    ],
    'the client sent no attribute request and no RPC reply',
  );

/** GW-CLI-04: an attribute request's id is not one an earlier request of the connection used. */
const requestIds: MqttDeviceCheck = (input) => {
  const judged = gatewayPublishes(input.packets, GATEWAY_API.attributesRequest.topic);
  const used = new Map<number, Set<unknown>>();
  const violations = judged.flatMap((observed): Violation<ObservedPacket>[] => {
    const id = body(observed)?.id;
    const ids = used.get(observed.connection) ?? new Set<unknown>();
    used.set(observed.connection, ids);
    const reused = ids.has(id);
    ids.add(id);
    return reused
      ? [
          {
            item: observed,
            reason: `attribute request id ${JSON.stringify(id)} was used by an earlier request`,
          },
        ]
      : [];
  });
  return optionalOutcome<ObservedPacket>(
    judged,
    violations,
    'the client sent no attribute request (v1/gateway/attributes/request)',
  );
};

/** The RPC requests the reference published on v1/gateway/rpc: { device, data: { id, method } }. */
function deliveredRpcs(input: Parameters<MqttDeviceCheck>[0]) {
  return delivered(input.packets).flatMap((observed) => {
    if (observed.packet.topic !== GATEWAY_API.rpc.topic) return [];
    const parsed = parseJson(payloadOf(observed.packet));
    const request = (parsed.ok ? parsed.value : undefined) as
      | { device?: unknown; data?: { id?: unknown; method?: unknown } }
      | undefined;
    const { device, data } = request ?? {};
    return typeof device === 'string' &&
      typeof data?.id === 'number' &&
      typeof data.method === 'string'
      ? [{ device, id: data.id, method: data.method, observed }]
      : [];
  });
}

/**
 * The reply answers the request: its id, and its device (a reply without a device member is judged
 * by its id alone: the missing member is GW-CLI-02's failure, the shape, not GW-RPC-03's; one
 * defect, one FAIL, issue 28).
 */
function isReplyTo(reply: Publish, request: ReturnType<typeof deliveredRpcs>[number]): boolean {
  const document = body(reply);
  return (
    document?.id === request.id &&
    (document.device === request.device || document.device === undefined) &&
    reply.connection === request.observed.connection &&
    request.observed.at <= reply.at
  );
}

/**
 * GW-RPC-03: a reply carries the device and id of a request delivered to its connection before it.
 */
const replyId: MqttDeviceCheck = (input) => {
  const requests = deliveredRpcs(input);
  const replies = gatewayPublishes(input.packets, GATEWAY_API.rpc.topic);
  const violations = replies
    .filter((reply) => !requests.some((request) => isReplyTo(reply, request)))
    .map((reply) => ({
      item: reply as ObservedPacket,
      reason: `a reply ${payloadOf(reply.packet).slice(0, 120)}, but the requests delivered were ${requests.map((request) => `${request.device} ${request.id}`).join(', ') || 'none'}`,
    }));
  return outcome<ObservedPacket>(replies, violations, 'the client published no RPC reply');
};

/**
 * GW-CLI-05: the reply to a delivered two-way RPC of the certification comes before its timeout.
 */
const replyInTime: MqttDeviceCheck = (input) => {
  const replies = gatewayPublishes(input.packets, GATEWAY_API.rpc.topic);
  const requests = answeredRpcs(deliveredRpcs(input), replies, isReplyTo);
  return repliedInTime(requests, input.rpcs, replies.length > 0);
};

/**
 * GW-RULE-03-CLAIM: a claim names only devices connected on its connection (and not disconnected
 * since).
 */
const claimConnected: MqttDeviceCheck = (input) => {
  const judged: ObservedPacket[] = [];
  const violations: Violation<ObservedPacket>[] = [];
  const connected = new Map<number, Set<string>>();
  for (const observed of gatewayPublishes(input.packets)) {
    const own = connected.get(observed.connection) ?? new Set<string>();
    connected.set(observed.connection, own);
    const devices = devicesOf(observed);
    if (observed.packet.topic === GATEWAY_API.connect.topic)
      for (const device of devices) own.add(device);
    if (observed.packet.topic === GATEWAY_API.disconnect.topic)
      for (const device of devices) own.delete(device);
    if (observed.packet.topic !== GATEWAY_API.claim.topic) continue;
    judged.push(observed);
    const strangers = devices.filter((device) => !own.has(device));
    if (strangers.length)
      violations.push({
        item: observed,
        reason: `a claim for ${strangers.join(', ')}, not connected through the gateway`,
      });
  }
  // a gateway need not claim (the certification never asks it to): the SHOULD binds only a claim
  // sent (issue 28)
  return optionalOutcome(judged, violations, 'the client sent no claim (v1/gateway/claim)');
};

/**
 * GW-RULE-04-WAIT: after a QoS 1 connect, nothing is published for that device before the connect's
 * PUBACK. An RPC reply is no such publish: it answers a request the platform sent, which it may do
 * before that PUBACK.
 */
const waitedForConnect: MqttDeviceCheck = (input) => {
  const judged: ObservedPacket[] = [];
  const violations: Violation<ObservedPacket>[] = [];
  const publishes = gatewayPublishes(input.packets);
  for (const connect of gatewayPublishes(input.packets, GATEWAY_API.connect.topic)) {
    if (connect.packet.qos !== 1) continue;
    const [device] = devicesOf(connect);
    if (device === undefined) continue;
    judged.push(connect);
    const acked = input.packets.find(
      (observed) =>
        observed.direction === 'out' &&
        observed.connection === connect.connection &&
        observed.packet.cmd === 'puback' &&
        observed.packet.messageId === connect.packet.messageId &&
        observed.at >= connect.at,
    );
    const early = publishes.find(
      (observed) =>
        observed !== connect &&
        observed.packet.topic !== GATEWAY_API.rpc.topic &&
        observed.connection === connect.connection &&
        observed.at >= connect.at &&
        (acked === undefined || input.packets.indexOf(observed) < input.packets.indexOf(acked)) &&
        devicesOf(observed).includes(device),
    );
    if (early)
      violations.push({
        item: early,
        reason: `PUBLISH ${early.packet.topic} for ${device} before the PUBACK of its connect`,
      });
  }
  return optionalOutcome(
    judged,
    violations,
    'the client sent no connect at QoS 1 (a connect at QoS 0 has no PUBACK to wait for)',
  );
};

/**
 * The gateway's connections the reference accepted (CONNACK success), each with the index of its
 * CONNECT.
 */
function acceptedConnections(
  packets: readonly ObservedPacket[],
): Array<{ connection: number; at: number; index: number }> {
  return packets.flatMap((observed, index) => {
    if (observed.direction !== 'in' || observed.packet.cmd !== 'connect') return [];
    const accepted = packets.some(
      (answer) =>
        answer.direction === 'out' &&
        answer.connection === observed.connection &&
        answer.packet.cmd === 'connack' &&
        ((answer.packet as { returnCode?: number }).returnCode ?? 0) === 0 &&
        ((answer.packet as { reasonCode?: number }).reasonCode ?? 0) === 0,
    );
    return accepted ? [{ connection: observed.connection, at: observed.at, index }] : [];
  });
}

/**
 * GW-CLI-07: the gateway keeps one MQTT connection for all its devices
 * (docs/reference/interfaces.md "What the service does": a gateway keeps one MQTT connection and
 * proxies data for many devices): no connection is opened while another accepted one is still open,
 * neither ended by the gateway's DISCONNECT nor closed. The platform takes a device's older session
 * over when a new one connects (ThingsBoard: one concurrent session per device), so the older one
 * closes only after the new CONNECT. A reconnect after the old connection closed is one connection
 * at a time, and a refused CONNECT opens nothing. Judged from the order of packets and closes, not
 * from timing.
 */
const oneConnection: MqttDeviceCheck = (input) => {
  const accepted = acceptedConnections(input.packets);
  const judged: ObservedPacket[] = accepted.map((entry) => input.packets[entry.index]!);
  const violations: Violation<ObservedPacket>[] = [];
  /**
   * Where a connection ended: its DISCONNECT (the client ended it) or its socket's close, whichever
   * came first.
   */
  const endOf = (connection: number): number => {
    const disconnect = input.packets.findIndex(
      (observed) =>
        observed.direction === 'in' &&
        observed.connection === connection &&
        observed.packet.cmd === 'disconnect',
    );
    const closed = input.closed?.get(connection);
    // without close times, a connection is known in use as long as it sends packets
    const lastUsed = input.packets.findLastIndex(
      (observed) => observed.direction === 'in' && observed.connection === connection,
    );
    const candidates = [
      disconnect < 0 ? Number.POSITIVE_INFINITY : disconnect,
      closed ?? (input.closed ? Number.POSITIVE_INFINITY : lastUsed + 1),
    ];
    return Math.min(...candidates);
  };
  for (const later of accepted) {
    const open = accepted.find(
      (earlier) => earlier.index < later.index && endOf(earlier.connection) > later.index,
    );
    if (open)
      violations.push({
        item: input.packets[later.index]!,
        reason: `connection ${later.connection} was opened while connection ${open.connection} was still open (neither a DISCONNECT nor a close before this CONNECT; the platform takes the older session over): a gateway keeps one MQTT connection for all its devices`,
      });
  }
  return outcome(judged, violations, 'the gateway never connected');
};

const UPDATES = GATEWAY_API.attributes.topic;

/**
 * GW-RULE-01-UPD: a gateway that takes shared-attribute updates (subscribes to
 * v1/gateway/attributes) subscribes before it connects a device on that connection: from the
 * connect on, updates for the device are routed through the gateway (docs/reference/interfaces.md
 * "States and transitions"), and rule 1 lets only a subscriber receive them. Provoked: the
 * certification sets a shared attribute of the device as soon as its connect is acknowledged, and
 * the reference holds that PUBACK until the gateway has been quiet for a second, so a subscription
 * that comes later comes after the update. The verdict is read from the order of the gateway's own
 * packets on the connection, the same in every run. A gateway that never subscribes to the updates
 * takes none: NOT APPLICABLE.
 */
const subscribedBeforeConnect: MqttDeviceCheck = (input) => {
  const takes = sent(input.packets, 'subscribe').some((observed) =>
    observed.packet.subscriptions.some((subscription) => topicMatches(subscription.topic, UPDATES)),
  );
  if (!takes)
    return {
      exercised: false,
      notApplicable: true,
      reason:
        'the gateway never subscribed to v1/gateway/attributes: it takes no shared-attribute updates',
    };
  const judged = gatewayPublishes(input.packets, GATEWAY_API.connect.topic);
  const violations = judged.flatMap((connect) =>
    filtersBefore(input.packets, connect.connection, connect.at).some((filter) =>
      topicMatches(filter, UPDATES),
    )
      ? []
      : [
          {
            item: connect as ObservedPacket,
            reason: `${GATEWAY_API.connect.topic} for ${devicesOf(connect).join(', ') || '(no device)'} before any subscription to ${GATEWAY_API.attributes.topic} on connection ${connect.connection}: an update for the device sent from the connect on is not received`,
          },
        ],
  );
  return outcome<ObservedPacket>(judged, violations, 'the gateway connected no device');
};

/**
 * GW-RULE-03-RPC: the device is connected through the gateway when RPC commands for it are expected
 * (docs/reference/interfaces.md rule 3: it must be, to receive them): when the certification sends
 * its RPC for the device, the device's last connect or disconnect on the gateway's connection in
 * use (the accepted one whose packet came last before the RPC) is a connect. Provoked: the
 * certification sends the RPC only once the gateway has been quiet for a second after the attribute
 * update, so a gateway that disconnects the device, or reconnects without connecting it again, has
 * done so by then in every run.
 */
const connectedForRpc: MqttDeviceCheck = (input) => {
  const judged: ObservedPacket[] = [];
  const violations: Violation<ObservedPacket>[] = [];
  const accepted = acceptedConnections(input.packets);
  for (const rpc of input.rpcs) {
    if (rpc.device === undefined) continue;
    // the connection in use: the accepted one whose packet came last before the RPC (a reconnect's
    // new one)
    const lastIn = input.packets.findLast(
      (observed) =>
        observed.direction === 'in' &&
        observed.at <= rpc.sentAt &&
        accepted.some((entry) => entry.connection === observed.connection),
    );
    const current = accepted.find((entry) => entry.connection === lastIn?.connection);
    if (!current) continue;
    const changes = gatewayPublishes(input.packets).filter(
      (observed) =>
        [GATEWAY_API.connect.topic, GATEWAY_API.disconnect.topic].some(
          (topic) => topic === observed.packet.topic,
        ) &&
        observed.at <= rpc.sentAt &&
        devicesOf(observed).includes(rpc.device!),
    );
    const own = changes.filter((observed) => observed.connection === current.connection);
    const last = own.at(-1);
    judged.push(last ?? input.packets[current.index]!);
    if (last?.packet.topic === GATEWAY_API.connect.topic) continue;
    violations.push({
      item: last ?? input.packets[current.index]!,
      reason: last
        ? `the RPC ${rpc.method} for ${rpc.device} was sent ${rpc.sentAt - last.at} ms after the gateway disconnected it (v1/gateway/disconnect): a device must be connected through the gateway to receive RPC commands`
        : `the RPC ${rpc.method} for ${rpc.device} was sent while it was not connected on the gateway's connection ${current.connection}${changes.length ? ` (it was connected on connection ${changes.at(-1)!.connection} only)` : ''}: a device must be connected through the gateway to receive RPC commands`,
    });
  }
  return outcome(
    judged,
    violations,
    'no RPC of the certification was sent for a device behind the gateway',
  );
};

/**
 * The filter of the server-side RPC requests to a device: the one ThingsBoard grants for them
 * (docs/reference/platform-facts.md §4.3; the reference refuses any other, so a wider filter such
 * as # never brings an RPC).
 */
const OWN_RPC_REQUESTS = deviceTopicFilter('rpcRequest');

/** The gateway subscribed to the server-side RPC requests of its own device. */
export function takesOwnRpcs(packets: readonly ObservedPacket[]): boolean {
  return sent(packets, 'subscribe').some((observed) =>
    observed.packet.subscriptions.some((subscription) => subscription.topic === OWN_RPC_REQUESTS),
  );
}

/**
 * An MQTT device check applied to the gateway's own traffic: when its subject never occurred, NOT
 * APPLICABLE because the gateway `notTakenUp`, unless `tookUp` says the gateway did take the
 * subject up (then NOT TESTED, as for a device).
 */
function asDevice(
  id: keyof typeof MQTT_DEVICE_CHECK_OF,
  notTakenUp: string,
  tookUp: (input: Parameters<MqttDeviceCheck>[0]) => boolean = () => false,
): [string, MqttDeviceCheck] {
  const check: MqttDeviceCheck = MQTT_DEVICE_CHECK_OF[id];
  return [
    id,
    (input) => {
      const result = check(input);
      return result.exercised || tookUp(input)
        ? result
        : { exercised: false, notApplicable: true, reason: `the gateway ${notTakenUp}` };
    },
  ];
}

const withOwnRpcs = (input: Parameters<MqttDeviceCheck>[0]) => takesOwnRpcs(input.packets);

/**
 * The device requirements a gateway certification judges from the gateway's own v1/devices/me/...
 * traffic.
 */
const AS_DEVICE: ReadonlyArray<[string, MqttDeviceCheck]> = [
  [
    'MQTT-DEV-02',
    publishedOnTopicsOf(
      [
        ...DEVICE_API_TOPICS,
        // the uplink gateway topics are plain words and slashes: no character to escape
        ...[...UPLINK.keys()].map((topic) => new RegExp(`^${topic}$`)),
      ],
      'the MQTT device API or the MQTT gateway API',
    ),
  ],
  asDevice(
    'MQTT-DEV-03',
    `published no telemetry and no attributes of its own (${DEVICE_MQTT_API.telemetry.topic}, ${DEVICE_MQTT_API.attributes.topic})`,
  ),
  asDevice(
    'MQTT-DEV-04',
    `published no telemetry of its own in the timestamped form (${DEVICE_MQTT_API.telemetry.topic})`,
  ),
  asDevice(
    'MQTT-DEV-05',
    `sent no attribute request and no client-side RPC of its own (${DEVICE_MQTT_API.attributesRequest.topic}, ${DEVICE_MQTT_API.rpcRequest.topic})`,
  ),
  asDevice(
    'MQTT-DEV-06',
    `sent no attribute request of its own (${DEVICE_MQTT_API.attributesRequest.topic})`,
  ),
  asDevice(
    'MQTT-DEV-07',
    `never subscribed to the server-side RPCs of its own device (${OWN_RPC_REQUESTS}), so none was sent to it`,
    withOwnRpcs,
  ),
  asDevice(
    'MQTT-DEV-08',
    `never subscribed to the server-side RPCs of its own device (${OWN_RPC_REQUESTS}), so none was sent to it`,
    withOwnRpcs,
  ),
  asDevice('MQTT-DEV-10', 'never claimed itself (v1/devices/me/claim)'),
  asDevice(
    'MQTT-DEV-12',
    'never subscribed to the server-side RPCs of its own device (v1/devices/me/rpc/request/+), so none was sent to it',
    withOwnRpcs,
  ),
  asDevice('MQTT-DEV-13', 'sent no client-side RPC of its own (v1/devices/me/rpc/request/{id})'),
];

/**
 * The checks by requirement id in a mode: the gateway's own requirements, then the device ones of
 * its own traffic.
 */
export function gatewayChecks(mode: CertifyMode): ReadonlyMap<string, MqttDeviceCheck> {
  return new Map(
    [...GATEWAY_CHECKS].map(([id, check]) => [
      id,
      id === 'GW-CLI-02' ? payloadShapes(mode) : check,
    ]),
  );
}

/**
 * The checks by requirement id (mode spec): the gateway's own requirements, then the device ones of
 * its own traffic.
 */
export const GATEWAY_CHECKS: ReadonlyMap<string, MqttDeviceCheck> = new Map([
  ['GW-CLI-01', tokenAsUserName],
  ['GW-CLI-02', payloadShapes('spec')],
  ['GW-CLI-03', milliseconds],
  ['GW-RULE-01', subscribedFirst],
  ['GW-CLI-04', requestIds],
  ['GW-RPC-03', replyId],
  ['GW-CLI-05', replyInTime],
  ['GW-RULE-03-CLAIM', claimConnected],
  ['GW-RULE-04-WAIT', waitedForConnect],
  ['GW-CLI-06', qualityOfService],
  ['GW-CLI-07', oneConnection],
  ['GW-RULE-01-UPD', subscribedBeforeConnect],
  ['GW-RULE-03-RPC', connectedForRpc],
  ...AS_DEVICE,
]);
