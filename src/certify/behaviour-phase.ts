/**
 * The behaviour over time of an MQTT client under test (`iotc certify device --transport mqtt
 * --duration <ms>`), provoked on purpose after the steps: the first QoS 1 PUBLISH the client sends
 * is never acknowledged and its connection is dropped at once (a client that publishes nothing at
 * QoS 1 within ARM_WINDOW_MS has its connection dropped while idle); the next REFUSED_CONNECTS
 * CONNECTs are closed without a CONNACK, and the one after is accepted. The CONNECT times after the
 * drop show backoff and jitter (CLI-BEH-01, -02); what the client sends once accepted shows whether
 * it sent the unacknowledged PUBLISH again with DUP (CLI-BEH-03). Every connection's end is noted
 * for the keep-alive and the one-connection checks (client-behaviour-checks.ts).
 */
import type { Packet } from 'mqtt-packet';
import type { MqttIntercept } from '../../simulators/platform';
import { GATEWAY_API } from '../../schemas/gateway';
import { isProvisioningConnect } from './mqtt-packets';

/**
 * CONNECTs closed unanswered after the drop; the next is accepted: five connects, four delays
 * judged and one more.
 */
export const REFUSED_CONNECTS = 4;
/**
 * The phase begins this long after the steps: what the client does in answer to them (its RPC
 * reply, its reading of the attribute, the rest of its script) is left alone, and the phase judges
 * the client in its steady state.
 */
export const SETTLE_AFTER_STEPS_MS = 2000;
/**
 * How long after the steps the phase waits for a QoS 1 PUBLISH to leave unacknowledged before it
 * drops an idle one.
 */
export const ARM_WINDOW_MS = 5000;

export interface ReconnectRecord {
  /** When the certifier dropped the connection, and why. */
  droppedAt?: number;
  dropped?: 'a QoS 1 PUBLISH left unacknowledged' | 'idle';
  /** The PUBLISH never acknowledged. */
  withheld?: { connection: number; topic: string; payload: string; messageId?: number };
  /** The CONNECT times after the drop: the refused ones, then the accepted one. */
  connects: number[];
  /** The connection accepted after the refusals. */
  accepted?: { connection: number; at: number };
}

export class BehaviourPhase {
  readonly record: ReconnectRecord = { connects: [] };
  /** When each connection ended (the platform's close), by connection number. */
  readonly closedAt = new Map<number, number>();
  private state: 'idle' | 'armed' | 'refusing' | 'done' = 'idle';
  private readonly closers = new Map<number, () => void>();
  /**
   * The client's other connections still open when each CONNECT arrived, in the order the platform
   * saw the events (no clock): a CONNECT while an accepted connection of the device is open is a
   * second connection (CLI-BEH-05).
   */
  readonly openAtConnect = new Map<number, number[]>();
  private accepted: () => void = () => {};
  private droppedNow: () => void = () => {};
  /** Settles once the armed phase has dropped a connection. */
  readonly whenDropped = new Promise<void>((resolve) => {
    this.droppedNow = resolve;
  });
  /** Settles once the connect after the refusals has been accepted. */
  readonly reconnected = new Promise<void>((resolve) => {
    this.accepted = resolve;
  });

  /**
   * Provisioning sessions (user name `provision`): no connection of the device, never provoked nor
   * counted.
   */
  private readonly provisioning = new Set<number>();

  readonly intercept: MqttIntercept = ({ connection, packet, close }) => {
    if (isProvisioningConnect(packet)) this.provisioning.add(connection);
    if (this.provisioning.has(connection)) return 'handle';
    this.closers.set(connection, close);
    if (packet.cmd === 'connect')
      this.openAtConnect.set(
        connection,
        [...this.closers.keys()].filter((other) => other !== connection),
      );
    // a gateway's device connect is not taken: its PUBACK is held for GW-RULE-04-WAIT already
    // (certify-device.ts)
    if (
      this.state === 'armed' &&
      packet.cmd === 'publish' &&
      packet.qos === 1 &&
      packet.topic !== GATEWAY_API.connect.topic
    ) {
      this.record.withheld = {
        connection,
        topic: packet.topic,
        payload: payloadText(packet),
        ...(packet.messageId === undefined ? {} : { messageId: packet.messageId }),
      };
      this.dropped('a QoS 1 PUBLISH left unacknowledged');
      return 'close';
    }
    if (this.state === 'refusing' && packet.cmd === 'connect') {
      const at = Date.now();
      this.record.connects.push(at);
      if (this.record.connects.length <= REFUSED_CONNECTS) return 'close';
      this.state = 'done';
      this.record.accepted = { connection, at };
      this.accepted();
    }
    return 'handle';
  };

  readonly connectionClosed = (connection: number): void => {
    this.closedAt.set(connection, Date.now());
    this.closers.delete(connection);
  };

  /** From now on the next QoS 1 PUBLISH is withheld and its connection dropped. */
  arm(): void {
    if (this.state === 'idle') this.state = 'armed';
  }

  /**
   * No QoS 1 PUBLISH came: the newest open connection is dropped as it is. False when none is open.
   */
  dropIdle(): boolean {
    if (this.state !== 'armed') return this.state !== 'idle';
    const newest = Math.max(...this.closers.keys());
    const close = this.closers.get(newest);
    if (!close) return false;
    this.dropped('idle');
    close();
    return true;
  }

  /** Whether the armed phase has dropped a connection yet. */
  get hasDropped(): boolean {
    return this.record.droppedAt !== undefined;
  }

  private dropped(why: NonNullable<ReconnectRecord['dropped']>): void {
    this.record.droppedAt = Date.now();
    this.record.dropped = why;
    this.state = 'refusing';
    this.droppedNow();
  }
}

function payloadText(packet: Extract<Packet, { cmd: 'publish' }>): string {
  return Buffer.isBuffer(packet.payload) ? packet.payload.toString('utf8') : String(packet.payload);
}
