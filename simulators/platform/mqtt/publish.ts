/**
 * PUBLISH from a client: routed by topic to the device topics or the gateway topics (a provisioning
 * session: only /provision/request), then acknowledged. QoS 1 gets one PUBACK per message, after
 * the operation. QoS 2: the CONNACK announced a maximum QoS of 1, so an MQTT 5 client breaks the
 * protocol and gets DISCONNECT 0x9B (MQTT 5 §3.3.1.2); an MQTT 3.1.1 publish is processed once and
 * answered PUBREC, its PUBREL gets PUBCOMP. In quirks mode (qos2AnsweredWithPuback) ThingsBoard's
 * answer: processed and acknowledged with PUBACK. A topic name with a wildcard is a malformed
 * packet (MQTT §4.7.1; ThingsBoard's decoder fails): the session ends. MQTT 5: the PUBACK carries
 * the reason code of a failure (docs/reference/interfaces.md MQTT rule 4) with a reason string.
 * MQTT 3.1.1: a PUBACK has no code, so a malformed payload or a transport error closes the
 * connection instead, as ThingsBoard does (docs/reference/platform-facts.md §4.4, §4.6); other
 * failures get a plain PUBACK. What routing and acknowledging decide is named steps
 * (PUBLISH_STEPS); the planted faults (faults/catalogue/mqtt-gateway-api.ts) are wrappers of those
 * steps (PUBLISH_FAULTS, faults/steps.ts).
 */
import type { IPublishPacket, IPubrelPacket } from 'mqtt-packet';
import { type StepFaults, withFaults } from '../../../faults/steps';
import {
  DEVICE_MQTT_API,
  DEVICE_TOPIC_PREFIX,
  GATEWAY_API,
  GATEWAY_TOPIC_PREFIX,
  type GatewayUplinkRole,
  gatewayTopicRole,
} from '../../../schemas';
import { BadRequestError } from '../core/errors';
import { handleDevicePublish } from './device-topics';
import { handleOtaRequest } from './firmware-topics';
import { handleGatewayPublish } from './gateway-topics';
import { handleProvisionPublish } from './provision-session';
import { PublishFailure, PublishUnanswered, REASON } from './reason-codes';
import type { MqttSession } from './session';

export function handlePublish(session: MqttSession, packet: IPublishPacket): void {
  if (!session.device && !session.provisionOnly) return session.end(REASON.PROTOCOL_ERROR);
  if (/[+#]/.test(packet.topic)) return session.end(REASON.MALFORMED_PACKET);
  const exactlyOnce = packet.qos === 2 && !session.context.quirks.qos2AnsweredWithPuback;
  if (exactlyOnce && session.v5) return session.end(REASON.QOS_NOT_SUPPORTED);
  if (exactlyOnce && session.awaitingRelease.has(packet.messageId!)) {
    // a resent QoS 2 publish whose PUBREL has not come yet: already processed once
    session.send({ cmd: 'pubrec', messageId: packet.messageId });
    return;
  }
  let failure: PublishFailure | undefined;
  try {
    route(
      session,
      packet.topic,
      Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
    );
  } catch (error) {
    if (error instanceof PublishUnanswered) return;
    failure = asFailure(session, error, packet.topic);
  }
  if (failure && session.v5)
    failure = withFaults(PUBLISH_STEPS, PUBLISH_FAULTS).v5Failure(packet.topic, failure);
  if (
    failure?.reasonCode === REASON.QUOTA_EXCEEDED &&
    packet.topic === GATEWAY_API.connect.topic &&
    session.context.quirks.gatewayConnectOverLimitCloses
  )
    return session.end(); // no PUBACK: ThingsBoard's handler throws out of the session (quirks.ts)
  const hold =
    packet.topic === GATEWAY_API.connect.topic ? session.context.gatewayConnectAckDelayMs : 0;
  if (hold > 0) session.holdUntilQuiet(hold, () => acknowledge(session, packet, failure));
  else acknowledge(session, packet, failure);
}

/** PUBREL of an MQTT 3.1.1 QoS 2 publish → PUBCOMP. */
export function handlePubrel(session: MqttSession, packet: IPubrelPacket): void {
  session.awaitingRelease.delete(packet.messageId!);
  session.send({ cmd: 'pubcomp', messageId: packet.messageId });
}

function route(session: MqttSession, topic: string, payload: Buffer): void {
  if (session.provisionOnly) return handleProvisionPublish(session, topic, payload);
  const steps = withFaults(PUBLISH_STEPS, PUBLISH_FAULTS);
  topic = steps.topic(topic);
  if (topic.startsWith(GATEWAY_TOPIC_PREFIX)) {
    // only a gateway device may use the gateway topics (docs/reference/platform-facts.md §4.4);
    // ThingsBoard stays silent, the reference says why
    if (!session.gateway)
      throw PublishFailure.notAuthorized(`${session.device?.name} is not a gateway device`);
    handleGatewayPublish(session, session.gateway, topic, payload);
    return;
  }
  if (topic.startsWith(DEVICE_TOPIC_PREFIX)) return steps.device(session, topic, payload);
  if (handleOtaRequest(session, topic, payload.toString('utf8'))) return;
  throw PublishFailure.topicName(topic);
}

function asFailure(session: MqttSession, error: unknown, topic: string): PublishFailure {
  if (error instanceof PublishFailure) return error;
  if (error instanceof BadRequestError) return PublishFailure.payloadFormat(error.message);
  session.context.logger.error({ err: error, topic }, 'MQTT publish failed');
  return PublishFailure.unspecified((error as Error)?.message ?? 'internal error');
}

function acknowledge(
  session: MqttSession,
  packet: IPublishPacket,
  failure: PublishFailure | undefined,
): void {
  // MQTT 3.1.1 QoS 2 (v5 ended above): PUBREC carries no code, like a 3.1.1 PUBACK
  const exactlyOnce = packet.qos === 2 && !session.context.quirks.qos2AnsweredWithPuback;
  const plainAck = () =>
    exactlyOnce
      ? session.send({ cmd: 'pubrec', messageId: packet.messageId })
      : session.send({ cmd: 'puback', messageId: packet.messageId });
  if (exactlyOnce && !(failure?.closeOnV3 ?? false)) session.awaitingRelease.add(packet.messageId!);
  if (!failure) {
    if (packet.qos > 0)
      session.v5
        ? session.send({ cmd: 'puback', messageId: packet.messageId, reasonCode: REASON.SUCCESS })
        : plainAck();
    return;
  }
  const steps = withFaults(PUBLISH_STEPS, PUBLISH_FAULTS);
  if (steps.answeredAsV3(session, packet.topic)) {
    if (failure.closeOnV3) {
      if (failure.pubackBeforeCloseOnV3 && packet.qos > 0) plainAck();
      return session.end();
    }
    if (packet.qos > 0) plainAck();
    return;
  }
  steps.failV5(session, packet, failure);
}

/** The named steps of routing and acknowledging a publish. */
const PUBLISH_STEPS = {
  /** The topic as routed: the one published. */
  topic: (topic: string): string => topic,
  /** A publish on a device topic (a gateway's own data too: the gateway is also a device). */
  device: (session: MqttSession, topic: string, payload: Buffer): void =>
    handleDevicePublish(session, topic, payload),
  /** The failure an MQTT 5 publish is answered with: its own. */
  v5Failure: (_topic: string, failure: PublishFailure): PublishFailure | undefined => failure,
  /**
   * Whether a failure is answered the MQTT 3.1.1 way (no reason code): on an MQTT 3.1.1 session.
   */
  answeredAsV3: (session: MqttSession, _topic: string): boolean => !session.v5,
  /**
   * The MQTT 5 answer to a failure: the PUBACK with its code and reason, then DISCONNECT if it ends
   * the session.
   */
  failV5: (session: MqttSession, packet: IPublishPacket, failure: PublishFailure): void => {
    if (packet.qos > 0) {
      session.send({
        cmd: 'puback',
        messageId: packet.messageId,
        reasonCode: failure.reasonCode,
        properties: { reasonString: failure.message.slice(0, 200) },
      });
    }
    if (failure.disconnectV5 !== undefined) session.end(failure.disconnectV5);
  },
};

type Publish = typeof PUBLISH_STEPS;

/** GW-VER-01:prefix-v2's gateway topics: version 2 of the table's. */
const GATEWAY_PREFIX_V2 = GATEWAY_TOPIC_PREFIX.replace(/^v1\//, 'v2/');

const isGatewayTopic = (topic: string) => topic.startsWith(GATEWAY_TOPIC_PREFIX);

/** A gateway's own publish on the device topic `dropped` is ignored. */
const droppedFromGateway =
  (dropped: string) =>
  (step: Publish['device']): Publish['device'] =>
  (session, topic, payload) => {
    if (!(session.gateway && topic === dropped)) step(session, topic, payload);
  };

/** A failure of the gateway topic of `role` (and `also`) acknowledged with success on MQTT 5. */
const hiddenFailure =
  (role: GatewayUplinkRole, also: (failure: PublishFailure) => boolean = () => true) =>
  (step: Publish['v5Failure']): Publish['v5Failure'] =>
  (topic, failure) =>
    gatewayTopicRole(topic) === role && failure && also(failure) ? undefined : step(topic, failure);

/** The planted faults of routing and acknowledging, wrappers of its steps. */
const PUBLISH_FAULTS: StepFaults<Publish> = {
  'GW-VER-01:prefix-v2': {
    topic: (step) => (topic) => {
      if (isGatewayTopic(topic)) throw PublishFailure.topicName(topic);
      return step(
        topic.startsWith(GATEWAY_PREFIX_V2)
          ? GATEWAY_TOPIC_PREFIX + topic.slice(GATEWAY_PREFIX_V2.length)
          : topic,
      );
    },
  },
  'GW-GEN-02:own-telemetry-dropped': {
    device: droppedFromGateway(DEVICE_MQTT_API.telemetry.topic),
  },
  'GW-GEN-02:own-attributes-dropped': {
    device: droppedFromGateway(DEVICE_MQTT_API.attributes.topic),
  },
  'GW-ERR-01:quota-success': {
    v5Failure: hiddenFailure('connect', (failure) => failure.reasonCode === REASON.QUOTA_EXCEEDED),
  },
  'GW-ERR-01:missing-device-success': {
    v5Failure: hiddenFailure('connect', (failure) => failure.reasonCode !== REASON.QUOTA_EXCEEDED),
  },
  'GW-ERR-02:disconnect-failure-success': { v5Failure: hiddenFailure('disconnect') },
  'GW-ERR-03:attributes-failure-success': { v5Failure: hiddenFailure('attributes') },
  'GW-ERR-04:telemetry-failure-success': { v5Failure: hiddenFailure('telemetry') },
  'GW-VER-02:v5-acked-as-v3': {
    answeredAsV3: (step) => (session, topic) => isGatewayTopic(topic) || step(session, topic),
  },
  'GW-RULE-04:v5-failure-unacknowledged': {
    failV5: (step) => (session, packet, failure) => {
      if (!isGatewayTopic(packet.topic)) step(session, packet, failure);
    },
  },
};
