/**
 * Connections still opening (a TLS handshake under way, an MQTT CONNECT not yet accepted), bounded
 * per listener (issue 26 item 5): each holds a file handle until its deadline (TLS handshake,
 * CONNECT), and 20,000 idle ones used up the process's handles, after which every new HTTP and MQTT
 * client was reset.
 *
 * Beyond the bound the OLDEST opening connection is closed, not the new one: a flood of idle
 * connections then never keeps a new client out (a refusal of the newest let 20,000 idle MQTTS
 * connections refuse every new MQTT client while they lasted, measured). A client is served when it
 * finishes its opening before `max` newer connections arrive; an idle one is the oldest soon
 * enough. One instance per listener, so a flood of one port (MQTTS) does not take the places of
 * another (MQTT). ThingsBoard mode has no bound (the caller does not admit).
 */
import type { Socket } from 'node:net';

/** Default number of opening connections per listener. */
export const DEFAULT_MAX_OPENING = 1000;

export class OpeningConnections {
  private readonly opening = new Map<string, Socket>();

  constructor(private readonly max = DEFAULT_MAX_OPENING) {}

  /**
   * A new TCP connection (the listener's 'connection' event): counted until `opened` or its close.
   */
  readonly admit = (raw: Socket): void => {
    if (this.opening.size >= this.max) {
      const [key, oldest] = this.opening.entries().next().value as [string, Socket];
      this.opening.delete(key);
      oldest.destroy();
    }
    const key = keyOf(raw);
    this.opening.set(key, raw);
    raw.once('close', () => {
      if (this.opening.get(key) === raw) this.opening.delete(key);
    });
  };

  /** The connection finished opening (TLS handshake done, CONNECT accepted): no longer counted. */
  opened(socket: Socket): void {
    this.opening.delete(keyOf(socket));
  }

  /** Connections opening now. */
  get size(): number {
    return this.opening.size;
  }
}

/** The same for the raw socket and the TLS socket over it. */
function keyOf(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}
