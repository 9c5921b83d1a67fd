/**
 * A bare MQTT client on a plain TCP (or TLS) socket, for the robustness scenarios and bench: it can
 * send bytes that are not MQTT, hold a connection open without a CONNECT, and stop reading while
 * the target sends to it, which mqtt.js cannot (it reads whatever arrives and refuses to send
 * malformed packets). Packets are encoded and decoded by mqtt-packet, MQTT.js's own codec; only the
 * socket handling is written here.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { IotcError } from '../../lib/errors';

/**
 * The bare MQTT client (bytes that are not MQTT, a reader that stops) could not connect or send.
 */
export class RawMqttError extends IotcError {
  readonly code = 'IOTC_RAW_MQTT';
}

interface RawMqttOptions {
  /** mqtt://host:port or mqtts://host:port. */
  url: string;
  tls?: { ca?: string; insecureSkipVerify: boolean };
}

export class RawMqttClient {
  /** PUBLISH packets received while reading, by topic. */
  readonly received = new Map<string, number>();
  private readonly parser = mqttPacket.parser({ protocolVersion: 4 });
  private readonly waiters = new Set<{ cmd: string; resolve: (packet: Packet) => void }>();
  private closedFlag = false;
  private readonly closeWaiters = new Set<() => void>();
  private readonly publishListeners = new Set<(topic: string, payload: Buffer) => void>();

  private constructor(readonly socket: Socket) {
    this.parser.on('packet', (packet: Packet) => {
      if (packet.cmd === 'publish') {
        this.received.set(packet.topic, (this.received.get(packet.topic) ?? 0) + 1);
        const payload = Buffer.from(packet.payload);
        for (const listener of this.publishListeners) listener(packet.topic, payload);
      }
      for (const waiter of this.waiters)
        if (waiter.cmd === packet.cmd) {
          this.waiters.delete(waiter);
          waiter.resolve(packet);
        }
    });
    socket.on('data', (chunk: Buffer) => this.parser.parse(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closedFlag = true;
      for (const waiter of this.closeWaiters) waiter();
      this.closeWaiters.clear();
    });
  }

  /** Opens the TCP (or TLS) connection only; nothing is sent. */
  static open(options: RawMqttOptions): Promise<RawMqttClient> {
    const url = new URL(options.url);
    const port = Number(url.port || (url.protocol === 'mqtts:' ? 8883 : 1883));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const socket =
        url.protocol === 'mqtts:'
          ? connectTls({
              host,
              port,
              ca: options.tls?.ca,
              rejectUnauthorized: !options.tls?.insecureSkipVerify,
            })
          : connectTcp({ host, port });
      socket.once('error', reject);
      socket.once(url.protocol === 'mqtts:' ? 'secureConnect' : 'connect', () => {
        socket.off('error', reject);
        resolve(new RawMqttClient(socket));
      });
    });
  }

  /** Calls `listener` with every PUBLISH read from now on (topic and payload). */
  onPublish(listener: (topic: string, payload: Buffer) => void): void {
    this.publishListeners.add(listener);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Resolves when the socket is closed (by either side). */
  whenClosed(): Promise<void> {
    if (this.closedFlag) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.add(resolve));
  }

  /**
   * MQTT 3.1.1 CONNECT with the token as user name and no keep-alive; resolves with the CONNACK's
   * return code.
   */
  async connect(token: string, timeoutMs: number): Promise<number> {
    const connack = this.next('connack', timeoutMs);
    this.write({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: `iotc-raw-${Math.random().toString(36).slice(2, 10)}`,
      keepalive: 0,
      username: token,
    });
    return ((await connack) as Packet & { returnCode?: number }).returnCode ?? 0;
  }

  /** SUBSCRIBE at QoS 0 (the target's publishes then need no PUBACK); resolves at the SUBACK. */
  async subscribe(topic: string, timeoutMs: number): Promise<void> {
    const suback = this.next('suback', timeoutMs);
    this.write({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic, qos: 0 }] });
    await suback;
  }

  /**
   * PUBLISH at QoS 1; resolves at its PUBACK, or rejects when the connection closes first or
   * timeoutMs passes.
   */
  async publish(topic: string, payload: Buffer | string, timeoutMs: number): Promise<void> {
    const puback = this.next('puback', timeoutMs);
    this.write({ cmd: 'publish', topic, payload, qos: 1, messageId: 2, retain: false, dup: false });
    await puback;
  }

  /** Bytes as they are, MQTT or not. */
  writeRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Stops reading: what the target sends waits in the socket buffers, then in the target. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private write(packet: Packet): void {
    this.socket.write(mqttPacket.generate(packet, { protocolVersion: 4 }));
  }

  private next(cmd: Packet['cmd'], timeoutMs: number): Promise<Packet> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new RawMqttError(`no ${cmd.toUpperCase()} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        cmd,
        resolve: (packet: Packet) => {
          clearTimeout(timer);
          this.closeWaiters.delete(closed);
          resolve(packet);
        },
      };
      const closed = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        reject(new RawMqttError(`the connection closed before the ${cmd.toUpperCase()}`));
      };
      this.waiters.add(waiter);
      this.closeWaiters.add(closed);
    });
  }
}
