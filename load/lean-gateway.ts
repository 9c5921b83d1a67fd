/**
 * The load generator's own MQTT connection: what a load run needs of a gateway or a held device
 * connection (connect with the token as user name, v1/gateway/connect its devices, publish
 * telemetry at QoS 0 or 1, close) on a bare socket, so that a message costs the generator little
 * more than its write and the PUBACK's read, and a held connection little more than its socket. The
 * conformance drivers keep mqtt.js (simulators/gateway/mqtt-gateway.ts: subscriptions, RPC,
 * evidence); this one has none of that. Used by the mqtt-gateway and mqtt-connect profiles.
 *
 * Each PUBLISH is encoded into one buffer and written with one write; its latency runs from that
 * write to its PUBACK (QoS 1) or to the write's completion (QoS 0). Incoming packets are framed
 * here from the first read on: a CONNACK, a PUBACK and a PINGRESP are read in place, anything else
 * (DISCONNECT, a PUBACK with properties) through mqtt-packet, made for the first such packet. An
 * unanswered QoS 1 publish is a 'timeout' after `ackTimeoutMs` (one sweep a second for all the
 * connections of the process, not a timer per publish or per connection), and every publish still
 * waiting when the connection closes is 'closed'. Outcomes and errors are those of MqttConnection
 * (PublishOutcome, MqttConnectRefusedError with mqtt.js's words, MqttConnectionError), so a profile
 * reads both the same way.
 */
import { randomBytes } from 'node:crypto';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { portTaken, type SourcePorts, sourcePortsFor } from './source-ports';
import { ReasonCodes } from 'mqtt';
import mqttPacket, { type Packet } from 'mqtt-packet';
import {
  MqttConnectionError,
  MqttConnectRefusedError,
  type MqttVersion,
  type PublishOutcome,
  type Qos,
} from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS } from '../simulators/gateway/mqtt-gateway';

export interface LeanGatewayOptions {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  token: string;
  /** The CONNECT's client id (default: `iotc-` and 10 random hex digits). */
  clientId?: string;
  protocolVersion?: MqttVersion;
  qos?: Qos;
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  connectTimeoutMs?: number;
  ackTimeoutMs?: number;
  keepaliveSec?: number;
}

interface Waiting {
  topic: string;
  qos: Qos;
  started: number;
  done: (outcome: PublishOutcome) => void;
}

/**
 * The buffer every plain-TCP connection of the process reads into (net's `onread`: no allocation
 * per read).
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

const CONNACK = 2;
const PUBACK = 4;
const PINGRESP = 13;
const DISCONNECT_V5_NORMAL = Buffer.from([0xe0, 0x01, 0x00]);
const DISCONNECT = Buffer.from([0xe0, 0x00]);
const PINGREQ = Buffer.from([0xc0, 0x00]);

/** The bytes of a remaining length (MQTT variable byte integer). */
function lengthBytes(length: number): number {
  return length < 128 ? 1 : length < 16_384 ? 2 : length < 2_097_152 ? 3 : 4;
}

function writeLength(buffer: Buffer, offset: number, length: number): number {
  let value = length;
  let at = offset;
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    buffer[at++] = byte;
  } while (value > 0);
  return at;
}

/**
 * Every open connection of the process: one sweep a second serves them all (no timer per
 * connection).
 */
const live = new Set<LeanGateway>();
let sweeper: NodeJS.Timeout | undefined;

function sweepAll(): void {
  const now = performance.now();
  for (const gateway of live) gateway.sweep(now);
}

/**
 * Topic names as bytes, shared by the connections of the process (a load run publishes on a few
 * topics); bounded, so a caller with many topics costs an encoding per publish and no growth.
 */
const TOPIC_BYTES = new Map<string, Buffer>();
const TOPIC_BYTES_MAX = 1024;

/**
 * The words mqtt.js gives a CONNACK's refusal (`Connection refused: Not authorized`), so reports
 * read the same.
 */
function refusalWords(code: number): string {
  const words = (ReasonCodes as Record<number, string | undefined>)[code];
  return words ? `Connection refused: ${words}` : `CONNACK ${code}`;
}

interface Connecting {
  url: string;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class LeanGateway {
  /** Why the server ended the connection, when it sent an MQTT 5 DISCONNECT. */
  disconnectReason?: number;
  /** The socket error that ended the connection, when one did. */
  socketError?: Error & { code?: string };
  /** QoS 1 publishes awaiting their PUBACK, by message id (made at the first QoS 1 publish). */
  private waiting: Map<number, Waiting> | undefined;
  private nextId = 1;
  private closedFlag = false;
  private pending: Buffer | undefined;
  /**
   * mqtt-packet, made for the first packet not read in place (a DISCONNECT, a PUBACK with
   * properties).
   */
  private parser: ReturnType<typeof mqttPacket.parser> | undefined;
  private closeWaiters: (() => void)[] | undefined;
  private connecting: Connecting | undefined;
  private lastWriteAt = performance.now();
  /** The source ports of the connection's destination, told when it closes. */
  private sourcePorts: SourcePorts | undefined;

  private constructor(
    private readonly socket: Socket,
    readonly protocolVersion: MqttVersion,
    private readonly qos: Qos,
    private readonly ackTimeoutMs: number,
    private readonly keepaliveSec: number,
    secure: boolean,
  ) {
    // TLS sockets read as streams ('data'); plain TCP through `onread` (connect())
    if (secure) socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('close', () => this.onClosed());
    socket.on('error', (error: Error & { code?: string }) => this.fail(error));
  }

  /**
   * Connects (token as user name, clean session); rejects with MqttConnectRefusedError when the
   * CONNACK refuses, with MqttConnectionError (the socket error as its cause) when no CONNACK came.
   * Every byte read goes through the connection's own framing from the first read on: a packet that
   * arrives in the same read as the CONNACK (a DISCONNECT, say) is read like any later one.
   */
  static async connect(options: LeanGatewayOptions): Promise<LeanGateway> {
    const url = new URL(options.url);
    const secure = url.protocol === 'mqtts:';
    const port = Number(url.port) || (secure ? 8883 : 1883);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // past the kernel's cheap share of the port range, a named source port (load/source-ports.ts);
    // one someone holds is passed over
    const sourcePorts = sourcePortsFor(`${host}:${port}`);
    for (let tries = 0; ; tries++) {
      const source = tries < sourcePorts.tries ? sourcePorts.choose() : undefined;
      try {
        const gateway = await LeanGateway.open(options, host, port, secure, source);
        gateway.sourcePorts = sourcePorts;
        sourcePorts.opened(gateway.socket.localAddress);
        return gateway;
      } catch (error) {
        if (source && portTaken((error as Error).cause)) continue;
        throw error;
      }
    }
  }

  private static async open(
    options: LeanGatewayOptions,
    host: string,
    port: number,
    secure: boolean,
    source: { localAddress: string; localPort: number } | undefined,
  ): Promise<LeanGateway> {
    const protocolVersion = options.protocolVersion ?? 5;
    const socket = secure
      ? tlsConnect({
          host,
          port,
          ...source,
          ca: options.tls?.ca,
          rejectUnauthorized: !options.tls?.insecureSkipVerify,
          ...(isIP(host) ? {} : { servername: host }),
        })
      : netConnect({
          host,
          port,
          ...source,
          onread: {
            buffer: READ_BUFFER,
            callback: (length, buffer) => {
              gateway.read(Buffer.from(buffer.buffer, buffer.byteOffset, length), true);
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    const keepaliveSec = options.keepaliveSec ?? 60;
    const timeoutMs = options.connectTimeoutMs ?? 10_000;
    const gateway = new LeanGateway(
      socket,
      protocolVersion,
      options.qos ?? 1,
      options.ackTimeoutMs ?? 10_000,
      keepaliveSec,
      secure,
    );
    await new Promise<void>((resolve, reject) => {
      gateway.connecting = {
        url: options.url,
        resolve,
        reject,
        timer: setTimeout(
          () => gateway.fail(new Error(`no CONNACK within ${timeoutMs} ms`)),
          timeoutMs,
        ),
      };
      socket.once(secure ? 'secureConnect' : 'connect', () =>
        gateway.write(
          mqttPacket.generate(
            {
              cmd: 'connect',
              protocolId: 'MQTT',
              protocolVersion,
              clean: true,
              clientId: options.clientId ?? `iotc-${randomBytes(5).toString('hex')}`,
              keepalive: keepaliveSec,
              username: options.token,
            },
            { protocolVersion },
          ),
        ),
      );
    });
    return gateway;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Resolves when the connection is closed (by either side). */
  whenClosed(): Promise<void> {
    if (this.closedFlag) return Promise.resolve();
    return new Promise((resolve) => {
      this.closeWaiters ??= [];
      this.closeWaiters.push(resolve);
    });
  }

  /** v1/gateway/connect { device }: wait for its PUBACK before publishing for the device. */
  connectDevice(device: string): Promise<PublishOutcome> {
    return this.publish(GATEWAY_TOPICS.connect, { raw: JSON.stringify({ device }) });
  }

  /** Publishes a payload; resolves how it ended (never rejects on a protocol outcome). */
  publish(topic: string, payload: { raw: string }, qos: Qos = this.qos): Promise<PublishOutcome> {
    return new Promise((resolve) => this.send(topic, payload.raw, qos, resolve));
  }

  /**
   * Publishes `text` and calls `done` once with how it ended: publish() without a promise per
   * message.
   */
  send(topic: string, text: string, qos: Qos, done: (outcome: PublishOutcome) => void): void {
    {
      const resolve = done;
      if (this.closedFlag) return resolve(outcome(topic, qos, 'closed', performance.now()));
      let topicBytes = TOPIC_BYTES.get(topic);
      if (!topicBytes) {
        topicBytes = Buffer.from(topic);
        if (TOPIC_BYTES.size < TOPIC_BYTES_MAX) TOPIC_BYTES.set(topic, topicBytes);
      }
      const payloadLength = Buffer.byteLength(text);
      const remaining =
        2 +
        topicBytes.length +
        (qos > 0 ? 2 : 0) +
        (this.protocolVersion === 5 ? 1 : 0) +
        payloadLength;
      const packet = Buffer.allocUnsafe(1 + lengthBytes(remaining) + remaining);
      packet[0] = 0x30 | (qos << 1);
      let at = writeLength(packet, 1, remaining);
      packet.writeUInt16BE(topicBytes.length, at);
      at += 2;
      at += topicBytes.copy(packet, at);
      let id = 0;
      if (qos > 0) {
        id = this.freeId();
        if (id === 0) return resolve(outcome(topic, qos, 'timeout', performance.now()));
        packet.writeUInt16BE(id, at);
        at += 2;
      }
      if (this.protocolVersion === 5) packet[at++] = 0; // no properties
      packet.write(text, at);
      const started = performance.now();
      if (qos > 0) {
        this.waiting ??= new Map();
        this.waiting.set(id, { topic, qos, started, done: resolve });
        this.write(packet);
      } else
        this.write(packet, () =>
          resolve(outcome(topic, qos, this.closedFlag ? 'closed' : 'sent', started)),
        );
    }
  }

  /** Sends DISCONNECT and closes; every publish still waiting ends 'closed'. */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    const closed = this.whenClosed();
    this.socket.end(this.protocolVersion === 5 ? DISCONNECT_V5_NORMAL : DISCONNECT);
    const force = setTimeout(() => this.socket.destroy(), 2000);
    await closed;
    clearTimeout(force);
  }

  /**
   * The once-a-second sweep (sweepAll): acknowledgement timeouts, and a PINGREQ when idle for half
   * the keep-alive.
   */
  sweep(now: number): void {
    if (this.waiting)
      for (const [id, waiting] of this.waiting)
        if (now - waiting.started >= this.ackTimeoutMs) this.settle(id, 'timeout');
    // keep-alive 0 turns the mechanism off (MQTT 3.1.2.10): no PINGREQ at all
    if (this.keepaliveSec > 0 && now - this.lastWriteAt >= (this.keepaliveSec * 1000) / 2)
      this.write(PINGREQ);
  }

  private write(bytes: Buffer, written?: () => void): void {
    this.lastWriteAt = performance.now();
    this.socket.write(bytes, written);
  }

  /** A message id no publish is waiting on (0 when all 65,535 are). */
  private freeId(): number {
    for (let tries = 0; tries < 65_535; tries++) {
      const id = this.nextId;
      this.nextId = id === 65_535 ? 1 : id + 1;
      if (!this.waiting?.has(id)) return id;
    }
    return 0;
  }

  private settle(
    id: number,
    result: PublishOutcome['result'],
    reasonCode?: number,
    reasonString?: string,
  ): void {
    const waiting = this.waiting?.get(id);
    if (!waiting) return;
    this.waiting!.delete(id);
    const done = outcome(waiting.topic, waiting.qos, result, waiting.started);
    if (result === 'acked') {
      done.reasonCode = reasonCode ?? 0;
      if (reasonString !== undefined) done.reasonString = reasonString;
    }
    waiting.done(done);
  }

  /**
   * Frames the incoming bytes; a CONNACK, a PUBACK without properties and a PINGRESP are read here,
   * any other packet by mqtt-packet. `shared`: the bytes are net's read buffer, overwritten by the
   * next read.
   */
  private read(chunk: Buffer, shared = false): void {
    const buffer = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let at = 0;
    while (at < buffer.length && !this.closedFlag) {
      // fixed header: type and flags, then the remaining length (1 to 4 bytes)
      let length = 0;
      let multiplier = 1;
      let cursor = at + 1;
      let complete = false;
      while (cursor < buffer.length && cursor - at <= 4) {
        const byte = buffer[cursor++];
        length += (byte & 0x7f) * multiplier;
        multiplier *= 128;
        if ((byte & 0x80) === 0) {
          complete = true;
          break;
        }
      }
      if (!complete || cursor + length > buffer.length) break;
      const type = buffer[at] >> 4;
      if (type === PUBACK && length >= 2 && length <= 3) {
        const id = buffer.readUInt16BE(cursor);
        this.settle(id, 'acked', length === 3 ? buffer[cursor + 2] : 0);
      } else if (type === CONNACK && length >= 2) {
        // flags, then the return code (3.1.1) or reason code (5); MQTT 5's properties are not
        // needed here
        this.connack(buffer[cursor + 1]);
      } else if (type !== PINGRESP) {
        const packet = buffer.subarray(at, cursor + length);
        if (!this.parser) {
          this.parser = mqttPacket.parser({ protocolVersion: this.protocolVersion });
          this.parser.on('packet', (parsed: Packet) => this.other(parsed));
          this.parser.on('error', (error: Error) => this.fail(error));
        }
        // the shared read buffer is overwritten by the next read: mqtt-packet gets its own copy
        this.parser.parse(shared ? Buffer.from(packet) : packet);
      }
      at = cursor + length;
    }
    if (at < buffer.length && !this.closedFlag) this.pending = Buffer.from(buffer.subarray(at));
  }

  private connack(code: number): void {
    const connecting = this.connecting;
    if (!connecting) return;
    this.connecting = undefined;
    clearTimeout(connecting.timer);
    if (code) {
      this.socket.destroy();
      return connecting.reject(new MqttConnectRefusedError({ code, message: refusalWords(code) }));
    }
    live.add(this);
    if (!sweeper) {
      sweeper = setInterval(sweepAll, 1000);
      sweeper.unref();
    }
    connecting.resolve();
  }

  /**
   * A packet other than a short PUBACK: a PUBACK with a reason string, a DISCONNECT; the rest is
   * not for a load run.
   */
  private other(packet: Packet): void {
    if (packet.cmd === 'puback')
      this.settle(
        packet.messageId ?? 0,
        'acked',
        packet.reasonCode ?? 0,
        packet.properties?.reasonString,
      );
    else if (packet.cmd === 'disconnect') this.disconnectReason = packet.reasonCode;
  }

  private fail(error: Error & { code?: string }): void {
    this.socketError ??= error;
    this.socket.destroy();
  }

  private onClosed(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    this.pending = undefined;
    this.sourcePorts?.closed();
    live.delete(this);
    if (live.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    const connecting = this.connecting;
    if (connecting) {
      this.connecting = undefined;
      clearTimeout(connecting.timer);
      const cause = this.socketError ?? new Error('connection closed before CONNACK');
      connecting.reject(
        new MqttConnectionError(`MQTT connect to ${connecting.url} failed: ${cause.message}`, {
          cause,
        }),
      );
    }
    if (this.waiting) for (const id of [...this.waiting.keys()]) this.settle(id, 'closed');
    for (const waiter of this.closeWaiters ?? []) waiter();
    this.closeWaiters = undefined;
  }
}

function outcome(
  topic: string,
  qos: Qos,
  result: PublishOutcome['result'],
  started: number,
): PublishOutcome {
  return { topic, qos, result, elapsedMs: performance.now() - started };
}
