/**
 * The connector's way to the platform: the MQTT gateway API with the connector's own gateway token, through the
 * gateway driver (simulators/gateway/mqtt-gateway.ts). For each request: connect the device once (with its
 * profile; again when the profile changes), then its client attributes, then its telemetry (the real gateway's
 * order, rest-connector-facts.md §6), each awaited to its PUBACK so a 200 means the platform took the data.
 * Values are published with their exact lexemes (a double stays 40.0).
 */
import { GATEWAY_TOPICS, type MqttGateway } from '../gateway/mqtt-gateway';
import { isFailure, type PublishOutcome } from '../device/mqtt-connection';
import { stringifyLossless, typedValueToLossless, type TypedValue } from '../../src/kv/values';
import type { ConvertedData } from './converted';

/** The platform refused or did not acknowledge a publish: the request is answered with a failure status. */
export class PlatformForwardError extends Error {
  readonly code = 'IOTC_CONNECTOR_FORWARD';
  constructor(readonly outcome: PublishOutcome) {
    super(`the platform did not take ${outcome.topic}: ${outcome.result}${outcome.reasonCode !== undefined ? ` reason code 0x${outcome.reasonCode.toString(16)}` : ''}`);
  }
}

export class PlatformLink {
  /** Device name to the connect of its current profile (in flight or done). */
  private readonly connects = new Map<string, { profile: string; done: Promise<void> }>();

  constructor(readonly gateway: MqttGateway) {}

  /** Devices this connector connected: only their updates and RPCs concern it. */
  isConnected(deviceName: string): boolean {
    return this.connects.has(deviceName);
  }

  async forward(converted: ConvertedData): Promise<void> {
    const { deviceName } = converted;
    await this.connect(deviceName, converted.deviceProfile);
    if (Object.keys(converted.attributes).length) {
      await this.publish(GATEWAY_TOPICS.attributes, { [deviceName]: lossless(converted.attributes) });
    }
    if (converted.telemetry.length) {
      await this.publish(GATEWAY_TOPICS.telemetry, { [deviceName]: converted.telemetry.map(({ ts, values }) => ({ ts, values: lossless(values) })) });
    }
  }

  /** v1/gateway/connect once per device and profile; a failed connect is retried by the next request. */
  connect(deviceName: string, profile: string): Promise<void> {
    const known = this.connects.get(deviceName);
    if (known && known.profile === profile) return known.done;
    const done = this.gateway.connectDevice(deviceName, profile).then((outcome) => {
      if (isFailure(outcome)) throw new PlatformForwardError(outcome);
    });
    done.catch(() => {
      if (this.connects.get(deviceName)?.done === done) this.connects.delete(deviceName);
    });
    this.connects.set(deviceName, { profile, done });
    return done;
  }

  private async publish(topic: string, document: unknown): Promise<void> {
    const outcome = await this.gateway.publish(topic, { raw: stringifyLossless(document) });
    if (isFailure(outcome)) throw new PlatformForwardError(outcome);
  }
}

function lossless(values: Record<string, TypedValue>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, typedValueToLossless(value)]));
}
