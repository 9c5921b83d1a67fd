/**
 * MQTT provisioning's protocol table (docs/reference/platform-facts.md §6; ThingsBoard:
 * MqttTopics.java:66-67, MqttTransportHandler.processProvisionSessionMsg): a CONNECT with user name
 * or client id `provision` opens a session without authentication that publishes the request of
 * POST /api/v1/provision on `request` and gets its answer on `response`. The reference
 * (simulators/platform/mqtt/provision-session.ts, connect.ts, subscribe.ts), the device driver
 * (simulators/device/mqtt-provision.ts), the steps and certify read it; no provisioning topic is
 * written elsewhere.
 */
import type { DeviceTopicRule } from './device-mqtt';
import { provisionRequestSchema } from './provision';

export const PROVISION_MQTT_API = {
  request: { topic: '/provision/request', direction: 'uplink', schema: provisionRequestSchema },
  /** The status document of the HTTP answer, sent whether or not the session subscribed. */
  response: { topic: '/provision/response', direction: 'downlink', schema: undefined },
} as const satisfies Record<string, DeviceTopicRule>;

/** The user name (or client id) of a provisioning session. */
export const PROVISION_MQTT_USER = 'provision';
