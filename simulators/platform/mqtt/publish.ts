/**
 * PUBLISH from a client: routed by topic to the device topics or the gateway topics, then acknowledged.
 * QoS 1 (and 2, answered as 1: the platform's maximum QoS is 1) gets one PUBACK per message, after the operation.
 * MQTT 5: the PUBACK carries the reason code of a failure (interfaces.md MQTT rule 4) with a reason string.
 * MQTT 3.1.1: a PUBACK has no code, so a malformed payload or a transport error closes the connection instead, as
 * ThingsBoard does (platform-facts.md §4.4, §4.6); other failures get a plain PUBACK.
 */
import type { IPublishPacket } from 'mqtt-packet';
import { faultActive } from '../../../faults';
import { BadRequestError } from '../core/errors';
import { handleDevicePublish } from './device-topics';
import { handleGatewayPublish } from './gateway-topics';
import { PublishFailure, REASON } from './reason-codes';
import type { MqttSession } from './session';

const DEVICE_PREFIX = 'v1/devices/me/';
const GATEWAY_PREFIX = 'v1/gateway/';

export function handlePublish(session: MqttSession, packet: IPublishPacket): void {
  if (!session.device) return session.end(REASON.PROTOCOL_ERROR);
  let failure: PublishFailure | undefined;
  try {
    route(
      session,
      packet.topic,
      Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
    );
  } catch (error) {
    failure = asFailure(session, error, packet.topic);
  }
  if (failure && session.v5 && hiddenByFault(packet.topic, failure)) failure = undefined;
  acknowledge(session, packet, failure);
}

function route(session: MqttSession, topic: string, payload: Buffer): void {
  if (faultActive('GW-VER-01:prefix-v2')) {
    if (topic.startsWith(GATEWAY_PREFIX)) throw PublishFailure.topicName(topic);
    if (topic.startsWith('v2/gateway/')) topic = `v1/${topic.slice(3)}`;
  }
  if (topic.startsWith(GATEWAY_PREFIX)) {
    // only a gateway device may use the gateway topics (platform-facts.md §4.4); ThingsBoard stays silent, the
    // reference says why
    if (!session.gateway)
      throw PublishFailure.notAuthorized(`${session.device?.name} is not a gateway device`);
    handleGatewayPublish(session, session.gateway, topic, payload);
    return;
  }
  if (topic.startsWith(DEVICE_PREFIX)) {
    if (
      session.gateway &&
      ((faultActive('GW-GEN-02:own-telemetry-dropped') && topic === 'v1/devices/me/telemetry') ||
        (faultActive('GW-GEN-02:own-attributes-dropped') && topic === 'v1/devices/me/attributes'))
    )
      return;
    handleDevicePublish(session, topic, payload);
    return;
  }
  throw PublishFailure.topicName(topic);
}

function asFailure(session: MqttSession, error: unknown, topic: string): PublishFailure {
  if (error instanceof PublishFailure) return error;
  if (error instanceof BadRequestError) return PublishFailure.payloadFormat(error.message);
  session.context.logger.error({ err: error, topic }, 'MQTT publish failed');
  return PublishFailure.unspecified((error as Error)?.message ?? 'internal error');
}

/** Planted faults that acknowledge a failed MQTT 5 gateway publish with success (faults/catalogue/). */
function hiddenByFault(topic: string, failure: PublishFailure): boolean {
  switch (topic) {
    case 'v1/gateway/connect':
      return failure.reasonCode === REASON.QUOTA_EXCEEDED
        ? faultActive('GW-ERR-01:quota-success')
        : faultActive('GW-ERR-01:missing-device-success');
    case 'v1/gateway/disconnect':
      return faultActive('GW-ERR-02:disconnect-failure-success');
    case 'v1/gateway/attributes':
      return faultActive('GW-ERR-03:attributes-failure-success');
    case 'v1/gateway/telemetry':
      return faultActive('GW-ERR-04:telemetry-failure-success');
    default:
      return false;
  }
}

function acknowledge(
  session: MqttSession,
  packet: IPublishPacket,
  failure: PublishFailure | undefined,
): void {
  if (!failure) {
    if (packet.qos > 0)
      session.send(
        session.v5
          ? { cmd: 'puback', messageId: packet.messageId, reasonCode: REASON.SUCCESS }
          : { cmd: 'puback', messageId: packet.messageId },
      );
    return;
  }
  if (
    !session.v5 ||
    (faultActive('GW-VER-02:v5-acked-as-v3') && packet.topic.startsWith(GATEWAY_PREFIX))
  ) {
    if (failure.closeOnV3) return session.end();
    if (packet.qos > 0) session.send({ cmd: 'puback', messageId: packet.messageId });
    return;
  }
  if (
    faultActive('GW-RULE-04:v5-failure-unacknowledged') &&
    packet.topic.startsWith(GATEWAY_PREFIX)
  )
    return;
  if (packet.qos > 0) {
    session.send({
      cmd: 'puback',
      messageId: packet.messageId,
      reasonCode: failure.reasonCode,
      properties: { reasonString: failure.message.slice(0, 200) },
    });
  }
  if (failure.disconnectV5 !== undefined) session.end(failure.disconnectV5);
}
