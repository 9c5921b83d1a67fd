/**
 * Opening a scenario's MQTT gateway connection against the target (shared by the gateway and
 * property steps).
 */
import assert from 'node:assert/strict';
import type { MqttVersion } from '../../simulators/device/mqtt-connection';
import { MqttGateway } from '../../simulators/gateway/mqtt-gateway';
import type { IotcWorld } from '../world';

export function mqttUrl(world: IotcWorld): string {
  const url = world.run.target.mqttUrl;
  assert.ok(url, 'the target profile names no MQTT URL (platform.mqtt)');
  return url;
}

/**
 * Opens an MQTT connection with a device's token (at the target's MQTT URL unless `url` says
 * otherwise); closed after the scenario.
 */
export async function connectGateway(
  world: IotcWorld,
  local: string,
  token: string,
  protocolVersion: MqttVersion,
  url = mqttUrl(world),
): Promise<MqttGateway> {
  const { target } = world.run;
  world.redactor.addSecret(token);
  const driver = await MqttGateway.connect({
    url,
    token,
    protocolVersion,
    ackTimeoutMs: target.timeouts.requestMs,
    attributeRequestTimeoutMs: target.timeouts.eventuallyMs,
    tls: { ca: target.tls.ca, insecureSkipVerify: target.tls.insecureSkipVerify },
    recorder: world.exchanges.record,
  });
  world.cleanups.push({
    what: `MQTT connection of ${local}`,
    connection: true,
    undo: () => driver.close(),
  });
  return driver;
}

/**
 * Creates an ordinary device (not a gateway) and opens its MQTT connection, kept with the
 * scenario's gateways.
 */
export async function connectPlainDevice(
  world: IotcWorld,
  local: string,
  version: MqttVersion,
): Promise<void> {
  const device = await world.createDevice(local);
  world.gateways.set(local, {
    local,
    driver: await connectGateway(world, local, device.token, version),
  });
}
