/**
 * One MQTT connection of the reference platform: its socket, the authenticated device, the granted
 * subscriptions, the sub-devices a gateway connected, and how packets go out. The packet handlers
 * (connect.ts, publish.ts, subscribe.ts, ...) act on it; nothing here knows a topic's meaning.
 */
import type { Socket } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';
import type { Logger } from 'pino';
import type { PlatformCore } from '../core/platform-core';
import type { Device } from '../core/model';
import type { Quirks } from '../quirks';
import type { ClientRpcHandler } from '../http/context';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { topicMatches } from '../../../lib/mqtt/topic-filter';
import type { GatewayDevices } from './gateway-devices';
import type { TrafficListener } from '../traffic';

export type MqttQos = 0 | 1;

/**
 * What every session shares: the core, the settings, and the sessions by device id (for take-over).
 */
export interface MqttTransportContext {
  core: PlatformCore;
  quirks: Quirks;
  logger: Logger;
  clientRpc: ClientRpcHandler;
  sessionsByDevice: Map<string, MqttSession>;
  /** Sees every packet in and out (`iotc simulate --log`); absent, nothing is observed. */
  traffic?: TrafficListener;
  /**
   * Output a session may have waiting for a client that does not read before it is disconnected.
   */
  maxPendingOutputBytes: number;
  /**
   * `iotc certify gateway`: the PUBACK of a gateway connect is held until the client has sent
   * nothing for this long (`holdUntilQuiet`); 0 otherwise (acknowledged at once).
   */
  gatewayConnectAckDelayMs: number;
}

/**
 * The longest an answer held until the client is quiet waits: a client that never pauses (a stream
 * of publishes) gets it after this many quiet windows at most.
 */
const MAX_HOLD_QUIET_WINDOWS = 10;

/**
 * Default for maxPendingOutputBytes: 64 packets of the largest size. Past it the client is
 * disconnected instead of buffering without limit (10,000 updates to a paused gateway grew the
 * process by 500 MB: issue 13 finding 3). ThingsBoard 4.3 does not do this (it never checks a
 * channel's writability: deviation ROB-SLOW-01, quirk mqttOutputUnbounded).
 */
export const DEFAULT_MAX_PENDING_OUTPUT_BYTES = 64 * 65536;

/**
 * The named step of writing to a client: whether output it does not read is bounded (the mode's
 * choice).
 */
const OUTPUT_STEPS = { bounded: (quirks: Quirks): boolean => !quirks.mqttOutputUnbounded };
/** Its planted fault (faults/catalogue/robustness.ts), a wrapper of that step. */
const OUTPUT_FAULTS: StepFaults<typeof OUTPUT_STEPS> = {
  'ROB-SLOW-01:output-unbounded': { bounded: () => () => false },
};

/** Numbers the sessions for the traffic observation (one per accepted socket). */
let sessionsAccepted = 0;

/**
 * The session whose chunk of input the transport is handling (`holdWrites`), and what it has sent
 * meanwhile: written in one buffer when the chunk is done (or FLUSH_AFTER_ANSWERS are held). One chunk is handled at a time
 * (synchronously), so one list serves every session and nothing is allocated per chunk. One write
 * of one buffer instead of a corked socket's writev of many small ones (a PUBACK is 4 bytes): the
 * writev and its per-chunk bookkeeping were a third of the reference's CPU per QoS 1 publish
 * (bench/README.md, platform/sink MQTT QoS 1 throughput).
 */
let batching: MqttSession | undefined;
const batched: Buffer[] = [];
/**
 * Held answers leave once this many wait, without waiting for the chunk's end: a chunk of about a
 * hundred QoS 1 publishes takes the platform a millisecond, and a client that waits for its window
 * to be acknowledged sat idle for all of it, then got every PUBACK at once (the two processes took
 * turns instead of working side by side on two cores). Sixteen at a time: the driver's QoS 1
 * throughput against the reference rose from 32,600 to 43,400 publishes/s (median of 5 rounds, each
 * round higher, the same CPU per publish), where one write per answer cost 40 % more CPU per
 * publish and was no faster (bench/README.md "Steadier headroom lines").
 */
const FLUSH_AFTER_ANSWERS = 16;

export class MqttSession {
  /** This connection's number in the traffic events (simulators/platform/traffic.ts). */
  readonly connection = ++sessionsAccepted;
  /** 3 = MQTT 3.1, 4 = MQTT 3.1.1, 5 = MQTT 5; set by the CONNECT. */
  protocolVersion = 4;
  device?: Device;
  /** A gateway session: the device had additionalInfo.gateway = true when it connected. */
  gateway?: GatewayDevices;
  /**
   * A provisioning-only session (user name or client id `provision`): only /provision/request is
   * served.
   */
  provisionOnly = false;
  private nextMessageId = 1;
  private ended = false;
  // The collections below are made at their first use: most connections (a device that only
  // publishes) never use most of them, and an empty Map or Set costs about 200 bytes with its table
  // (bench: memory per held connection).
  private subscriptionsMade: Map<string, MqttQos> | undefined;
  private otaMade: { chunkSizes: Map<string, number>; packages: Map<string, Buffer> } | undefined;
  private awaitingReleaseMade: Set<number> | undefined;
  /**
   * Answers held until the client is quiet: each restarts its window when a packet of the client
   * arrives.
   */
  private held: Set<{ restart(): void; cancel(): void }> | undefined;
  private cleanups: Map<string, () => void> | undefined;

  constructor(
    readonly socket: Socket,
    readonly context: MqttTransportContext,
  ) {}

  /** Granted topic filters and their QoS. */
  get subscriptions(): Map<string, MqttQos> {
    this.subscriptionsMade ??= new Map();
    return this.subscriptionsMade;
  }

  /** MQTT firmware downloads by request id: the chunk size last given, and the package's bytes. */
  get ota(): { chunkSizes: Map<string, number>; packages: Map<string, Buffer> } {
    this.otaMade ??= { chunkSizes: new Map(), packages: new Map() };
    return this.otaMade;
  }

  /** MQTT 3.1.1 QoS 2: ids of publishes processed and answered PUBREC, until their PUBREL. */
  get awaitingRelease(): Set<number> {
    this.awaitingReleaseMade ??= new Set();
    return this.awaitingReleaseMade;
  }

  /** How the traffic log names this connection: its device once known, else its remote port. */
  get label(): string {
    return this.device ? `"${this.device.name}"` : `:${this.socket.remotePort ?? '?'}`;
  }

  get closed(): boolean {
    return this.ended;
  }

  get v5(): boolean {
    return this.protocolVersion === 5;
  }

  /** Writes one packet in the session's protocol version. */
  send(packet: Packet): void {
    if (this.ended || this.socket.destroyed) return;
    this.context.traffic?.({
      protocol: 'mqtt',
      direction: 'out',
      client: this.label,
      connection: this.connection,
      at: Date.now(),
      packet,
    });
    this.write(
      packet.cmd === 'puback' && !packet.reasonCode && !packet.properties
        ? successPuback(packet.messageId ?? 0)
        : mqttPacket.generate(packet, { protocolVersion: this.protocolVersion }),
    );
  }

  /**
   * Writes bytes already encoded (a packet mqtt-packet cannot generate), after what was sent before
   * them. While the transport handles a chunk of this client's input (`holdWrites`) they wait for
   * its end, to leave in one write.
   */
  write(bytes: Buffer): void {
    if (batching === this) {
      if (batched.push(bytes) >= FLUSH_AFTER_ANSWERS) this.writeHeld();
      return;
    }
    if (this.socket.destroyed) return;
    this.socket.write(bytes);
    this.limitPendingOutput();
  }

  /**
   * The transport is about to parse one chunk of this client's input: what the session sends
   * meanwhile is held, and leaves in one write at `flushWrites` (every answer to the packets of one
   * chunk, PUBACKs mostly), or earlier once FLUSH_AFTER_ANSWERS are held.
   */
  holdWrites(): void {
    batching = this;
  }

  /** The chunk is handled: writes what was held, in one buffer. */
  flushWrites(): void {
    if (batching !== this) return;
    batching = undefined;
    this.writeHeld();
  }

  /** Writes what is held, in one buffer (the chunk may go on holding what it sends next). */
  private writeHeld(): void {
    if (batched.length === 0) return;
    const bytes = batched.length === 1 ? batched[0] : Buffer.concat(batched);
    batched.length = 0;
    if (this.socket.destroyed) return; // what was queued for it is dropped with the socket, as before
    this.socket.write(bytes);
    this.limitPendingOutput();
  }

  /** A client that does not read: past maxPendingOutputBytes waiting for it, it is disconnected. */
  private limitPendingOutput(): void {
    if (
      this.socket.writableLength > this.context.maxPendingOutputBytes &&
      withFaults(OUTPUT_STEPS, OUTPUT_FAULTS).bounded(this.context.quirks)
    ) {
      this.context.logger.warn(
        { device: this.device?.name, pending: this.socket.writableLength },
        'MQTT client does not read its messages: disconnected',
      );
      this.release();
      this.socket.destroy(); // what is queued for it is dropped with the socket
    }
  }

  /**
   * Publishes to the client with the QoS of its matching subscription (at most 1). `always` sends
   * even without a subscription, at QoS 1 (responses the platform sends regardless,
   * docs/reference/platform-facts.md §4.3); otherwise a topic nobody subscribed to is not sent
   * (docs/reference/interfaces.md MQTT rule 1).
   */
  publish(topic: string, payload: string | Buffer, options: { always?: boolean } = {}): boolean {
    const qos = this.qosFor(topic) ?? (options.always ? 1 : undefined);
    if (qos === undefined) return false;
    const messageId = qos > 0 ? this.allocateMessageId() : undefined;
    this.send({ cmd: 'publish', topic, payload, qos, retain: false, dup: false, messageId });
    return true;
  }

  /** The QoS granted to the first subscription matching the topic; undefined when none matches. */
  qosFor(topic: string): MqttQos | undefined {
    const subscriptions = this.subscriptionsMade;
    if (!subscriptions) return undefined;
    const exact = subscriptions.get(topic);
    if (exact !== undefined) return exact;
    for (const [filter, qos] of subscriptions) if (topicMatches(filter, topic)) return qos;
    return undefined;
  }

  /**
   * Sends `answer` once the client has sent nothing on this connection for `quietMs` (each packet
   * it sends restarts the window), or after MAX_HOLD_QUIET_WINDOWS windows, whichever comes first;
   * dropped when the session ends. A client that waits for the answer is quiet, so it gets it after
   * one window; a client that goes on without waiting sends its next packets before the answer,
   * however late it sends them within the window: the order the client chose is what the trace
   * shows, not the luck of a race with a fixed delay.
   */
  holdUntilQuiet(quietMs: number, answer: () => void): void {
    let timer: NodeJS.Timeout | undefined;
    const hold = {
      restart: () => {
        clearTimeout(timer);
        timer = setTimeout(fire, quietMs);
      },
      cancel: () => {
        clearTimeout(timer);
        clearTimeout(bound);
        this.held?.delete(hold);
      },
    };
    const fire = () => {
      hold.cancel();
      answer();
    };
    const bound = setTimeout(fire, quietMs * MAX_HOLD_QUIET_WINDOWS);
    this.held ??= new Set();
    this.held.add(hold);
    hold.restart();
  }

  /** A packet of the client arrived: every held answer's quiet window starts again. */
  heard(): void {
    if (this.held) for (const hold of this.held) hold.restart();
  }

  /** Registers an undo for the session's end under a name (replacing one of the same name). */
  onEnd(name: string, cleanup: () => void): void {
    this.cleanups ??= new Map();
    this.cleanups.get(name)?.();
    this.cleanups.set(name, cleanup);
  }

  /** Runs and forgets the undo of that name. */
  cancel(name: string): void {
    this.cleanups?.get(name)?.();
    this.cleanups?.delete(name);
  }

  /**
   * Ends the session: with an MQTT 5 DISCONNECT carrying `reasonCode` when given (and the client is
   * MQTT 5 and connected), then the socket closes. Safe to call more than once.
   */
  end(reasonCode?: number): void {
    if (this.ended) return;
    if (reasonCode !== undefined && this.v5 && (this.device || this.provisionOnly))
      this.send({ cmd: 'disconnect', reasonCode });
    this.release();
    this.flushWrites(); // what was sent before the end leaves before it
    this.socket.end();
    this.socket.destroySoon?.();
  }

  /** The socket closed: drop every subscription to the core and the sub-devices. */
  release(): void {
    if (this.ended) return;
    this.ended = true;
    for (const hold of [...(this.held ?? [])]) hold.cancel();
    for (const cleanup of this.cleanups?.values() ?? []) cleanup();
    this.cleanups?.clear();
    this.gateway?.releaseAll();
    if (this.device && this.context.sessionsByDevice.get(this.device.id) === this)
      this.context.sessionsByDevice.delete(this.device.id);
  }

  private allocateMessageId(): number {
    const id = this.nextMessageId;
    this.nextMessageId = id >= 65535 ? 1 : id + 1;
    return id;
  }
}

/**
 * A success PUBACK's four bytes, as mqtt-packet generates them for MQTT 3.1.1 and for MQTT 5 with
 * reason code 0 (MQTT 5 §3.4.2.1: no reason code and no properties when it is 0), without the
 * generic encoder: most packets a busy session sends are these.
 */
function successPuback(messageId: number): Buffer {
  return Buffer.from([0x40, 0x02, messageId >> 8, messageId & 0xff]);
}
