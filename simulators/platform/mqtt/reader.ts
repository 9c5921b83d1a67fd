/**
 * Reads one connection's bytes into packets for the transport (index.ts): the packets a busy
 * session receives most, PUBLISH at QoS 0 or 1 without MQTT 5 properties and PINGREQ, are read here
 * straight from the chunk; every other packet, and everything after it in the chunk, goes to
 * mqtt-packet's parser, which decides it exactly as before (errors, their timing, a packet spanning
 * chunks). Two reasons:
 *  - CPU: mqtt-packet's parser copies every packet through a BufferList and calls `debug` on every
 *    state; for a QoS 1 publish it was about a sixth of the reference's CPU (bench/README.md,
 *    platform/sink MQTT QoS 1 throughput);
 *  - memory: the parser (an EventEmitter, a BufferList, a Packet, the CONNECT it keeps as its
 *    settings: about 0.7 KiB of heap) is made when a packet needs it and dropped once it holds
 *    nothing, so a held connection that only publishes or pings has none (bench/README.md,
 *    reference memory per held MQTT connection).
 * The packets read here are the ones mqtt-packet would give for the same bytes (its Packet class,
 * its field order: cmd, retain, qos, dup, length, topic, payload, messageId), so the handlers, the
 * traffic log and `iotc certify`'s intercept see no difference. A fresh parser reads in the
 * settings the last parser took from the last CONNECT (mqtt-packet keeps the CONNECT packet as its
 * settings: its protocolVersion and bridgeMode).
 */
import mqttPacket, { type Packet, type Parser } from 'mqtt-packet';
// mqtt-packet's own packet class (no types of its own): what its parser emits
const MqttPacket = require('mqtt-packet/packet') as new () => Packet;

/**
 * What mqtt-packet's parser reads by (its `settings`): the last CONNECT's, or protocol 4 before
 * any.
 */
interface ParserSettings {
  protocolVersion?: number;
  bridgeMode?: boolean;
}
const BEFORE_CONNECT: ParserSettings = { protocolVersion: 4 };

/**
 * The parser's internals this reader looks at: whether it holds part of a packet (or failed on
 * one).
 */
interface ParserState {
  error: Error | null;
  _stateCounter: number;
  _list: { length: number };
  packet: { length: number };
}

export class MqttReader {
  private parser: Parser | undefined;
  private settings = BEFORE_CONNECT;

  constructor(
    private readonly onPacket: (packet: Packet) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Reads one chunk: emits every packet it completes, in order. */
  read(chunk: Buffer): void {
    let at = 0;
    if (!this.parser) {
      // the parser holds nothing: whole packets at the start of the chunk may be read here
      while (at < chunk.length) {
        const next = this.readSimplePacket(chunk, at);
        if (next < 0) break;
        at = next;
      }
      if (at === chunk.length) return;
    }
    const parser = this.parser ?? this.newParser();
    parser.parse(at === 0 ? chunk : chunk.subarray(at));
    const state = parser as unknown as ParserState;
    // nothing held (and no error to reset on the next chunk): the parser is dropped, made again
    // when needed
    if (!state.error && state._stateCounter === 0 && state._list.length === 0)
      this.parser = undefined;
  }

  /** The announced length of a packet still being received (-1 when none). */
  unfinishedPacketLength(): number {
    return this.parser ? (this.parser as unknown as ParserState).packet.length : -1;
  }

  private newParser(): Parser {
    const parser = mqttPacket.parser({ ...this.settings });
    parser.on('packet', (packet: Packet) => {
      // as mqtt-packet's parser: the packets after a CONNECT are read in its protocol version
      if (packet.cmd === 'connect')
        this.settings = {
          protocolVersion: packet.protocolVersion,
          bridgeMode: (packet as { bridgeMode?: boolean }).bridgeMode,
        };
      this.onPacket(packet);
    });
    parser.on('error', this.onError);
    this.parser = parser;
    return parser;
  }

  /**
   * Reads the packet at `at` if it is whole in the chunk and one read here (PUBLISH at QoS 0 or 1
   * without properties, PINGREQ), emits it and returns where the next begins; otherwise returns -1
   * (the parser reads it).
   */
  private readSimplePacket(chunk: Buffer, at: number): number {
    const first = chunk[at];
    if (first === 0xc0) {
      if (at + 1 >= chunk.length || chunk[at + 1] !== 0) return -1;
      const ping = new MqttPacket();
      ping.cmd = 'pingreq';
      (ping as { length: number }).length = 0;
      this.onPacket(ping);
      return at + 2;
    }
    // PUBLISH (type 3) at QoS 0 or 1; QoS 2 and the malformed QoS 3 are the parser's
    if (first >> 4 !== 3 || (first & 0x06) > 0x02) return -1;
    // the remaining length, a variable byte integer of at most four bytes
    let length = 0;
    let multiplier = 1;
    let position = at + 1;
    for (let bytes = 0; ; bytes++) {
      if (bytes === 4 || position >= chunk.length) return -1;
      const byte = chunk[position++];
      length += (byte & 0x7f) * multiplier;
      multiplier *= 0x80;
      if ((byte & 0x80) === 0) break;
    }
    const end = position + length;
    if (end > chunk.length || position + 2 > end) return -1;
    const topicLength = (chunk[position] << 8) | chunk[position + 1];
    position += 2;
    if (position + topicLength > end) return -1;
    const qos = (first >> 1) & 0x03;
    const topicEnd = position + topicLength;
    let messageId: number | undefined;
    let payloadStart = topicEnd;
    if (qos > 0) {
      if (payloadStart + 2 > end) return -1;
      messageId = (chunk[payloadStart] << 8) | chunk[payloadStart + 1];
      payloadStart += 2;
    }
    if (this.settings.protocolVersion === 5) {
      // MQTT 5: only a publish without properties (property length 0) is read here
      if (payloadStart >= end || chunk[payloadStart] !== 0) return -1;
      payloadStart += 1;
    }
    const packet = new MqttPacket() as Packet & {
      cmd: 'publish';
      retain: boolean;
      qos: 0 | 1;
      dup: boolean;
      length: number;
      topic: string;
      payload: Buffer;
      messageId?: number;
    };
    packet.cmd = 'publish';
    packet.retain = (first & 0x01) !== 0;
    packet.qos = qos as 0 | 1;
    packet.dup = (first & 0x08) !== 0;
    packet.length = length;
    packet.topic = chunk.toString('utf8', position, topicEnd);
    if (messageId !== undefined) packet.messageId = messageId;
    packet.payload = chunk.subarray(payloadStart, end);
    this.onPacket(packet);
    return end;
  }
}
