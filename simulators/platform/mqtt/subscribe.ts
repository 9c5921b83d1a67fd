/**
 * SUBSCRIBE and UNSUBSCRIBE. Only the filters ThingsBoard allows are granted (docs/reference/platform-facts.md §4.3; the v1 device
 * and gateway topics and the v2 firmware and software topics; a provisioning session only /provision/response), at
 * min(requested, 1); any other filter is refused (v5 0x8F, v3 0x80). Subscribing to a device's update or RPC topic
 * starts delivery to this session; a gateway's subscription to v1/gateway/rpc delivers RPCs queued meanwhile.
 */
import type { ISubscribePacket, IUnsubscribePacket } from 'mqtt-packet';
import { faultActive } from '../../../faults';
import { stringifyLossless } from '../../../lib/kv/values';
import { deviceTopic, deviceTopicFilter } from '../../../schemas/device-mqtt';
import { GATEWAY_API, gatewayTopicRules } from '../../../schemas/gateway';
import { pickAttributes, sharedChangeDocument } from '../core/render';
import { REASON, SUBACK_FAILURE_V3 } from './reason-codes';
import { PROVISION_RESPONSE_TOPIC } from './provision-session';
import type { MqttQos, MqttSession } from './session';

const DEVICE_ATTRIBUTES = deviceTopicFilter('attributes');
const DEVICE_RPC_REQUESTS = deviceTopicFilter('rpcRequest');

const ALLOWED = new Set([
  DEVICE_ATTRIBUTES,
  deviceTopicFilter('attributesResponse'),
  DEVICE_RPC_REQUESTS,
  deviceTopicFilter('rpcResponse'),
  // the topics the platform publishes to a gateway (schemas/gateway.ts GATEWAY_API)
  ...gatewayTopicRules()
    .filter((rule) => rule.direction !== 'uplink')
    .map((rule) => rule.topic),
  'v2/fw/response/+/chunk/+',
  'v2/fw/error',
  'v2/sw/response/+/chunk/+',
  'v2/sw/error',
]);

/** A provisioning session may subscribe only to its answer (docs/reference/platform-facts.md §6). */
const PROVISION_ALLOWED = new Set([PROVISION_RESPONSE_TOPIC]);

const NO_SUBSCRIPTION_EXISTED = 0x11;

export function handleSubscribe(session: MqttSession, packet: ISubscribePacket): void {
  if (!session.device && !session.provisionOnly) return session.end(REASON.PROTOCOL_ERROR);
  const allowed = session.provisionOnly ? PROVISION_ALLOWED : ALLOWED;
  const granted = packet.subscriptions.map(({ topic, qos }) => {
    if (!allowed.has(topic)) return session.v5 ? REASON.TOPIC_FILTER_INVALID : SUBACK_FAILURE_V3;
    const grantedQos: MqttQos = qos >= 1 ? 1 : 0;
    session.subscriptions.set(topic, grantedQos);
    return grantedQos;
  });
  session.send({ cmd: 'suback', messageId: packet.messageId, granted });
  if (session.provisionOnly) return;
  // acknowledged first; the subscription reaches the device actor later (core/scheduler.ts): an update emitted
  // meanwhile is not delivered, as ThingsBoard drops it (DeviceActorMessageProcessor.java 605-638)
  for (const { topic } of packet.subscriptions)
    if (ALLOWED.has(topic))
      session.context.core.scheduler.later('subscription', () => {
        if (!session.closed && session.subscriptions.has(topic)) activate(session, topic);
      });
}

export function handleUnsubscribe(session: MqttSession, packet: IUnsubscribePacket): void {
  if (!session.device && !session.provisionOnly) return session.end(REASON.PROTOCOL_ERROR);
  const codes = packet.unsubscriptions.map((topic) => {
    const existed = session.subscriptions.delete(topic);
    if (topic === DEVICE_ATTRIBUTES || topic === DEVICE_RPC_REQUESTS) session.cancel(topic);
    return existed ? REASON.SUCCESS : NO_SUBSCRIPTION_EXISTED;
  });
  session.send({ cmd: 'unsuback', messageId: packet.messageId, granted: session.v5 ? codes : [] });
}

/** Starts what a granted subscription turns on. */
function activate(session: MqttSession, topic: string): void {
  const device = session.device!;
  const { core } = session.context;
  if (topic === DEVICE_ATTRIBUTES) {
    if (session.gateway && faultActive('GW-GEN-03:own-updates-withheld')) return;
    let changes = 0;
    session.onEnd(
      topic,
      core.on(device, 'shared', (change) => {
        // planted faults (faults/catalogue/mqtt-device-api.ts): no change after the first, each one twice, or
        // every shared attribute instead of those changed
        if (changes++ > 0 && faultActive('MQTT-DEV-ATTR-03:first-change-only')) return;
        const document = faultActive('MQTT-DEV-ATTR-03:unchanged-keys-included')
          ? {
              ...pickAttributes(device, 'SHARED_SCOPE', undefined),
              ...sharedChangeDocument(change),
            }
          : sharedChangeDocument(change);
        // delivered late, each update on its own delay (two may arrive reordered), as ThingsBoard
        core.scheduler.later('attributeUpdate', () => {
          session.publish(DEVICE_ATTRIBUTES, stringifyLossless(document));
          if (faultActive('MQTT-DEV-ATTR-03:delivered-twice'))
            session.publish(DEVICE_ATTRIBUTES, stringifyLossless(document));
        });
      }),
    );
  } else if (topic === DEVICE_RPC_REQUESTS) {
    if (session.gateway && faultActive('GW-GEN-04:own-rpc-withheld')) return;
    const deliver = () => {
      for (let rpc = core.takeRpc(device); rpc; rpc = core.takeRpc(device)) {
        // ThingsBoard puts the id in the topic, not in the body
        // planted faults (faults/catalogue/mqtt-device-api.ts): the params dropped, or the request sent twice
        const params = faultActive('MQTT-DEV-RPC-01:params-dropped') ? {} : (rpc.params ?? {});
        const request = stringifyLossless({ method: rpc.method, params });
        session.publish(deviceTopic('rpcRequest', rpc.id), request);
        if (faultActive('MQTT-DEV-RPC-01:delivered-twice'))
          session.publish(deviceTopic('rpcRequest', rpc.id), request);
      }
    };
    session.onEnd(topic, core.on(device, 'rpc', deliver));
    deliver();
  } else if (topic === GATEWAY_API.rpc.topic) {
    session.gateway?.deliverAllRpcs();
  }
}
