/**
 * The connector's way to the platform: the MQTT gateway API with the connector's own gateway token,
 * through the gateway driver (simulators/gateway/mqtt-gateway.ts). For each request: connect the
 * device once (with its profile; again when the profile changes), then its client attributes, then
 * its telemetry (the real gateway's order, docs/reference/rest-connector-facts.md §6), each awaited
 * to its PUBACK so a 200 means the platform took the data. Values are published with their exact
 * lexemes (a double stays 40.0).
 *
 * When the MQTT connection ends (the platform restarted, another session took the token over), the
 * link opens a new one with a growing pause (0.5 s doubling to 10 s), hands it to `attach` so the
 * downlink handlers follow, and connects devices again as their data comes. Requests meanwhile are
 * answered 503 (the publish reports 'closed').
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { GATEWAY_TOPICS, type MqttGateway } from '../gateway/mqtt-gateway';
import { isFailure, type PublishOutcome } from '../device/mqtt-connection';
import { stringifyLossless, typedValueToLossless, type TypedValue } from '../../lib/kv/values';
import type { ConvertedData } from './converted';
import { IotcError } from '../../lib/errors';

/**
 * The platform refused or did not acknowledge a publish: the request is answered with a failure
 * status.
 */
export class PlatformForwardError extends IotcError {
  readonly code = 'IOTC_CONNECTOR_FORWARD';
  constructor(readonly outcome: PublishOutcome) {
    super(
      `the platform did not take ${outcome.topic}: ${outcome.result}${outcome.reasonCode !== undefined ? ` reason code 0x${outcome.reasonCode.toString(16)}` : ''}`,
    );
  }
}

export class PlatformLink {
  /** Device name to the connect of its current profile (in flight or done). */
  private readonly connects = new Map<string, { profile: string; done: Promise<void> }>();
  private current: MqttGateway;
  private closing = false;
  private readonly stopped = new AbortController();

  private constructor(
    private readonly open: () => Promise<MqttGateway>,
    first: MqttGateway,
    private readonly attach: (gateway: MqttGateway) => void,
    private readonly logger: Logger,
  ) {
    this.current = first;
    this.watch(first);
  }

  /** Opens the first connection (its failure is the caller's) and keeps one open until close(). */
  static async start(
    open: () => Promise<MqttGateway>,
    attach: (gateway: MqttGateway) => void,
    logger: Logger,
  ): Promise<PlatformLink> {
    const first = await open();
    attach(first);
    return new PlatformLink(open, first, attach, logger);
  }

  /** The gateway session of the moment. */
  get gateway(): MqttGateway {
    return this.current;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopped.abort();
    this.current.handleRpc(undefined);
    await this.current.close();
  }

  private watch(gateway: MqttGateway): void {
    void gateway.connection.whenClosed().then(() => {
      if (!this.closing) void this.reconnect();
    });
  }

  private async reconnect(): Promise<void> {
    this.connects.clear();
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        await delay(Math.min(500 * 2 ** attempt, 10_000), undefined, {
          signal: this.stopped.signal,
        });
        const gateway = await this.open();
        if (this.closing) return void (await gateway.close());
        this.current = gateway;
        this.attach(gateway);
        this.watch(gateway);
        this.logger.info({ attempt: attempt + 1 }, 'MQTT gateway session open again');
        return;
      } catch (error) {
        if (this.closing) return;
        this.logger.warn(
          { attempt: attempt + 1, error: (error as Error).message },
          'MQTT gateway session not open yet',
        );
      }
    }
  }

  /** Devices this connector connected: only their updates and RPCs concern it. */
  isConnected(deviceName: string): boolean {
    return this.connects.has(deviceName);
  }

  async forward(converted: ConvertedData): Promise<void> {
    const { deviceName } = converted;
    await this.connect(deviceName, converted.deviceProfile);
    if (Object.keys(converted.attributes).length) {
      await this.publish(GATEWAY_TOPICS.attributes, {
        [deviceName]: lossless(converted.attributes),
      });
    }
    if (converted.telemetry.length) {
      await this.publish(GATEWAY_TOPICS.telemetry, {
        [deviceName]: converted.telemetry.map(({ ts, values }) => ({
          ts,
          values: lossless(values),
        })),
      });
    }
  }

  /**
   * v1/gateway/connect once per device and profile; a failed connect is retried by the next
   * request.
   */
  connect(deviceName: string, profile: string): Promise<void> {
    const known = this.connects.get(deviceName);
    if (known && known.profile === profile) return known.done;
    const done = this.current.connectDevice(deviceName, profile).then((outcome) => {
      if (isFailure(outcome)) throw new PlatformForwardError(outcome);
    });
    done.catch(() => {
      if (this.connects.get(deviceName)?.done === done) this.connects.delete(deviceName);
    });
    this.connects.set(deviceName, { profile, done });
    return done;
  }

  private async publish(topic: string, document: unknown): Promise<void> {
    const outcome = await this.current.publish(topic, { raw: stringifyLossless(document) });
    if (isFailure(outcome)) throw new PlatformForwardError(outcome);
  }
}

function lossless(values: Record<string, TypedValue>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, typedValueToLossless(value)]),
  );
}
