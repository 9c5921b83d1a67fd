/**
 * Source ports for a generator that holds more connections to one address than the kernel hands
 * out cheaply.
 *
 * Linux's connect() picks an ephemeral port from ip_local_port_range, even ports first, and keeps
 * the odd ones for bind() (net/ipv4/inet_hashtables.c __inet_hash_connect, since Linux 4.6). Once
 * the even half is taken by connections to the same address and port, every further connect()
 * walks the whole even half, checking each port's connections, before it tries an odd one. Measured
 * on this project's 2-core machine (kernel 6.18, range 32768-60999, 14,116 even ports), plain
 * connections to one loopback listener one after another: 0.05-0.1 ms of CPU each up to 14,000,
 * 0.65-0.75 ms each from 14,000 on, spent in the kernel on the generator's only thread. At 1,000
 * CONNECT/s that is two thirds of a core, and `iotc load mqtt-connect` fell to 580-790 CONNECT/s
 * with CONNACK waits of 1.5 s past about 15,000 connections while the target stayed 80 % idle.
 * bind() with port 0 is no way out: it was dearer still from 6,000 on.
 *
 * So past the kernel's cheap half, the generator names the port itself: the odd ports of the range,
 * from a random place (so that several generator processes on one machine rarely meet), each tried
 * once in turn; a port someone holds (EADDRINUSE at bind, EADDRNOTAVAIL at connect, a TIME_WAIT of an
 * earlier run) is passed over. Binding a named port costs a lookup, not a walk. The local address is
 * the one the kernel chose for this destination's earlier connections, so a remote target is
 * reached by the same route. Written by hand: Node exposes neither IP_BIND_ADDRESS_NO_PORT nor the
 * port range, and no package plans source ports.
 */
import { readFileSync } from 'node:fs';

/** The ephemeral port range, from /proc (Linux); undefined elsewhere: the kernel keeps choosing. */
export function ephemeralPortRange(
  path = '/proc/sys/net/ipv4/ip_local_port_range',
): { low: number; high: number } | undefined {
  try {
    const [low, high] = readFileSync(path, 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 0 && high > low)
      return { low, high };
  } catch {
    // not Linux, or /proc not mounted: leave the choice to the kernel
  }
  return undefined;
}

/**
 * Connections to one destination left to the kernel before ports are named: its even half of the
 * range, less some room for the machine's other connections to that destination.
 */
const ROOM = 256;

/**
 * Named ports one connect tries before it leaves the choice to the kernel again (a range someone
 * else fills: dear, but never endless).
 */
const TRIES = 64;

/** Errors of a named port someone else holds: the next one is tried. */
export function portTaken(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL';
}

/** The source ports of one destination (host and port) of this process. */
export class SourcePorts {
  /** Connections open to the destination, however their port was chosen. */
  private open = 0;
  private localAddress: string | undefined;
  private next: number;
  /** The odd ports of the range (as many as the even ones, give or take one). */
  private readonly oddPorts: number;
  private readonly kernelShare: number;

  constructor(private readonly range: { low: number; high: number } | undefined) {
    const span = range ? range.high - range.low + 1 : 0;
    this.oddPorts = Math.floor(span / 2);
    this.kernelShare = Math.max(0, this.oddPorts - ROOM);
    this.next = Math.floor(Math.random() * Math.max(this.oddPorts, 1));
  }

  /** Named ports one connect may try (then the kernel chooses). */
  readonly tries = TRIES;

  /**
   * The local address and port for the next connection, or undefined while the kernel's choice
   * is cheap (or the range is unknown, or no earlier connection told the local address yet).
   */
  choose(): { localAddress: string; localPort: number } | undefined {
    if (!this.range || this.open < this.kernelShare || !this.localAddress) return undefined;
    const odd = this.range.low | 1;
    const port = odd + 2 * (this.next % this.oddPorts);
    this.next++;
    return port <= this.range.high
      ? { localAddress: this.localAddress, localPort: port }
      : undefined;
  }

  /** A connection to the destination opened (with the local address it got). */
  opened(localAddress: string | undefined): void {
    this.open++;
    this.localAddress ??= localAddress;
  }

  /** A connection to the destination closed. */
  closed(): void {
    this.open = Math.max(0, this.open - 1);
  }
}

const byDestination = new Map<string, SourcePorts>();

/** Sets the planner of a destination (`host:port`): a test gives one a range of its own. */
export function planSourcePorts(destination: string, ports: SourcePorts): void {
  byDestination.set(destination, ports);
}

/** The planner of one destination (`host:port`), made at its first connection. */
export function sourcePortsFor(destination: string): SourcePorts {
  let ports = byDestination.get(destination);
  if (!ports) {
    ports = new SourcePorts(ephemeralPortRange());
    byDestination.set(destination, ports);
  }
  return ports;
}
