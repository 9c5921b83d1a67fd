/**
 * The gateway driver: a simulated gateway speaking the MQTT gateway API
 * (docs/reference/interfaces.md) to any target by URL, on one MQTT connection (3.1.1 or 5). It
 * connects and disconnects devices behind it, publishes their telemetry, attributes and claims,
 * asks for their attributes (answers correlated by id, with a timeout), and answers RPC commands
 * through handlers. Every publish answers a PublishOutcome with the PUBACK reason code (MQTT 5), so
 * callers assert on failures instead of catching them.
 *
 * A gateway is also an ordinary device: `device` is the MQTT device API on the same connection.
 * Used by steps, the REST connector (simulators/connector), load profiles and the CLI.
 */
import {
  MqttConnection,
  type MqttConnectionOptions,
  type PublishOutcome,
  type Qos,
  type ReceivedMessage,
} from '../device/mqtt-connection';
import { MqttDevice } from '../device/mqtt-device';
import { IotcError } from '../../lib/errors';
import { GATEWAY_API, type GatewayRole } from '../../schemas/gateway';

/** The topic of each role of the gateway API (its table: schemas/gateway.ts GATEWAY_API). */
export const GATEWAY_TOPICS = Object.fromEntries(
  Object.entries(GATEWAY_API).map(([role, rule]) => [role, rule.topic]),
) as { readonly [Role in GatewayRole]: (typeof GATEWAY_API)[Role]['topic'] };

/**
 * A payload: a value sent as JSON, or text sent exactly as given (malformed payloads, exact number
 * lexemes).
 */
type GatewayPayload = { json: unknown } | { raw: string | Buffer };

interface TelemetryEntry {
  ts?: number;
  values: Record<string, unknown>;
}

/**
 * An attribute request. docs/reference/interfaces.md's shape names keys per scope (`client`,
 * `shared` as arrays); ThingsBoard's shape, which real gateways send, picks one scope (`client:
 * true|false`) with `key` or `keys`.
 */
export type AttributeRequest =
  | { device: string; client?: string[]; shared?: string[] }
  | { device: string; client: boolean; key: string }
  | { device: string; client: boolean; keys: string[] };

/**
 * An answer on v1/gateway/attributes/response: the parsed document (its shape is not fixed by
 * docs/reference/interfaces.md).
 */
export interface AttributeResponse {
  id: number;
  device?: string;
  document: Record<string, unknown>;
  raw: string;
}

/** A shared-attribute update on v1/gateway/attributes: { device, data }. */
export interface AttributeUpdate {
  device: string;
  data: Record<string, unknown>;
  /** The message exactly as received (number lexemes intact: 42.0 versus 42, longs beyond 2^53). */
  raw: string;
  receivedAt: number;
}

/** A server-side RPC on v1/gateway/rpc: { device, data: { id, method, params } }. */
export interface GatewayRpcRequest {
  device: string;
  id: number;
  method: string;
  params: unknown;
  receivedAt: number;
}

/**
 * Answers an RPC: the reply document, or NO_REPLY to leave it unanswered (the platform then times
 * it out).
 */
type RpcHandler = (request: GatewayRpcRequest) => unknown | Promise<unknown>;
export const NO_REPLY = Symbol('no reply');

/** A gateway's attribute request got no answer in time. */
export class AttributeRequestTimeoutError extends IotcError {
  readonly code = 'IOTC_ATTRIBUTE_REQUEST_TIMEOUT';
}

interface GatewayOptions extends MqttConnectionOptions {
  /** QoS of publishes (default 1: the PUBACK carries the outcome). */
  qos?: Qos;
  /** How long an attribute request waits for its answer. */
  attributeRequestTimeoutMs?: number;
  /**
   * Subscribe to the gateway's downlink topics on connect (default true;
   * docs/reference/interfaces.md rule 1).
   */
  subscribe?: boolean;
}

export class MqttGateway {
  /** The gateway's own device API on the same connection. */
  readonly device: MqttDevice;
  /** Every update and RPC received, oldest first (steps look back at them). */
  readonly attributeUpdates: AttributeUpdate[] = [];
  readonly rpcRequests: GatewayRpcRequest[] = [];
  private nextRequestId = 1;
  private readonly pendingAttributeRequests = new Map<
    number,
    (response: AttributeResponse) => void
  >();
  private readonly updateListeners = new Set<(update: AttributeUpdate) => void>();
  private rpcHandler?: RpcHandler;
  private readonly rpcListeners = new Set<(request: GatewayRpcRequest) => void>();

  private constructor(
    readonly connection: MqttConnection,
    private readonly options: GatewayOptions,
  ) {
    this.device = new MqttDevice(connection, { qos: options.qos });
    connection.onMessage(GATEWAY_TOPICS.attributesResponse, (message) =>
      this.receiveAttributeResponse(message),
    );
    connection.onMessage(GATEWAY_TOPICS.attributes, (message) =>
      this.receiveAttributeUpdate(message),
    );
    connection.onMessage(GATEWAY_TOPICS.rpc, (message) => this.receiveRpc(message));
  }

  /** Connects the gateway (token as MQTT user name) and subscribes to its downlink topics. */
  static async connect(options: GatewayOptions): Promise<MqttGateway> {
    const connection = await MqttConnection.open(options);
    const gateway = new MqttGateway(connection, options);
    if (options.subscribe ?? true) {
      await connection.subscribe(
        [GATEWAY_TOPICS.attributes, GATEWAY_TOPICS.attributesResponse, GATEWAY_TOPICS.rpc],
        1,
      );
    }
    return gateway;
  }

  get protocolVersion(): 4 | 5 {
    return this.connection.protocolVersion;
  }

  // ---- uplink
  // -------------------------------------------------------------------------------------------------

  /**
   * v1/gateway/connect { device, type? }. Wait for its PUBACK before publishing for the device
   * (rule 4).
   */
  connectDevice(device: string, type?: string): Promise<PublishOutcome> {
    return this.publishJson(
      GATEWAY_TOPICS.connect,
      type === undefined ? { device } : { device, type },
    );
  }

  /** v1/gateway/disconnect { device }. */
  disconnectDevice(device: string): Promise<PublishOutcome> {
    return this.publishJson(GATEWAY_TOPICS.disconnect, { device });
  }

  /** v1/gateway/telemetry { name: [{ ts?, values }] } for one or several devices. */
  sendTelemetry(byDevice: Record<string, TelemetryEntry[]>, qos?: Qos): Promise<PublishOutcome> {
    return this.publishJson(GATEWAY_TOPICS.telemetry, byDevice, qos);
  }

  /**
   * v1/gateway/attributes { name: { key: value } }: client-side attributes of one or several
   * devices.
   */
  sendAttributes(
    byDevice: Record<string, Record<string, unknown>>,
    qos?: Qos,
  ): Promise<PublishOutcome> {
    return this.publishJson(GATEWAY_TOPICS.attributes, byDevice, qos);
  }

  /** v1/gateway/claim { name: { secretKey?, durationMs? } }. */
  claim(
    byDevice: Record<string, { secretKey?: string; durationMs?: number }>,
    qos?: Qos,
  ): Promise<PublishOutcome> {
    return this.publishJson(GATEWAY_TOPICS.claim, byDevice, qos);
  }

  /**
   * Publishes any payload on any topic: malformed payloads, unknown topics, exact number lexemes.
   */
  publish(topic: string, payload: GatewayPayload, qos?: Qos): Promise<PublishOutcome> {
    const body = 'json' in payload ? JSON.stringify(payload.json) : payload.raw;
    return this.connection.publish(topic, body, qos ?? this.options.qos ?? 1);
  }

  /**
   * v1/gateway/attributes/request with a fresh id; resolves with the answer of that id. The PUBACK
   * outcome is returned too, so a refused request is visible. Rejects with
   * AttributeRequestTimeoutError when no answer comes.
   */
  async requestAttributes(
    request: AttributeRequest,
    timeoutMs = this.options.attributeRequestTimeoutMs ?? 5000,
  ): Promise<{ publish: PublishOutcome; response: AttributeResponse }> {
    const id = this.nextRequestId++;
    const answered = new Promise<AttributeResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingAttributeRequests.delete(id);
        reject(
          new AttributeRequestTimeoutError(
            `no answer to attribute request ${id} for ${request.device} within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.pendingAttributeRequests.set(id, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
    });
    answered.catch(() => {});
    const publish = await this.publishJson(GATEWAY_TOPICS.attributesRequest, { id, ...request });
    return { publish, response: await answered };
  }

  /** v1/gateway/rpc { device, id, data }: the reply to a server-side RPC. */
  replyRpc(device: string, id: number, data: unknown, qos?: Qos): Promise<PublishOutcome> {
    return this.publishJson(GATEWAY_TOPICS.rpc, { device, id, data }, qos);
  }

  // ---- downlink
  // -----------------------------------------------------------------------------------------------

  /** Calls the listener for every shared-attribute update; returns the remove function. */
  onAttributeUpdate(listener: (update: AttributeUpdate) => void): () => void {
    this.updateListeners.add(listener);
    return () => this.updateListeners.delete(listener);
  }

  /**
   * Calls the listener for every RPC request (after the handler, if any, was started); returns the
   * remove function.
   */
  onRpcRequest(listener: (request: GatewayRpcRequest) => void): () => void {
    this.rpcListeners.add(listener);
    return () => this.rpcListeners.delete(listener);
  }

  /** Answers every RPC command with the handler's result (NO_REPLY: no answer). */
  handleRpc(handler: RpcHandler | undefined): void {
    this.rpcHandler = handler;
  }

  /**
   * Waits for an update of the device (optionally one that passes `accept`), or undefined after the
   * timeout.
   */
  nextAttributeUpdate(
    device: string,
    timeoutMs: number,
    accept: (update: AttributeUpdate) => boolean = () => true,
  ): Promise<AttributeUpdate | undefined> {
    return this.waitFor(
      this.updateListeners,
      (update) => update.device === device && accept(update),
      timeoutMs,
    );
  }

  /** Waits for an RPC request for the device, or undefined after the timeout. */
  nextRpcRequest(device: string, timeoutMs: number): Promise<GatewayRpcRequest | undefined> {
    return this.waitFor(this.rpcListeners, (request) => request.device === device, timeoutMs);
  }

  async close(abrupt = false): Promise<void> {
    await this.connection.close(abrupt);
  }

  // ---- internals
  // ----------------------------------------------------------------------------------------------

  private publishJson(topic: string, document: unknown, qos?: Qos): Promise<PublishOutcome> {
    return this.connection.publish(topic, JSON.stringify(document), qos ?? this.options.qos ?? 1);
  }

  private receiveAttributeResponse(message: ReceivedMessage): void {
    const raw = message.payload.toString('utf8');
    const document = parseObject(raw);
    if (!document || typeof document.id !== 'number') return;
    const resolve = this.pendingAttributeRequests.get(document.id);
    if (!resolve) return;
    this.pendingAttributeRequests.delete(document.id);
    resolve({
      id: document.id,
      device: typeof document.device === 'string' ? document.device : undefined,
      document,
      raw,
    });
  }

  private receiveAttributeUpdate(message: ReceivedMessage): void {
    const raw = message.payload.toString('utf8');
    const document = parseObject(raw);
    if (!document || typeof document.device !== 'string' || !isObject(document.data)) return;
    const update: AttributeUpdate = {
      device: document.device,
      data: document.data,
      raw,
      receivedAt: message.receivedAt,
    };
    this.attributeUpdates.push(update);
    for (const listener of this.updateListeners) listener(update);
  }

  private receiveRpc(message: ReceivedMessage): void {
    const document = parseObject(message.payload.toString('utf8'));
    if (!document || typeof document.device !== 'string' || !isObject(document.data)) return;
    const data = document.data;
    if (typeof data.id !== 'number' || typeof data.method !== 'string') return;
    const request: GatewayRpcRequest = {
      device: document.device,
      id: data.id,
      method: data.method,
      params: data.params,
      receivedAt: message.receivedAt,
    };
    this.rpcRequests.push(request);
    const handler = this.rpcHandler;
    if (handler) {
      void Promise.resolve()
        .then(() => handler(request))
        .then((reply) =>
          reply === NO_REPLY ? undefined : this.replyRpc(request.device, request.id, reply ?? {}),
        )
        .catch(() => undefined);
    }
    for (const listener of this.rpcListeners) listener(request);
  }

  private waitFor<T>(
    listeners: Set<(item: T) => void>,
    accept: (item: T) => boolean,
    timeoutMs: number,
  ): Promise<T | undefined> {
    return new Promise((resolve) => {
      const listener = (item: T) => {
        if (!accept(item)) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve(item);
      };
      const timer = setTimeout(() => {
        listeners.delete(listener);
        resolve(undefined);
      }, timeoutMs);
      listeners.add(listener);
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
