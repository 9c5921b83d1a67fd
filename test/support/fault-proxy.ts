/**
 * A TCP proxy that puts a bad network between the harness and a target: latency and jitter in both
 * directions, resets (periodic or random, one connection or all of them) and half-closes. For tests
 * only: it listens on 127.0.0.1 on a port the OS chooses and forwards to a loopback upstream only,
 * holds a bounded number of connections and a bounded number of bytes in flight per direction (it
 * stops reading a side whose bytes are still delayed), and `stop()` closes every socket and timer
 * it opened.
 *
 * Hand-written: of the npm packages that proxy TCP, toxiproxy-node-client is only a client of
 * Toxiproxy's Go server (a binary that cannot be installed from the npm registry here),
 * node-tcp-proxy and tcp-proxy.js forward without faults, and toxy is HTTP-only and unmaintained.
 * The faults this project needs fit in this one file.
 *
 * Delays keep TCP's order: a chunk is written at its arrival time plus latency plus a random
 * jitter, but never before the chunk ahead of it on the same direction (a stream is not reordered,
 * only stretched).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';

export interface FaultOptions {
  /** Delay added to every chunk, each way (ms). */
  latencyMs?: number;
  /** Up to this much more, uniformly at random, per chunk (ms); order is kept. */
  jitterMs?: number;
  /** Every this many ms, reset connections (RST to both sides). */
  resetEveryMs?: number;
  /** Which connections a periodic reset takes: one at random (default) or every open one. */
  resetWhich?: 'one' | 'all';
  /**
   * Every this many ms, half-close one connection at random: the client reads EOF, the upstream is
   * ended.
   */
  halfCloseEveryMs?: number;
  /**
   * A connection is reset only once it has lived this long (ms, default 0): lets a handshake
   * through.
   */
  minAgeMs?: number;
}

export interface FaultProxyOptions extends FaultOptions {
  upstreamHost?: string;
  upstreamPort: number;
  /** At most this many connections at once; more are refused (reset at accept). Default 256. */
  maxConnections?: number;
  /** Bytes held back per direction of a connection before its source is paused. Default 1 MiB. */
  maxBufferedBytes?: number;
}

export interface FaultProxyStats {
  accepted: number;
  refused: number;
  resets: number;
  halfCloses: number;
  /**
   * Resets that could not be sent: Node's resetAndDestroy answers an error (syscall 'reset', libuv
   * EINVAL on a socket shutting down) and sends no RST; counted to tell whether a side was left
   * open without the other noticing.
   */
  resetFailures: number;
  bytesUp: number;
  bytesDown: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

interface Pipe {
  client: Socket;
  upstream: Socket;
  openedAt: number;
  timers: Set<NodeJS.Timeout>;
  closed: boolean;
}

export class FaultProxy {
  readonly stats: FaultProxyStats = {
    accepted: 0,
    refused: 0,
    resets: 0,
    halfCloses: 0,
    resetFailures: 0,
    bytesUp: 0,
    bytesDown: 0,
  };
  private faults: FaultOptions;
  private readonly pipes = new Set<Pipe>();
  private readonly server: Server;
  private resetTimer?: NodeJS.Timeout;
  private halfCloseTimer?: NodeJS.Timeout;
  private readonly upstreamHost: string;
  private readonly upstreamPort: number;
  private readonly maxConnections: number;
  private readonly maxBufferedBytes: number;
  private listeningPort = 0;

  private constructor(options: FaultProxyOptions) {
    this.upstreamHost = options.upstreamHost ?? '127.0.0.1';
    if (!LOOPBACK.has(this.upstreamHost))
      throw new Error(`the fault proxy forwards to loopback only, not to ${this.upstreamHost}`);
    this.upstreamPort = options.upstreamPort;
    this.maxConnections = options.maxConnections ?? 256;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1 << 20;
    this.faults = {};
    this.server = createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    this.setFaults(options);
  }

  /** Starts a proxy on 127.0.0.1 at a port the OS chooses. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    const address = proxy.server.address();
    proxy.listeningPort = typeof address === 'object' && address ? address.port : 0;
    return proxy;
  }

  get port(): number {
    return this.listeningPort;
  }

  /**
   * The same URL with the proxy's host and port instead of the upstream's (`mqtt://127.0.0.1:1883`
   * -> proxy).
   */
  url(upstreamUrl: string): string {
    const url = new URL(upstreamUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString().replace(/\/$/, '');
  }

  /**
   * Replaces the faults (latency, resets) from now on; open connections keep going under the new
   * ones.
   */
  setFaults(faults: FaultOptions): void {
    this.faults = { ...faults };
    clearInterval(this.resetTimer);
    clearInterval(this.halfCloseTimer);
    this.resetTimer = undefined;
    this.halfCloseTimer = undefined;
    if (faults.resetEveryMs)
      this.resetTimer = setInterval(
        () => this.resetSome(faults.resetWhich ?? 'one'),
        faults.resetEveryMs,
      ).unref();
    if (faults.halfCloseEveryMs)
      this.halfCloseTimer = setInterval(() => this.halfCloseOne(), faults.halfCloseEveryMs).unref();
  }

  /** Connections open now. */
  get open(): number {
    return this.pipes.size;
  }

  /** Resets connections now: RST to the client and to the upstream. Returns how many. */
  resetSome(which: 'one' | 'all' = 'one'): number {
    const now = performance.now();
    const old = [...this.pipes].filter(
      (pipe) => now - pipe.openedAt >= (this.faults.minAgeMs ?? 0),
    );
    const victims =
      which === 'all' ? old : old.length ? [old[Math.floor(Math.random() * old.length)]!] : [];
    for (const pipe of victims) {
      this.stats.resets++;
      this.close(pipe, true);
    }
    return victims.length;
  }

  /**
   * Half-closes one connection now: the client reads EOF (its own writes are dropped), the upstream
   * is ended.
   */
  halfCloseOne(): boolean {
    const pipes = [...this.pipes];
    const pipe = pipes[Math.floor(Math.random() * pipes.length)];
    if (!pipe) return false;
    this.stats.halfCloses++;
    pipe.closed = true; // nothing more is forwarded either way
    for (const timer of pipe.timers) clearTimeout(timer);
    pipe.timers.clear();
    pipe.client.end();
    pipe.upstream.end();
    // a client that never closes its side is not kept for ever
    const timer = setTimeout(() => this.close(pipe, false), 5_000);
    timer.unref();
    pipe.timers.add(timer);
    return true;
  }

  /** Stops listening and closes every connection and timer; resolves once the server has closed. */
  async stop(): Promise<void> {
    clearInterval(this.resetTimer);
    clearInterval(this.halfCloseTimer);
    for (const pipe of this.pipes) this.close(pipe, false);
    if (this.server.listening) {
      const closed = once(this.server, 'close');
      this.server.close();
      await closed;
    }
  }

  private accept(client: Socket): void {
    if (this.pipes.size >= this.maxConnections) {
      this.stats.refused++;
      client.resetAndDestroy();
      return;
    }
    this.stats.accepted++;
    const upstream = connect({
      host: this.upstreamHost,
      port: this.upstreamPort,
      allowHalfOpen: true,
    });
    const pipe: Pipe = {
      client,
      upstream,
      openedAt: performance.now(),
      timers: new Set(),
      closed: false,
    };
    this.pipes.add(pipe);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.forward(pipe, client, upstream, 'bytesUp');
    this.forward(pipe, upstream, client, 'bytesDown');
    // an error on one side (a reset by its peer) resets the other: what a network path does. A side
    // that closed normally has sent its FIN, which follows its delayed data to the other side
    // (forward): the pipe goes once both sides have closed, not before, or the data still on its
    // way would be lost
    let closedSides = 0;
    for (const socket of [client, upstream])
      socket
        .on('error', (error: NodeJS.ErrnoException) => {
          if (error.syscall === 'reset') {
            // should not happen (resettable): Node has dropped the handle without closing it, so
            // the peer would hear nothing; counted, and the test bed's own tests require 0
            this.stats.resetFailures++;
          }
          this.close(pipe, true);
        })
        .on('close', () => {
          if (++closedSides === 2) this.close(pipe, false);
        });
  }

  /**
   * Copies `from` to `to` with the delays, pausing `from` while more than maxBufferedBytes are held
   * back.
   */
  private forward(pipe: Pipe, from: Socket, to: Socket, counter: 'bytesUp' | 'bytesDown'): void {
    let held = 0;
    let lastDue = 0;
    // this direction's chunks (and its FIN) in order, each with the time it is due; one timer for
    // the head
    const queue: Array<{ due: number; action: () => void }> = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = (): void => {
      if (timer) pipe.timers.delete(timer);
      timer = undefined;
      while (!pipe.closed && queue.length && queue[0]!.due <= performance.now())
        queue.shift()!.action();
      if (pipe.closed || !queue.length) return;
      timer = setTimeout(pump, Math.max(1, queue[0]!.due - performance.now()));
      pipe.timers.add(timer);
    };
    const later = (action: () => void): void => {
      const { latencyMs = 0, jitterMs = 0 } = this.faults;
      lastDue = Math.max(lastDue, performance.now() + latencyMs + Math.random() * jitterMs);
      queue.push({ due: lastDue, action });
      if (!timer) pump();
    };
    from.on('data', (chunk: Buffer) => {
      held += chunk.length;
      if (held > this.maxBufferedBytes) from.pause();
      later(() => {
        held -= chunk.length;
        this.stats[counter] += chunk.length;
        if (!to.destroyed && to.writable) to.write(chunk);
        if (held <= this.maxBufferedBytes && from.isPaused()) from.resume();
      });
    });
    // a FIN goes through after the data ahead of it: the half-close is kept, the other direction
    // stays open
    from.on('end', () =>
      later(() => {
        if (!to.destroyed && to.writable) to.end();
      }),
    );
  }

  private close(pipe: Pipe, reset: boolean): void {
    if (!this.pipes.has(pipe)) return;
    this.pipes.delete(pipe);
    pipe.closed = true;
    for (const timer of pipe.timers) clearTimeout(timer);
    pipe.timers.clear();
    for (const socket of [pipe.client, pipe.upstream]) {
      if (socket.destroyed) continue;
      if (reset && resettable(socket)) socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}

/**
 * A proxy per interface of a target (HTTP, MQTT, ...), all with the same faults; `stop()` stops all
 * of them.
 */
export class FaultProxies {
  private constructor(readonly byName: Map<string, FaultProxy>) {}

  static async start(
    upstreams: Record<string, string | undefined>,
    faults: FaultOptions = {},
  ): Promise<FaultProxies> {
    const byName = new Map<string, FaultProxy>();
    const proxies = new FaultProxies(byName);
    try {
      for (const [name, url] of Object.entries(upstreams)) {
        if (!url) continue;
        const parsed = new URL(url);
        byName.set(
          name,
          await FaultProxy.start({
            ...faults,
            upstreamHost: parsed.hostname.replace(/^\[|\]$/g, ''),
            upstreamPort: Number(parsed.port),
          }),
        );
      }
    } catch (error) {
      await proxies.stop();
      throw error;
    }
    return proxies;
  }

  /** The proxied URL of the interface `name` (the upstream URL with the proxy's address). */
  url(name: string, upstreamUrl: string): string {
    const proxy = this.byName.get(name);
    if (!proxy) throw new Error(`no fault proxy for ${name}`);
    return proxy.url(upstreamUrl);
  }

  setFaults(faults: FaultOptions, names?: string[]): void {
    for (const [name, proxy] of this.byName)
      if (!names || names.includes(name)) proxy.setFaults(faults);
  }

  stats(): Record<string, FaultProxyStats> {
    return Object.fromEntries([...this.byName].map(([name, proxy]) => [name, { ...proxy.stats }]));
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.byName.values()].map((proxy) => proxy.stop()));
  }
}

/**
 * Whether an RST can be sent on this socket. libuv refuses one (uv_tcp_close_reset: EINVAL) once
 * the socket's write side is shut down (its FIN forwarded, `end()` called), and Node then drops the
 * handle without closing it (net.js Socket._destroy: the reset's error is emitted and `_handle` set
 * to null): the descriptor stays open and the peer hears nothing, neither RST nor the end of the
 * connection. Such a socket is destroyed instead: its FIN has gone already, and a write of the peer
 * now meets the closed descriptor's RST. A socket still connecting has no connection to reset.
 */
function resettable(socket: Socket): boolean {
  return socket.readyState !== 'opening' && !socket.writableEnded;
}
