/**
 * One MQTT connection of a simulated device or gateway, on mqtt.js: connect with the access token
 * as user name, publish and learn the PUBACK's reason code (MQTT 5) instead of an exception,
 * subscribe, and route incoming messages by topic. Shared by the MQTT device driver and the gateway
 * driver (a gateway is also a device).
 *
 * Never throws on a protocol outcome: a refused CONNACK, a failure PUBACK, a closed connection are
 * answers the caller asserts on. It throws only on misuse (publishing after close) and on a connect
 * that never answers.
 */
import mqtt, { type IClientOptions, type MqttClient, type Packet } from 'mqtt';
import type { ExchangeRecorder } from '../../lib/exchange';
import { IotcError, type IotcErrorCode } from '../../lib/errors';

export type MqttVersion = 4 | 5;
export type Qos = 0 | 1;

export interface MqttConnectionOptions {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  /**
   * The device access token, sent as the MQTT user name (docs/reference/interfaces.md, MQTT gateway
   * API).
   */
  token: string;
  /** 4 = MQTT 3.1.1, 5 = MQTT 5; default 5. */
  protocolVersion?: MqttVersion;
  clientId?: string;
  password?: string;
  /** Trust for mqtts: a CA certificate, or no verification. */
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  connectTimeoutMs?: number;
  /** How long a QoS 1 publish waits for its PUBACK before it counts as unanswered. */
  ackTimeoutMs?: number;
  keepaliveSec?: number;
  /**
   * Told the outcome of the connect and of every publish (scenario evidence); the connection
   * behaves the same without it.
   */
  recorder?: ExchangeRecorder;
}

/** How a publish ended. */
export interface PublishOutcome {
  topic: string;
  qos: Qos;
  /**
   * 'acked': a PUBACK came (QoS 1); 'sent': written (QoS 0); 'closed': the connection closed first;
   * 'timeout'.
   */
  result: 'acked' | 'sent' | 'closed' | 'timeout';
  /** The PUBACK reason code (MQTT 5; 0 for MQTT 3.1.1, whose PUBACK has none). */
  reasonCode?: number;
  reasonString?: string;
  elapsedMs: number;
}

/** Failure PUBACK reason codes are ≥ 0x80 (MQTT 5, 3.4.2.1). */
export function isFailure(outcome: PublishOutcome): boolean {
  return outcome.result !== 'acked' && outcome.result !== 'sent'
    ? true
    : (outcome.reasonCode ?? 0) >= 0x80;
}

interface ConnectRefusal {
  /** CONNACK return code (3.1.1) or reason code (5). */
  code: number;
  message: string;
}

export interface ReceivedMessage {
  topic: string;
  payload: Buffer;
  qos: number;
  receivedAt: number;
}

/** An MQTT connection of a driver failed or closed while an operation waited on it. */
export class MqttConnectionError extends IotcError {
  readonly code: IotcErrorCode = 'IOTC_MQTT_CONNECTION';
}

/** A refused or failed connect, with the CONNACK code when there was one. */
export class MqttConnectRefusedError extends MqttConnectionError {
  override readonly code = 'IOTC_MQTT_CONNECT_REFUSED';
  constructor(readonly refusal: ConnectRefusal) {
    super(`MQTT connect refused: ${refusal.code} ${refusal.message}`);
  }
}

type MessageListener = (message: ReceivedMessage) => void;

export class MqttConnection {
  /**
   * Told every socket error (ECONNRESET, EPIPE, ETIMEDOUT: an error with a string code) of an open
   * connection of this process: the connection then closes, and a scenario waiting on it must know
   * that the network broke it, not the target's protocol (steps/support/transport.ts).
   */
  static onSocketError?: (error: Error & { code: string }) => void;
  /** Why the server ended the connection, when it sent an MQTT 5 DISCONNECT. */
  disconnectReason?: number;
  /**
   * The socket error that ended the connection, when one did (a reset on the path, not an MQTT
   * answer).
   */
  socketError?: Error & { code: string };
  /** Told every publish outcome (from the options; may be set later, e.g. per scenario). */
  recorder?: ExchangeRecorder;
  private readonly listeners = new Set<{
    filter: (topic: string) => boolean;
    listener: MessageListener;
  }>();
  private readonly closeWaiters = new Set<() => void>();
  private closedFlag = false;
  /** When the connection closed (Date.now()), for `describe`. */
  private closedAt: number | undefined;
  /** Each filter's last SUBACK: the granted QoS or refusal code, and when it came. */
  private readonly subscribed = new Map<string, { granted: number; at: number }>();
  /**
   * Publishes whose PUBACK did not come within the acknowledgement timeout (mqtt.js still holds
   * them in flight).
   */
  private timedOutPublishes = 0;

  private constructor(
    readonly client: MqttClient,
    readonly protocolVersion: MqttVersion,
    private readonly ackTimeoutMs: number,
    /**
     * The broker's URL: a publish's evidence names it, so its reproduce line reaches the same port.
     */
    private readonly url?: string,
  ) {
    client.on('message', (topic, payload, packet) => {
      const message = { topic, payload, qos: packet.qos, receivedAt: Date.now() };
      this.recorder?.({
        protocol: 'mqtt',
        via: 'mqtt',
        request: {
          packet: 'RECEIVED',
          topic,
          qos: packet.qos,
          payload: payload.subarray(0, 65_536).toString('utf8'),
        },
        response: { result: 'received' },
        elapsedMs: 0,
      });
      for (const { filter, listener } of this.listeners) if (filter(topic)) listener(message);
    });
    client.on('disconnect', (packet) => {
      this.disconnectReason = packet.reasonCode;
    });
    client.on('close', () => {
      this.closedFlag = true;
      this.closedAt ??= Date.now();
      for (const waiter of this.closeWaiters) waiter();
      this.closeWaiters.clear();
    });
    // errors after the connect (a refused subscription, a broken socket) end in 'close'; the
    // outcome says so, and a socket error is kept (and told) as what ended it
    client.on('error', (error: Error & { code?: unknown }) => {
      if (typeof error.code !== 'string') return;
      this.noteSocketError(error as Error & { code: string });
    });
    client.stream?.once('end', () => {
      const reset = resetReportedAsEnd(client.stream);
      if (reset) this.noteSocketError(reset);
    });
  }

  /** Keeps the socket error that ended the connection and tells it (onSocketError). */
  private noteSocketError(error: Error & { code: string }): void {
    // the first socket error is what ended the connection; but a system error of the socket
    // (ECONNRESET, EPIPE: the path) outranks one of Node's own stream errors (ERR_STREAM_...)
    // told before it, which would hide it
    const systemError = (code: string) => !code.startsWith('ERR_');
    if (this.socketError && (systemError(this.socketError.code) || !systemError(error.code)))
      return;
    this.socketError = error;
    MqttConnection.onSocketError?.(error);
  }

  /** Opens a connection; rejects with MqttConnectRefusedError when the CONNACK refuses. */
  static async open(options: MqttConnectionOptions): Promise<MqttConnection> {
    const protocolVersion = options.protocolVersion ?? 5;
    const clientOptions: IClientOptions = {
      protocolVersion,
      username: options.token,
      password: options.password,
      clientId: options.clientId ?? `iotc-${Math.random().toString(36).slice(2, 12)}`,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: options.connectTimeoutMs ?? 10_000,
      keepalive: options.keepaliveSec ?? 60,
      ca: options.tls?.ca,
      rejectUnauthorized: options.tls ? !options.tls.insecureSkipVerify : undefined,
    };
    const client = mqtt.connect(options.url, clientOptions);
    const started = performance.now();
    const recordConnect = (
      result: 'accepted' | 'refused' | 'failed',
      reasonCode?: number,
      reasonString?: string,
    ) =>
      options.recorder?.({
        protocol: 'mqtt',
        via: 'mqtt',
        request: { packet: 'CONNECT', url: options.url },
        response: { result, reasonCode, reasonString },
        elapsedMs: performance.now() - started,
      });
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      /** The CONNACK's refusal, once mqtt.js has handled a CONNACK whose code is not 0. */
      let refusal: ConnectRefusal | undefined;
      const seeConnack = (packet: Packet) => {
        if (packet.cmd !== 'connack') return;
        const code = protocolVersion === 5 ? packet.reasonCode : packet.returnCode;
        if (code) refusal = { code, message: `CONNACK ${code}` };
      };
      const settle = () => {
        settled = true;
        client.removeListener('connect', succeed);
        client.removeListener('error', fail);
        client.removeListener('close', closedEarly);
        client.removeListener('packetreceive', seeConnack);
        // a later error (of a connection being ended, or after the connect) must not go unheard;
        // after the connect the outcome of an error is the 'close' that follows (the constructor's
        // listeners)
        client.on('error', () => {});
      };
      const refuse = (refused: ConnectRefusal) => {
        if (settled) return;
        settle();
        client.end(true);
        recordConnect('refused', refused.code, refused.message);
        reject(new MqttConnectRefusedError(refused));
      };
      const fail = (error: Error & { code?: number }) => {
        if (settled) return;
        if (typeof error.code === 'number')
          return refuse({ code: error.code, message: error.message });
        // An error without a code may come from a packet after a refusing CONNACK: ThingsBoard
        // follows an MQTT 5 CONNACK 0x86 with a DISCONNECT 0x86, which mqtt-packet rejects (not a
        // DISCONNECT reason code) before mqtt.js has handled the CONNACK parsed before it. The
        // CONNACK decides: wait until it is handled.
        setImmediate(() => {
          if (settled) return;
          if (refusal) return refuse(refusal);
          settle();
          client.end(true);
          recordConnect('failed', undefined, error.message);
          // the socket error (ECONNREFUSED, a TLS failure) stays the cause:
          // steps/support/transport.ts reads it
          reject(
            new MqttConnectionError(`MQTT connect to ${options.url} failed: ${error.message}`, {
              cause: error,
            }),
          );
        });
      };
      const succeed = () => {
        if (settled) return;
        settle();
        recordConnect('accepted', 0);
        resolve();
      };
      const closedEarly = () => fail(new Error('connection closed before CONNACK'));
      client.on('packetreceive', seeConnack);
      client.once('connect', succeed);
      client.on('error', fail);
      client.on('close', closedEarly);
    });
    const connection = new MqttConnection(
      client,
      protocolVersion,
      options.ackTimeoutMs ?? 10_000,
      options.url,
    );
    connection.recorder = options.recorder;
    return connection;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Resolves when the connection is closed (by either side). */
  whenClosed(): Promise<void> {
    if (this.closedFlag) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.add(resolve));
  }

  /** Publishes and reports how it ended; a failure PUBACK is an outcome, not an exception. */
  async publish(topic: string, payload: string | Buffer, qos: Qos = 1): Promise<PublishOutcome> {
    const started = performance.now();
    const done = (result: PublishOutcome['result'], packet?: Packet): PublishOutcome => {
      const ack = packet as
        | { reasonCode?: number; properties?: { reasonString?: string } }
        | undefined;
      return {
        topic,
        qos,
        result,
        reasonCode: result === 'acked' ? (ack?.reasonCode ?? 0) : undefined,
        reasonString: ack?.properties?.reasonString,
        elapsedMs: performance.now() - started,
      };
    };
    if (this.closedFlag) return this.recorded(payload, done('closed'));
    let timer: NodeJS.Timeout | undefined;
    let stopWaiting: (() => void) | undefined;
    const closedOrTimedOut = new Promise<PublishOutcome>((resolve) => {
      stopWaiting = () => resolve(done('closed'));
      this.closeWaiters.add(stopWaiting);
      timer = setTimeout(() => {
        this.timedOutPublishes += 1;
        resolve(done('timeout'));
      }, this.ackTimeoutMs);
    });
    const published = new Promise<PublishOutcome>((resolve) => {
      this.client.publish(topic, payload, { qos }, (error, packet) => {
        if (!error) return resolve(done(qos === 0 ? 'sent' : 'acked', packet));
        const code = (error as Error & { code?: unknown }).code;
        // mqtt.js reports a PUBACK reason code >= 0x80 as an error carrying the code
        if (typeof code === 'number')
          resolve({ ...done('acked'), reasonCode: code, reasonString: error.message });
        else resolve(done('closed'));
      });
    });
    try {
      return this.recorded(payload, await Promise.race([published, closedOrTimedOut]));
    } finally {
      clearTimeout(timer);
      if (stopWaiting) this.closeWaiters.delete(stopWaiting);
    }
  }

  /**
   * The caller gave up on the PUBACK of a publish still in flight (it judged it missing after a
   * window of its own, steps/support/publish-window.ts): close() no longer waits for it, as after
   * a publish that timed out.
   */
  stopWaitingForAcks(): void {
    this.timedOutPublishes += 1;
  }

  /** Hands a publish outcome to the recorder, if any, and returns it. */
  private recorded(payload: string | Buffer, outcome: PublishOutcome): PublishOutcome {
    if (!this.recorder) return outcome;
    const text =
      typeof payload === 'string' ? payload : payload.subarray(0, 65_536).toString('utf8');
    const { topic, qos, result, reasonCode, reasonString, elapsedMs } = outcome;
    this.recorder({
      protocol: 'mqtt',
      via: 'mqtt',
      request: { packet: 'PUBLISH', url: this.url, topic, qos, payload: text },
      response: { result, reasonCode, reasonString },
      elapsedMs,
    });
    return outcome;
  }

  /**
   * The error of a wait the connection's close cut short: it names `waitingFor`, and carries the
   * socket error that ended the connection as its cause (steps/support/transport.ts then names the
   * network, not the target); a close without one (the target ended the session) is the target's
   * doing.
   */
  closedError(waitingFor: string): MqttConnectionError {
    return new MqttConnectionError(
      this.socketError
        ? `the connection was broken (${this.socketError.code}) before ${waitingFor}`
        : `the connection was closed (by the target, without a socket error) before ${waitingFor}`,
      { cause: this.socketError },
    );
  }

  /**
   * Subscribes; answers the granted QoS per filter (≥ 0x80 = refused). Rejects with `closedError`
   * when the connection is closed before the SUBACK: mqtt.js holds a subscribe on a closed client
   * for a reconnect this connection never makes, and the caller would wait for ever.
   */
  async subscribe(filters: string[], qos: Qos = 1): Promise<number[]> {
    if (this.closedFlag) throw this.closedError('the SUBACK');
    let stopWaiting: (() => void) | undefined;
    const closed = new Promise<never>((_, reject) => {
      stopWaiting = () => reject(this.closedError('the SUBACK'));
      this.closeWaiters.add(stopWaiting);
    });
    try {
      const granted = await Promise.race([this.client.subscribeAsync(filters, { qos }), closed]);
      return this.noteSubscribed(
        filters,
        granted.map((grant) => grant.qos),
      );
    } catch (error) {
      if (error instanceof MqttConnectionError) throw error;
      // mqtt.js turns an MQTT 5 SUBACK holding a failure code into an error that carries the packet
      const granted = (error as { packet?: { granted?: Array<number | { qos: number }> } }).packet
        ?.granted;
      if (!granted) throw error;
      return this.noteSubscribed(
        filters,
        granted.map((grant) => (typeof grant === 'number' ? grant : grant.qos)),
      );
    } finally {
      if (stopWaiting) this.closeWaiters.delete(stopWaiting);
    }
  }

  /**
   * Keeps each filter's SUBACK code for `describe`. mqtt.js answers a filter this client already
   * holds at the same QoS without sending a SUBSCRIBE (an empty grant list): the earlier grant stands.
   */
  private noteSubscribed(filters: string[], granted: number[]): number[] {
    const at = Date.now();
    granted.forEach((code, index) => {
      const filter = filters[index];
      if (filter !== undefined) this.subscribed.set(filter, { granted: code, at });
    });
    return granted;
  }

  /**
   * The connection's state in words, for a failure that may come from it rather than from what the
   * step asked (an RPC never delivered, an update never received): open or how it ended (the
   * target's DISCONNECT reason, a socket error, or a close without either), and the SUBACK of
   * `filter` when given. `since` (Date.now() of the step's start) dates the close.
   */
  describe(filter?: string, since?: number): string {
    const grant = filter === undefined ? undefined : this.subscribed.get(filter);
    const subscription =
      filter === undefined
        ? ''
        : grant === undefined
          ? `; no SUBACK for ${filter} on it`
          : grant.granted >= 0x80
            ? `; its SUBSCRIBE to ${filter} was refused (code 0x${grant.granted.toString(16)})`
            : `; subscribed to ${filter} (QoS ${grant.granted} granted)`;
    if (!this.closedFlag) return `the MQTT connection was open${subscription}`;
    const delta =
      since !== undefined && this.closedAt !== undefined ? this.closedAt - since : undefined;
    const when =
      delta === undefined
        ? ''
        : delta >= 0
          ? ` ${delta} ms after the step began`
          : ` ${-delta} ms before the step began`;
    const how = this.socketError
      ? `broken by the network (${this.socketError.code})`
      : this.disconnectReason !== undefined
        ? `closed by the target with DISCONNECT 0x${this.disconnectReason.toString(16)}`
        : 'closed by the target (no DISCONNECT, no socket error)';
    return `the MQTT connection was ${how}${when}${subscription}`;
  }

  /**
   * Calls the listener for every message whose topic passes the filter; returns the remove
   * function.
   */
  onMessage(filter: string | ((topic: string) => boolean), listener: MessageListener): () => void {
    const entry = {
      filter: typeof filter === 'string' ? (topic: string) => topic === filter : filter,
      listener,
    };
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** Waits for the next message that passes the filter, or undefined after the timeout. */
  nextMessage(
    filter: string | ((topic: string) => boolean),
    timeoutMs: number,
    accept: (message: ReceivedMessage) => boolean = () => true,
  ): Promise<ReceivedMessage | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        remove();
        resolve(undefined);
      }, timeoutMs);
      const remove = this.onMessage(filter, (message) => {
        if (!accept(message)) return;
        clearTimeout(timer);
        remove();
        resolve(message);
      });
    });
  }

  /**
   * Ends the connection with a DISCONNECT (or by dropping the socket when `abrupt`). mqtt.js sends
   * the DISCONNECT only once every QoS 1 publish is acknowledged; a publish the target never
   * acknowledges would hold the close (and the scenario's cleanup) for ever, so the wait is bounded
   * by the acknowledgement timeout (not waited again when a publish has timed out already), then
   * the socket dropped.
   */
  async close(abrupt = false): Promise<void> {
    if (this.closedFlag) return;
    const inFlight = () => Object.keys(this.client.outgoing).length > 0;
    if (!abrupt && inFlight() && this.timedOutPublishes === 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.client.once('outgoingEmpty', resolve);
        timer = setTimeout(resolve, this.ackTimeoutMs);
      });
      clearTimeout(timer);
    }
    await this.client.endAsync(abrupt || inFlight());
  }
}

/**
 * A reset the operating system reported as the end of the stream, as the error it is. When data and
 * an RST reach a socket before its process reads (a loaded machine: the harness's loop stalls while
 * the path resets), libuv reads the data and, seeing the hang-up, reports EOF without reading the
 * reset (uv__stream_io's POLLHUP short-circuit after a partial read): no 'error' comes, and the
 * close looked like the target's own (no DISCONNECT, no socket error: a FAIL of MQTT-DEV-TEL-01 and
 * GW-STATE-06 through the fault proxy's resets; 38 of 1,000 resets of an idle MQTT connection
 * beside CPU burners, docs/concepts/remote-network.md). At the 'end' the socket still tells them
 * apart: one the peer ended is half-open and has its peer (getpeername answers), one that was reset
 * is closed and has none (ENOTCONN). A peer that ended the connection and then reset it (a write of
 * ours crossed its close) reads as a reset too when its RST came before the end was read, as that
 * write's EPIPE or ECONNRESET already did. A connection the harness ended itself is not asked
 * (closed once the peer's FIN comes). Node has no public call for this (`remoteAddress` is cached
 * from the connect), so the socket's handle is asked; a handle without that call leaves the end as
 * it was.
 */
function resetReportedAsEnd(stream: unknown): (Error & { code: string }) | undefined {
  const socket = stream as
    | { writableEnded?: boolean; _handle?: { getpeername?: (out: object) => number } }
    | undefined;
  // a connection the harness ended itself is closed (TIME_WAIT) once the peer's FIN comes: no
  // reset
  if (socket?.writableEnded !== false) return undefined;
  const handle = socket._handle;
  if (typeof handle?.getpeername !== 'function' || handle.getpeername({}) === 0) return undefined;
  return Object.assign(
    new Error(
      'read ECONNRESET (the connection was reset; the operating system reported it as the end of the stream)',
    ),
    { code: 'ECONNRESET' },
  );
}
