/**
 * The MQTT device driver: the device topics (v1/devices/me/...) on one MQTT connection, as
 * ThingsBoard serves them (docs/reference/platform-facts.md §4.3): telemetry, client attributes,
 * attribute requests and responses by id, shared-attribute updates, server-side RPC with replies,
 * client-side RPC (getSessionLimits among them), and claim. The payloads are those of ThingsBoard's
 * Python SDK (tb_device_mqtt.py): compact JSON, `{"method","params"}` requests. A gateway uses it
 * for its own device API (same connection). Firmware: mqtt-firmware.ts; provisioning:
 * mqtt-provision.ts.
 */
import { DEVICE_MQTT_API, deviceTopic, deviceTopicFilter } from '../../schemas/device-mqtt';
import {
  MqttConnection,
  type MqttConnectionOptions,
  type PublishOutcome,
  type Qos,
} from './mqtt-connection';

/**
 * The topics the driver uses, from the device API's table (schemas/device-mqtt.ts DEVICE_MQTT_API).
 */
export const DEVICE_TOPICS = {
  telemetry: DEVICE_MQTT_API.telemetry.topic,
  attributes: DEVICE_MQTT_API.attributes.topic,
  attributesRequest: (id: number) => deviceTopic('attributesRequest', id),
  attributesResponse: deviceTopicFilter('attributesResponse'),
  rpcRequest: deviceTopicFilter('rpcRequest'),
  rpcResponse: (id: number) => deviceTopic('rpcResponse', id),
  rpcRequestOut: (id: number) => deviceTopic('rpcRequest', id),
  rpcResponses: deviceTopicFilter('rpcResponse'),
  claim: DEVICE_MQTT_API.claim.topic,
} as const;

export interface DeviceRpcRequest {
  id: number;
  method: string;
  params: unknown;
}

/** The answer to getSessionLimits (ThingsBoard's MQTT transport answers it itself). */
export interface SessionLimits {
  maxPayloadSize: number;
  maxInflightMessages: number;
  rateLimits: Record<string, string | null>;
  gatewayRateLimits?: Record<string, string | null>;
}

export class MqttDevice {
  private nextRequestId = 1;
  private nextRpcId = 1;

  constructor(
    readonly connection: MqttConnection,
    private readonly options: { qos?: Qos } = {},
  ) {}

  /** Opens a connection of its own with the device's token. */
  static async connect(options: MqttConnectionOptions & { qos?: Qos }): Promise<MqttDevice> {
    return new MqttDevice(await MqttConnection.open(options), options);
  }

  /** Telemetry in any of the three forms (object, array, timestamped), or raw text. */
  sendTelemetry(payload: unknown, qos?: Qos): Promise<PublishOutcome> {
    return this.connection.publish(
      DEVICE_TOPICS.telemetry,
      asText(payload),
      qos ?? this.options.qos ?? 1,
    );
  }

  sendAttributes(payload: unknown, qos?: Qos): Promise<PublishOutcome> {
    return this.connection.publish(
      DEVICE_TOPICS.attributes,
      asText(payload),
      qos ?? this.options.qos ?? 1,
    );
  }

  claim(
    payload: { secretKey?: string; durationMs?: number } = {},
    qos?: Qos,
  ): Promise<PublishOutcome> {
    return this.connection.publish(
      DEVICE_TOPICS.claim,
      JSON.stringify(payload),
      qos ?? this.options.qos ?? 1,
    );
  }

  /**
   * Asks for attributes (comma-separated key lists, as ThingsBoard); resolves with the answer or
   * undefined.
   */
  async requestAttributes(
    keys: { clientKeys?: string[]; sharedKeys?: string[] },
    timeoutMs = 5000,
  ): Promise<Record<string, unknown> | undefined> {
    await this.subscribe(DEVICE_TOPICS.attributesResponse);
    const id = this.nextRequestId++;
    const answered = this.connection.nextMessage(deviceTopic('attributesResponse', id), timeoutMs);
    const body: Record<string, string> = {};
    if (keys.clientKeys) body.clientKeys = keys.clientKeys.join(',');
    if (keys.sharedKeys) body.sharedKeys = keys.sharedKeys.join(',');
    await this.connection.publish(DEVICE_TOPICS.attributesRequest(id), JSON.stringify(body), 1);
    const message = await answered;
    return message
      ? (JSON.parse(message.payload.toString('utf8')) as Record<string, unknown>)
      : undefined;
  }

  /** Subscribes to shared-attribute updates; the listener gets each update document. */
  async onSharedAttributes(
    listener: (update: Record<string, unknown>) => void,
  ): Promise<() => void> {
    const remove = this.connection.onMessage(DEVICE_TOPICS.attributes, (message) =>
      listener(JSON.parse(message.payload.toString('utf8')) as Record<string, unknown>),
    );
    await this.subscribe(DEVICE_TOPICS.attributes, remove);
    return remove;
  }

  /**
   * Client-side RPC as the SDK's send_rpc_call: `{"method","params"}` on
   * v1/devices/me/rpc/request/{n}; resolves with the answer on v1/devices/me/rpc/response/{n} (its
   * text parsed as JSON when it is), or undefined after the timeout.
   */
  async callRpc(method: string, params: unknown, timeoutMs = 5000): Promise<unknown> {
    await this.subscribe(DEVICE_TOPICS.rpcResponses);
    const id = this.nextRpcId++;
    const answered = this.connection.nextMessage(DEVICE_TOPICS.rpcResponse(id), timeoutMs);
    await this.connection.publish(
      DEVICE_TOPICS.rpcRequestOut(id),
      JSON.stringify({ method, params }),
      this.options.qos ?? 1,
    );
    const message = await answered;
    if (!message) return undefined;
    const text = message.payload.toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  /** What every SDK device asks on connect: `getSessionLimits` with params {"timeout": 5000}. */
  async sessionLimits(timeoutMs = 5000): Promise<SessionLimits | undefined> {
    return (await this.callRpc('getSessionLimits', { timeout: 5000 }, timeoutMs)) as
      | SessionLimits
      | undefined;
  }

  /**
   * Subscribes to server-side RPC; the handler's result is published as the reply: a Buffer as is
   * (an empty or non-JSON reply, as some firmware sends), anything else as JSON; undefined: no
   * reply.
   */
  async handleRpc(
    handler: (request: DeviceRpcRequest) => unknown | Promise<unknown>,
  ): Promise<() => void> {
    const prefix = deviceTopic('rpcRequest', '');
    const remove = this.connection.onMessage(
      (topic) => topic.startsWith(prefix),
      (message) => {
        const id = Number(message.topic.slice(prefix.length));
        const body = JSON.parse(message.payload.toString('utf8')) as {
          method: string;
          params: unknown;
        };
        void Promise.resolve(handler({ id, method: body.method, params: body.params }))
          .then((reply) =>
            reply === undefined
              ? undefined
              : this.connection.publish(
                  DEVICE_TOPICS.rpcResponse(id),
                  Buffer.isBuffer(reply) ? reply : JSON.stringify(reply),
                  1,
                ),
          )
          .catch(() => undefined);
      },
    );
    await this.subscribe(DEVICE_TOPICS.rpcRequest, remove);
    return remove;
  }

  /**
   * Subscribes to one filter. A refusing SUBACK (code ≥ 0x80) throws, naming the code: what the
   * device waits for next would never come, and a later failure (an RPC expired undelivered, no
   * answer) would name the wrong cause. `undo` removes the listener made for it.
   */
  private async subscribe(filter: string, undo?: () => void): Promise<void> {
    const [granted] = await this.connection.subscribe([filter]);
    if (granted === undefined || granted < 0x80) return;
    undo?.();
    throw new Error(
      `the target refused the subscription to ${filter} (SUBACK code 0x${granted.toString(16)})`,
    );
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}

function asText(payload: unknown): string | Buffer {
  return typeof payload === 'string' || Buffer.isBuffer(payload)
    ? payload
    : JSON.stringify(payload);
}
