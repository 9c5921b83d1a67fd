/**
 * The MQTT packets of the client under test as the instrumented reference saw them
 * (simulators/platform/traffic.ts), in both directions, with the connection each belongs to: what
 * the MQTT checks judge, and how the session knows the client is ready for its steps (subscribed to
 * the topics the steps publish on).
 */
import { GATEWAY_API } from '../../schemas/gateway';
import { PROVISION_MQTT_USER } from '../../schemas/provision-mqtt';
import type { Packet } from 'mqtt-packet';
import type { MqttExchange } from '../report/exchanges';
import { topicMatches } from '../../lib/mqtt/topic-filter';
import { cut } from './device-verdicts';
import type { Evidence } from './device-verdicts';

export interface ObservedPacket {
  /** Epoch milliseconds when it arrived (in) or was sent (out). */
  at: number;
  /** in: from the client; out: from the platform to the client. */
  direction: 'in' | 'out';
  /** The connection's number (one per socket). */
  connection: number;
  packet: Packet;
}

/**
 * A CONNECT that opens a provisioning session (user name or client id `provision`,
 * docs/reference/platform-facts.md §6): the device has no token yet, so its connection is not one
 * of the device's (CLI-BEH-05 and the phase's provocations leave it alone).
 */
export function isProvisioningConnect(packet: Packet): boolean {
  return (
    packet.cmd === 'connect' &&
    (packet.username === PROVISION_MQTT_USER || packet.clientId === PROVISION_MQTT_USER)
  );
}

/** The packets the client sent of one kind. */
export function sent<Command extends Packet['cmd']>(
  packets: readonly ObservedPacket[],
  cmd: Command,
): Array<ObservedPacket & { packet: Extract<Packet, { cmd: Command }> }> {
  return packets.filter(
    (observed): observed is ObservedPacket & { packet: Extract<Packet, { cmd: Command }> } =>
      observed.direction === 'in' && observed.packet.cmd === cmd,
  );
}

/** The PUBLISH packets the platform sent to the client. */
export function delivered(
  packets: readonly ObservedPacket[],
): Array<ObservedPacket & { packet: Extract<Packet, { cmd: 'publish' }> }> {
  return packets.filter(
    (observed): observed is ObservedPacket & { packet: Extract<Packet, { cmd: 'publish' }> } =>
      observed.direction === 'out' && observed.packet.cmd === 'publish',
  );
}

export function payloadOf(packet: Extract<Packet, { cmd: 'publish' }>): string {
  return Buffer.isBuffer(packet.payload) ? packet.payload.toString('utf8') : String(packet.payload);
}

/**
 * The filters the client subscribed to on a connection before a moment (unsubscribes are not taken
 * back).
 */
export function filtersBefore(
  packets: readonly ObservedPacket[],
  connection: number,
  before: number,
): string[] {
  return sent(packets, 'subscribe')
    .filter((observed) => observed.connection === connection && observed.at <= before)
    .flatMap((observed) => observed.packet.subscriptions.map((subscription) => subscription.topic));
}

/**
 * Watches the client's SUBSCRIBE packets and calls `ready` once one connection has filters covering
 * every topic given (the topics the session's steps publish on).
 */
export function readinessWatcher(topics: readonly string[], ready: () => void) {
  const filters = new Map<number, string[]>();
  return (observed: ObservedPacket): void => {
    if (observed.direction !== 'in' || observed.packet.cmd !== 'subscribe') return;
    const own = filters.get(observed.connection) ?? [];
    own.push(...observed.packet.subscriptions.map((subscription) => subscription.topic));
    filters.set(observed.connection, own);
    if (topics.every((topic) => own.some((filter) => topicMatches(filter, topic)))) ready();
  };
}

/**
 * Calls `ready` once the client's v1/gateway/connect for the device of that name has been handled:
 * at its PUBACK (QoS 1; the reference may hold it, certify-device.ts), or as it arrives (QoS 0,
 * which has no answer).
 */
export function gatewayConnectWatcher(deviceName: string, ready: () => void) {
  const awaited = new Set<string>();
  return (observed: ObservedPacket): void => {
    const { packet } = observed;
    if (observed.direction === 'out') {
      if (packet.cmd === 'puback' && awaited.has(`${observed.connection}/${packet.messageId}`))
        ready();
      return;
    }
    if (packet.cmd !== 'publish' || packet.topic !== GATEWAY_API.connect.topic) return;
    try {
      if ((JSON.parse(payloadOf(packet)) as { device?: unknown }).device !== deviceName) return;
    } catch {
      return; // not JSON: not the connect awaited (the payload check says what is wrong with it)
    }
    if (packet.qos === 0) ready();
    else awaited.add(`${observed.connection}/${packet.messageId}`);
  };
}

/**
 * When the client last sent something, and a wait until it has sent nothing for a while: the
 * certification gives a gateway the chance to break an ordering rule before the event the rule is
 * about (gateway-checks.ts GW-RULE-03-RPC), as the reference holds a connect's PUBACK
 * (MqttSession.holdUntilQuiet). Each packet of the client starts the window again; after
 * `maxWindows` windows the wait ends anyway (a client that never pauses).
 */
export class QuietWatch {
  private lastAt = Date.now();
  private readonly waiting = new Set<() => void>();

  /** Told of every packet; only the client's restart the window. */
  seen(observed: ObservedPacket): void {
    if (observed.direction !== 'in') return;
    this.lastAt = Date.now();
    for (const restart of this.waiting) restart();
  }

  until(quietMs: number, maxWindows: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        clearTimeout(bound);
        this.waiting.delete(restart);
        resolve();
      };
      const restart = () => {
        clearTimeout(timer);
        timer = setTimeout(done, quietMs);
      };
      const bound = setTimeout(done, quietMs * maxWindows);
      this.waiting.add(restart);
      clearTimeout(timer);
      timer = setTimeout(done, Math.max(0, quietMs - (Date.now() - this.lastAt)));
    });
  }
}

/**
 * One packet as report evidence (redacted later by the report writer, the token as user name
 * included).
 */
function packetExchange(observed: ObservedPacket): MqttExchange {
  const { packet } = observed;
  const via = `client under test (connection ${observed.connection})`;
  switch (packet.cmd) {
    case 'connect':
      return {
        protocol: 'mqtt',
        via,
        request: {
          packet: 'CONNECT',
          payload: `v${packet.protocolVersion} client id "${packet.clientId}" user name ${packet.username ?? '(none)'}`,
        },
        response: { result: 'sent' },
        elapsedMs: 0,
      };
    case 'publish':
      return {
        protocol: 'mqtt',
        via,
        request: {
          packet: observed.direction === 'in' ? 'PUBLISH' : 'RECEIVED',
          topic: packet.topic,
          qos: packet.qos,
          payload: cut(payloadOf(packet)),
        },
        response: { result: observed.direction === 'in' ? 'sent' : 'received' },
        elapsedMs: 0,
      };
    case 'subscribe':
      return {
        protocol: 'mqtt',
        via,
        request: {
          packet: 'SUBSCRIBE',
          payload: packet.subscriptions.map((item) => `${item.topic} qos ${item.qos}`).join(', '),
        },
        response: { result: 'sent' },
        elapsedMs: 0,
      };
    default:
      return {
        protocol: 'mqtt',
        via,
        request: { packet: 'OTHER', payload: packet.cmd.toUpperCase() },
        response: { result: observed.direction === 'in' ? 'sent' : 'received' },
        elapsedMs: 0,
      };
  }
}

export const MQTT_EVIDENCE: Evidence<ObservedPacket> = { noun: 'packet', exchange: packetExchange };
