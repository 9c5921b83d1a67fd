/**
 * SUBSCRIBE and UNSUBSCRIBE. Only the filters ThingsBoard allows are granted
 * (docs/reference/platform-facts.md §4.3; the v1 device and gateway topics and the v2 firmware and
 * software topics; a provisioning session only /provision/response), at min(requested, 1); any
 * other filter is refused (v5 0x8F, v3 0x80). Subscribing to a device's update or RPC topic starts
 * delivery to this session; a gateway's subscription to v1/gateway/rpc delivers RPCs queued
 * meanwhile. What delivery decides is named steps (DELIVERY_STEPS); the planted faults
 * (faults/catalogue/mqtt-device-api.ts, mqtt-gateway-api.ts) are wrappers of those steps
 * (DELIVERY_FAULTS, faults/steps.ts).
 */
import type { ISubscribePacket, IUnsubscribePacket } from 'mqtt-packet';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { stringifyLossless } from '../../../lib/kv/values';
import { deviceTopic, deviceTopicFilter } from '../../../schemas/device-mqtt';
import { GATEWAY_API, gatewayTopicRules } from '../../../schemas/gateway';
import { OTA_KINDS, otaTopicFilter } from '../../../schemas/ota-mqtt';
import { pickAttributes, sharedChangeDocument } from '../core/render';
import { REASON, SUBACK_FAILURE_V3 } from './reason-codes';
import { PROVISION_RESPONSE_TOPIC } from './provision-session';
import type { MqttQos, MqttSession } from './session';
import type { Device, RpcRequest } from '../core/model';
import type { SharedAttributesChange } from '../core/event-hub';

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
  // the firmware and software topics the platform publishes (schemas/ota-mqtt.ts OTA_MQTT_API)
  ...OTA_KINDS.flatMap((kind) => [
    otaTopicFilter('chunkResponse', kind),
    otaTopicFilter('error', kind),
  ]),
]);

/**
 * A provisioning session may subscribe only to its answer (docs/reference/platform-facts.md §6).
 */
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
  // acknowledged first; the subscription reaches the device actor later (core/scheduler.ts): an
  // update emitted meanwhile is not delivered, as ThingsBoard drops it
  // (DeviceActorMessageProcessor.java 605-638)
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
  const steps = () => withFaults(DELIVERY_STEPS, DELIVERY_FAULTS);
  if (!steps().activates(session, topic)) return;
  if (topic === DEVICE_ATTRIBUTES) {
    let changes = 0;
    session.onEnd(
      topic,
      core.on(device, 'shared', (change) => {
        const { forwards, update, publishUpdate } = steps();
        if (!forwards(changes++)) return;
        const document = update(device, change);
        // delivered late, each update on its own delay (two may arrive reordered), as ThingsBoard
        core.scheduler.later('attributeUpdate', () => publishUpdate(session, document));
      }),
    );
  } else if (topic === DEVICE_RPC_REQUESTS) {
    const deliver = () => {
      const { request, publishRpc } = steps();
      // ThingsBoard puts the id in the topic, not in the body
      for (let rpc = core.takeRpc(device); rpc; rpc = core.takeRpc(device))
        publishRpc(session, rpc.id, stringifyLossless(request(rpc)));
    };
    session.onEnd(topic, core.on(device, 'rpc', deliver));
    deliver();
  } else if (topic === GATEWAY_API.rpc.topic) {
    session.gateway?.deliverAllRpcs();
  }
}

/** The named steps of delivery to a device session. */
const DELIVERY_STEPS = {
  /** Whether a granted subscription starts delivery to this session. */
  activates: (_session: MqttSession, _topic: string): boolean => true,
  /** Whether the session's `count`-th shared-attribute change (from 0) is forwarded. */
  forwards: (_count: number): boolean => true,
  /** The document of a shared-attribute change: the keys changed and deleted. */
  update: (_device: Device, change: SharedAttributesChange): object => sharedChangeDocument(change),
  publishUpdate: (session: MqttSession, document: object): void =>
    void session.publish(DEVICE_ATTRIBUTES, stringifyLossless(document)),
  /** The body of a server-side RPC: {method, params}. */
  request: (rpc: RpcRequest): { method: string; params: unknown } => ({
    method: rpc.method,
    params: rpc.params ?? {},
  }),
  publishRpc: (session: MqttSession, id: number, request: string): void =>
    void session.publish(deviceTopic('rpcRequest', id), request),
};

type Delivery = typeof DELIVERY_STEPS;

/** A gateway's own subscription to `withheld` starts nothing. */
const withheldFromGateway =
  (withheld: string) =>
  (step: Delivery['activates']): Delivery['activates'] =>
  (session, topic) =>
    !(session.gateway && topic === withheld) && step(session, topic);

/** The planted faults of delivery, wrappers of its steps. */
const DELIVERY_FAULTS: StepFaults<Delivery> = {
  'GW-GEN-03:own-updates-withheld': { activates: withheldFromGateway(DEVICE_ATTRIBUTES) },
  'GW-GEN-04:own-rpc-withheld': { activates: withheldFromGateway(DEVICE_RPC_REQUESTS) },
  'MQTT-DEV-ATTR-03:first-change-only': { forwards: () => (count) => count === 0 },
  'MQTT-DEV-ATTR-03:unchanged-keys-included': {
    update: (step) => (device, change) => ({
      ...pickAttributes(device, 'SHARED_SCOPE', undefined),
      ...step(device, change),
    }),
  },
  'MQTT-DEV-ATTR-03:delivered-twice': {
    publishUpdate: (step) => (session, document) => {
      step(session, document);
      step(session, document);
    },
  },
  'MQTT-DEV-RPC-01:params-dropped': {
    request: (step) => (rpc) => ({ ...step(rpc), params: {} }),
  },
  'MQTT-DEV-RPC-01:delivered-twice': {
    publishRpc: (step) => (session, id, request) => {
      step(session, id, request);
      step(session, id, request);
    },
  },
};
