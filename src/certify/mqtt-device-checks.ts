/**
 * The MQTT device's own obligations (catalogue role `device`, MQTT-DEV-01..09), judged from the
 * packets the client under test sent to the instrumented reference and the ones the reference sent
 * it (mqtt-packets.ts). The topics are ThingsBoard 4.3's (docs/reference/platform-facts.md §4.3);
 * docs/reference/interfaces.md names the MQTT device API without showing them.
 *
 * As for HTTP, a requirement whose subject never occurred (no attribute request, no RPC reply) is
 * not exercised: NOT TESTED with the reason, never PASS.
 */
import {
  claimSchema,
  clientAttributesSchema,
  DEVICE_MQTT_API,
  deviceTopic,
  otaTopicPattern,
  PROVISION_MQTT_API,
  telemetrySchema,
} from '../../schemas';
import {
  type ClientCheck,
  type Violation,
  type SentRpc,
  optionalOutcome,
  outcome,
  parseJson,
  repliedInTime,
  timestamps,
} from './client-checks';
import {
  type Publish,
  answeredRpcs,
  millisecondsOutcome,
  schemaViolations,
  subscribedOutcome,
} from './mqtt-checks';
import {
  type ObservedPacket,
  delivered,
  isProvisioningConnect,
  payloadOf,
  sent,
} from './mqtt-packets';

export interface MqttCheckInput {
  token: string;
  /** Every packet of the client's connections, both directions, in order. */
  packets: readonly ObservedPacket[];
  rpcs: readonly SentRpc[];
  /**
   * The MQTT protocol level the client was asked to speak (4 = 3.1.1, 5 = 5): every CONNECT must
   * carry it, or the certificate would name a version the client never spoke. Absent: not judged.
   */
  protocolLevel?: 4 | 5;
  /**
   * When each connection's socket closed, as the number of packets observed by then (an index into
   * `packets`), so that a close is ordered with the packets. Absent: not known (the checks then
   * read the packets alone).
   */
  closed?: ReadonlyMap<number, number>;
}

/** The name of an MQTT protocol level (CONNECT protocol level byte). */
export function mqttVersionName(level: number): string {
  return level === 5
    ? 'MQTT 5'
    : level === 4
      ? 'MQTT 3.1.1'
      : level === 3
        ? 'MQTT 3.1'
        : `level ${level}`;
}

export type MqttDeviceCheck = ClientCheck<MqttCheckInput, ObservedPacket>;

const TELEMETRY = DEVICE_MQTT_API.telemetry.topic;
const ATTRIBUTES = DEVICE_MQTT_API.attributes.topic;
const ATTRIBUTE_REQUEST = /^v1\/devices\/me\/attributes\/request\/(.+)$/;
const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(.+)$/;
const RPC_RESPONSE = /^v1\/devices\/me\/rpc\/response\/(.+)$/;
/**
 * The topics a device publishes on (docs/reference/platform-facts.md §4.3, §6). The id of an
 * attribute request and of an RPC reply may be anything one level deep here: whether it is an
 * integer (MQTT-DEV-06) or a delivered request's (MQTT-DEV-07) is judged there, so a non-integer id
 * fails that requirement alone (issue 28). A client-side RPC's id has no requirement of its own: it
 * stays an integer here.
 */
export const DEVICE_API_TOPICS: readonly RegExp[] = [
  /^v1\/devices\/me\/(telemetry|attributes|claim)$/,
  /^v1\/devices\/me\/(attributes\/request|rpc\/response)\/[^/]+$/,
  /^v1\/devices\/me\/rpc\/request\/\d+$/,
  otaTopicPattern('chunkRequest', '[^/]+'),
  /^v2\/(t|a)(\/[jp])?$/,
  /^v2\/(a\/req|r\/req|r\/res)\/\d+(\/[jp])?$/,
  new RegExp(`^${PROVISION_MQTT_API.request.topic}$`),
];

function published(input: MqttCheckInput, topic: string | RegExp): Publish[] {
  return sent(input.packets, 'publish').filter((observed) =>
    typeof topic === 'string' ? observed.packet.topic === topic : topic.test(observed.packet.topic),
  );
}

/**
 * The access tokens provisioning handed the client before a moment (credentialsValue on
 * /provision/response).
 */
function provisionedTokens(packets: readonly ObservedPacket[], before: number): string[] {
  return delivered(packets).flatMap((observed) => {
    if (observed.packet.topic !== PROVISION_MQTT_API.response.topic || observed.at > before)
      return [];
    const answer = parseJson(payloadOf(observed.packet));
    const value =
      answer.ok && typeof answer.value === 'object' && answer.value !== null
        ? (answer.value as { credentialsValue?: unknown }).credentialsValue
        : undefined;
    return typeof value === 'string' ? [value] : [];
  });
}

/**
 * MQTT-DEV-01: the access token is the user name of every CONNECT: the certification's token, or
 * one provisioning handed the client before (a device that provisions itself, then connects as what
 * it became). Provisioning's own connections (user name or client id `provision`,
 * docs/reference/platform-facts.md §6) carry no token. Every CONNECT, provisioning's too, also
 * carries the protocol level the client was asked to speak (issue 28: a client asked for MQTT 3.1.1
 * that speaks 5 got a certificate titled MQTT 3.1.1). It is judged here, under the connect
 * requirement, rather than as a requirement of its own: the specification lets a client speak
 * either version, so the level is no obligation of the interface, only of this certification's
 * claim (docs/reference/certification.md). GW-CLI-01 is this same check for a gateway.
 */
export const tokenAsUserName: MqttDeviceCheck = (input) => {
  const judged = sent(input.packets, 'connect');
  const violations = judged.flatMap((observed) => {
    const { username, protocolVersion } = observed.packet;
    const reasons: string[] = [];
    if (input.protocolLevel !== undefined && protocolVersion !== input.protocolLevel)
      reasons.push(
        `CONNECT protocol level ${protocolVersion} (${mqttVersionName(protocolVersion ?? 0)}), but the client was asked to speak ${mqttVersionName(input.protocolLevel)} (level ${input.protocolLevel})`,
      );
    if (
      !isProvisioningConnect(observed.packet) &&
      username !== input.token &&
      !provisionedTokens(input.packets, observed.at).includes(username ?? '')
    )
      reasons.push(
        `CONNECT with user name ${username === undefined ? '(none)' : JSON.stringify(username.replace(input.token, '{token}'))}, not the device's access token`,
      );
    return reasons.length ? [{ item: observed as ObservedPacket, reason: reasons.join('; ') }] : [];
  });
  return outcome<ObservedPacket>(judged, violations, 'the client sent no CONNECT');
};

/**
 * MQTT-DEV-02: every publish goes to one of the topics given, `api` naming them in a violation's
 * reason: the device API's for a device; for a gateway, which is also a device, the gateway API's
 * too (gateway-checks.ts).
 */
export function publishedOnTopicsOf(topics: readonly RegExp[], api: string): MqttDeviceCheck {
  return (input) => {
    const judged = sent(input.packets, 'publish');
    const violations = judged
      .filter((observed) => !topics.some((topic) => topic.test(observed.packet.topic)))
      .map((observed) => ({
        item: observed as ObservedPacket,
        reason: `PUBLISH on ${observed.packet.topic}: not a topic of ${api}`,
      }));
    return outcome<ObservedPacket>(judged, violations, 'the client published nothing');
  };
}

/**
 * MQTT-DEV-03: telemetry in one of the three forms, attributes an object of client-side attributes.
 */
const payloadShapes: MqttDeviceCheck = (input) => {
  const judged = sent(input.packets, 'publish').filter(
    ({ packet }) => packet.topic === TELEMETRY || packet.topic === ATTRIBUTES,
  );
  const violations = judged.flatMap((observed) =>
    schemaViolations(
      observed,
      observed.packet.topic === TELEMETRY ? telemetrySchema : clientAttributesSchema,
    ),
  );
  return outcome<ObservedPacket>(
    judged,
    violations,
    'the client published no telemetry and no attributes',
  );
};

/** MQTT-DEV-04: a timestamped form's ts is unix milliseconds. */
const milliseconds: MqttDeviceCheck = (input) =>
  asOptional(
    millisecondsOutcome(
      published(input, TELEMETRY),
      timestamps,
      'the client sent no telemetry in the timestamped form (it may let the server assign the ts)',
    ),
  );

/**
 * An outcome whose subject the client may leave untouched: not exercised is NOT APPLICABLE
 * (client-checks.ts optionalOutcome).
 */
function asOptional(result: ReturnType<MqttDeviceCheck>): ReturnType<MqttDeviceCheck> {
  return result.exercised ? result : { ...result, notApplicable: true };
}

/** MQTT-DEV-05: a request that expects an answer follows a subscription to the answer's topic. */
const subscribedFirst: MqttDeviceCheck = (input) =>
  asOptional(
    subscribedOutcome(
      input.packets,
      [
        ...published(input, ATTRIBUTE_REQUEST).map((observed) => ({
          observed,
          topic: observed.packet.topic.replace('/attributes/request/', '/attributes/response/'),
        })),
        ...published(input, RPC_REQUEST).map((observed) => ({
          observed,
          topic: observed.packet.topic.replace('/rpc/request/', '/rpc/response/'),
        })),
      ],
      'the client sent no attribute request and no client-side RPC',
    ),
  );

/**
 * MQTT-DEV-06: attribute request ids are integers, not reused on the connection; the payload's key
 * lists strings.
 */
const attributeRequests: MqttDeviceCheck = (input) => {
  const judged = published(input, ATTRIBUTE_REQUEST);
  const used = new Map<number, Set<string>>();
  const violations = judged.flatMap((observed): Violation<ObservedPacket>[] => {
    const id = ATTRIBUTE_REQUEST.exec(observed.packet.topic)?.[1] ?? '';
    const ids = used.get(observed.connection) ?? new Set<string>();
    used.set(observed.connection, ids);
    const reasons: string[] = [];
    if (!/^\d+$/.test(id)) reasons.push(`the id ${JSON.stringify(id)} is not an integer`);
    else if (ids.has(id))
      reasons.push(`the id ${id} was used by an earlier request of the connection`);
    ids.add(id);
    const body = parseJson(payloadOf(observed.packet));
    if (
      !body.ok ||
      typeof body.value !== 'object' ||
      body.value === null ||
      Array.isArray(body.value)
    )
      reasons.push('the payload is not a JSON object');
    else
      for (const key of ['clientKeys', 'sharedKeys'] as const) {
        const keys = (body.value as Record<string, unknown>)[key];
        if (keys !== undefined && typeof keys !== 'string')
          reasons.push(`${key} is ${JSON.stringify(keys)}, not a comma-separated string`);
      }
    return reasons.length
      ? [{ item: observed, reason: `attribute request: ${reasons.join('; ')}` }]
      : [];
  });
  return optionalOutcome<ObservedPacket>(
    judged,
    violations,
    'the client sent no attribute request (v1/devices/me/attributes/request/{id})',
  );
};

/** The server-side RPC requests the platform delivered: its publishes on rpc/request/{id}. */
function deliveredRpcs(input: MqttCheckInput) {
  return delivered(input.packets).flatMap((observed) => {
    const id = RPC_REQUEST.exec(observed.packet.topic)?.[1];
    const body = parseJson(payloadOf(observed.packet));
    const method =
      body.ok && typeof body.value === 'object' && body.value !== null
        ? (body.value as { method?: unknown }).method
        : undefined;
    return id !== undefined && typeof method === 'string' ? [{ id, method, observed }] : [];
  });
}

/**
 * MQTT-DEV-07: a reply carries the id of a request delivered to the device before it. On whichever
 * of the device's connections: ThingsBoard matches a reply by the request id alone, whatever
 * session sends it (DeviceActorMessageProcessor.processRpcResponses,
 * application/.../actors/device/DeviceActorMessageProcessor.java:646), so a reply from a second
 * connection answers its request; that the device opened a second connection is another
 * requirement's matter, not this one's (issue 28: it failed here as "a reply on …/response/1, but
 * the requests delivered were 1").
 */
const replyId: MqttDeviceCheck = (input) => {
  const requests = deliveredRpcs(input);
  const replies = published(input, RPC_RESPONSE);
  const violations = replies
    .filter((reply) => {
      const id = RPC_RESPONSE.exec(reply.packet.topic)?.[1];
      return !requests.some((request) => request.id === id && request.observed.at <= reply.at);
    })
    .map((reply) => ({
      item: reply as ObservedPacket,
      reason: `a reply on ${reply.packet.topic}, but the requests delivered before it were ${
        requests
          .filter((request) => request.observed.at <= reply.at)
          .map((request) => request.id)
          .join(', ') || 'none'
      }`,
    }));
  return outcome<ObservedPacket>(replies, violations, 'the client published no RPC reply');
};

/**
 * MQTT-DEV-08: the reply to a delivered two-way RPC of the certification arrives before its
 * timeout. A request answered only under other ids is MQTT-DEV-07's failure; one never answered at
 * all is this one's.
 */
const replyInTime: MqttDeviceCheck = (input) => {
  const replies = published(input, RPC_RESPONSE);
  const requests = answeredRpcs(
    deliveredRpcs(input),
    replies,
    // ThingsBoard matches a reply by its request id, from any connection of the device
    (reply, request) =>
      reply.packet.topic === deviceTopic('rpcResponse', request.id) &&
      reply.at >= request.observed.at,
  );
  return repliedInTime(requests, input.rpcs, replies.length > 0);
};

/** MQTT-DEV-09: QoS 0 or 1 in every PUBLISH and every subscription request. */
export const qualityOfService: MqttDeviceCheck = (input) => {
  const judged: ObservedPacket[] = [
    ...sent(input.packets, 'publish'),
    ...sent(input.packets, 'subscribe'),
  ].sort((a, b) => a.at - b.at);
  const violations = judged.flatMap((observed): Violation<ObservedPacket>[] => {
    const { packet } = observed;
    if (packet.cmd === 'publish')
      return packet.qos > 1
        ? [{ item: observed, reason: `PUBLISH ${packet.topic} at QoS ${packet.qos}` }]
        : [];
    if (packet.cmd !== 'subscribe') return [];
    const wrong = packet.subscriptions.filter((subscription) => subscription.qos > 1);
    return wrong.length
      ? [
          {
            item: observed,
            reason: `SUBSCRIBE ${wrong.map((subscription) => `${subscription.topic} at QoS ${subscription.qos}`).join(', ')}`,
          },
        ]
      : [];
  });
  return outcome(judged, violations, 'the client sent no PUBLISH and no SUBSCRIBE');
};

/**
 * A publish's payload against a schema (mqtt-checks.ts schemaViolations), for the requirement's own
 * topic.
 */
function shapeOutcome(
  publishes: Publish[],
  schema: object,
  notTakenUp: string,
): ReturnType<MqttDeviceCheck> {
  return optionalOutcome<ObservedPacket>(
    publishes,
    publishes.flatMap((observed) => schemaViolations(observed, schema)),
    notTakenUp,
  );
}

/**
 * MQTT-DEV-10: a claim on v1/devices/me/claim is an object with an optional secretKey (string) and
 * durationMs (integer milliseconds): docs/reference/interfaces.md "Claim payload". NOT APPLICABLE
 * when the client never claims.
 */
const claimPayload: MqttDeviceCheck = (input) =>
  shapeOutcome(
    published(input, DEVICE_MQTT_API.claim.topic),
    claimSchema,
    'the client never claimed (v1/devices/me/claim)',
  );

/**
 * MQTT-DEV-11: a provisioning request on /provision/request carries deviceName, provisionDeviceKey
 * and provisionDeviceSecret (docs/reference/interfaces.md "Provisioning payload"; the topic,
 * docs/reference/platform-facts.md §6).
 */
const provisionPayload: MqttDeviceCheck = (input) =>
  shapeOutcome(
    published(input, PROVISION_MQTT_API.request.topic),
    PROVISION_MQTT_API.request.schema,
    `the client never provisioned itself (${PROVISION_MQTT_API.request.topic})`,
  );

/** The publishes whose payload is not JSON, as violations of what `what` names. */
function notJson(publishes: Publish[], what: string): Violation<ObservedPacket>[] {
  return publishes
    .filter((observed) => !parseJson(payloadOf(observed.packet)).ok)
    .map((observed) => ({
      item: observed as ObservedPacket,
      reason: `${what} on ${observed.packet.topic} is not a JSON document: ${JSON.stringify(payloadOf(observed.packet).slice(0, 80))}`,
    }));
}

/**
 * MQTT-DEV-12: an RPC reply's payload is a JSON document (docs/reference/interfaces.md "RPC
 * request": the reply is a JSON document, its content specific to the device). ThingsBoard relays
 * any payload (MQTT-DEV-RPC-02); the specification asks JSON, and so does every requester reading
 * the answer.
 */
const replyBody: MqttDeviceCheck = (input) => {
  const replies = published(input, RPC_RESPONSE);
  return outcome<ObservedPacket>(
    replies,
    notJson(replies, 'the RPC reply'),
    'the client published no RPC reply',
  );
};

/**
 * MQTT-DEV-13: a client-side RPC's payload is a JSON document (docs/reference/interfaces.md "RPC
 * request").
 */
const clientRpcBody: MqttDeviceCheck = (input) => {
  const requests = published(input, RPC_REQUEST);
  return optionalOutcome<ObservedPacket>(
    requests,
    notJson(requests, 'the client-side RPC'),
    'the client sent no client-side RPC (v1/devices/me/rpc/request/{id})',
  );
};

/**
 * The check of each requirement, in catalogue order (a gateway's certification takes some by name).
 */
export const MQTT_DEVICE_CHECK_OF = {
  'MQTT-DEV-01': tokenAsUserName,
  'MQTT-DEV-02': publishedOnTopicsOf(DEVICE_API_TOPICS, 'the MQTT device API'),
  'MQTT-DEV-03': payloadShapes,
  'MQTT-DEV-04': milliseconds,
  'MQTT-DEV-05': subscribedFirst,
  'MQTT-DEV-06': attributeRequests,
  'MQTT-DEV-07': replyId,
  'MQTT-DEV-08': replyInTime,
  'MQTT-DEV-09': qualityOfService,
  'MQTT-DEV-10': claimPayload,
  'MQTT-DEV-11': provisionPayload,
  'MQTT-DEV-12': replyBody,
  'MQTT-DEV-13': clientRpcBody,
} as const satisfies Record<string, MqttDeviceCheck>;

/** The checks by requirement id, in catalogue order. */
export const MQTT_DEVICE_CHECKS: ReadonlyMap<string, MqttDeviceCheck> = new Map(
  Object.entries(MQTT_DEVICE_CHECK_OF),
);
