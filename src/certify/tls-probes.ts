/**
 * The TLS side of `iotc certify --tls`: watches every handshake of the device-facing TLS servers
 * (HTTPS, mqtts), and runs the client's TLS checks. For each check the client under test is started
 * once more with the same environment while the servers present the certificate of that check on
 * purpose (tls-certificates.ts): the first TLS connection decides, deterministically, whether the
 * client went on to speak over it (it sent a CONNECT or a request: it accepted the certificate,
 * token and all) or broke it off (an alert in the handshake, or a close before sending anything); a
 * connection that never spoke TLS (plain MQTT to the TLS port) decides nothing and the next one is
 * awaited. Then the client is ended and the servers present the session's certificate again.
 *
 * Each connection belongs to the check that was running when it was accepted (a connection of the
 * client just ended, broken off late, is never the next check's refusal), and one that ended before
 * the server sent its certificate decides nothing (the client never saw it). A refusal of a
 * certificate the client must accept is weighed against the harness's own stalls
 * (steps/support/timing.ts): when the harness stood still for more than half of the check's time,
 * the check is run once more, and a second such refusal is INCONCLUSIVE, never a FAIL.
 */
import type { Socket } from 'node:net';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import type { TlsMaterial } from '../../lib/tls/certificate';
import { Inconclusive, StallLog, refuseIfStarvedInAll } from '../../steps/support/timing';
import type { TlsProbeKind } from './tls-certificates';

export const TLS_PROBE_KINDS: readonly TlsProbeKind[] = [
  'untrusted',
  'wrong-name',
  'expired',
  'large-chain',
];

/** What the certificate of each check is, in the words of a verdict. */
export const PROBE_CERTIFICATE: Record<TlsProbeKind, string> = {
  untrusted: 'a self-signed certificate (no authority the client trusts issued it)',
  'wrong-name':
    'a certificate for not-this-server.invalid issued by the authority the client trusts',
  expired: 'a certificate expired a day ago, issued by the trusted authority for the right host',
  'large-chain':
    'a certificate with three intermediate authorities (about 20 KB, more than one TLS record)',
};

/**
 * Whether the client must accept the certificate of each check (a refusal is the FAIL) or refuse it
 * (an acceptance is).
 */
export const PROBE_MUST_ACCEPT: Record<TlsProbeKind, boolean> = {
  untrusted: false,
  'wrong-name': false,
  expired: false,
  'large-chain': true,
};

export type ProbeOutcome =
  | { kind: TlsProbeKind; result: 'accepted'; at: number; what: string }
  | {
      kind: TlsProbeKind;
      result: 'refused';
      at: number;
      how: string;
      /**
       * The harness stood still for more than half of the check's time before the refusal
       * (refuseIfStarvedInAll's words): the refusal may be the client giving up on a starved
       * server, not its verdict on the certificate.
       */
      starved?: string;
    }
  | { kind: TlsProbeKind; result: 'undecided'; why: string }
  /** A refusal of a certificate the client must accept, twice while the harness was starved. */
  | { kind: TlsProbeKind; result: 'inconclusive'; why: string };

type Probe = { kind: TlsProbeKind; decide: (outcome: ProbeOutcome) => void; spoke: boolean };

/** A handshake of the session (not of a check), or a connection on which it failed. */
export interface SessionHandshake {
  at: number;
  server: 'https' | 'mqtts';
  /** TLSv1.3, TLSv1.2 ...; absent when it failed. */
  protocol?: string;
  /** Why it failed: the client's alert, or that the connection did not speak TLS. */
  failed?: string;
}

/** Errors of a connection that never sent a TLS ClientHello: plain MQTT or HTTP to the TLS port. */
const NOT_TLS =
  /WRONG_VERSION_NUMBER|HTTP_REQUEST|UNKNOWN_PROTOCOL|PACKET_LENGTH|RECORD_LENGTH|UNEXPECTED_MESSAGE/;

export class TlsWatch {
  private readonly servers: Array<{ server: TlsServer; protocol: 'https' | 'mqtts' }> = [];
  readonly handshakes: SessionHandshake[] = [];
  private probe: Probe | undefined;
  /**
   * The check each connection was accepted in (null: the session's), by its TCP socket. Under a
   * starved harness the error of a connection of the check just ended (its client killed in the
   * middle of a handshake) was read only after the next check had begun, and made a large chain
   * look refused.
   */
  private readonly acceptedIn = new WeakMap<Socket, Probe | null>();

  constructor(private readonly session: TlsMaterial) {}

  /**
   * The check a TLS connection belongs to: the one running when its TCP connection was accepted
   * (the TLS socket's `_parent`, node's TCP socket under it), or the one running now for a
   * connection not seen accepted.
   */
  private ownerOf(socket: TLSSocket): Probe | undefined {
    const raw = (socket as TLSSocket & { _parent?: Socket })._parent;
    if (raw && this.acceptedIn.has(raw)) return this.acceptedIn.get(raw) ?? undefined;
    return this.probe;
  }

  attach(server: TlsServer, protocol: 'https' | 'mqtts'): void {
    this.servers.push({ server, protocol });
    server.on('connection', (raw: Socket) => this.acceptedIn.set(raw, this.probe ?? null));
    server.on('secureConnection', (socket: TLSSocket) => {
      const probe = this.ownerOf(socket);
      if (!probe) {
        this.handshakes.push({
          at: Date.now(),
          server: protocol,
          protocol: socket.getProtocol() ?? 'TLS',
        });
        return;
      }
      // the client may verify after the handshake (TLS 1.3: its Finished precedes its own checks)
      // and close
      socket.once('close', () => {
        if (!probe.spoke)
          probe.decide({
            kind: probe.kind,
            result: 'refused',
            at: Date.now(),
            how: 'it closed the connection after the handshake without sending anything',
          });
      });
    });
    server.on('tlsClientError', (error: Error & { code?: string }, socket: TLSSocket) => {
      socket.destroy();
      const code = error.code ?? error.message;
      const notTls = NOT_TLS.test(code);
      const probe = this.ownerOf(socket);
      if (!probe) {
        this.handshakes.push({
          at: Date.now(),
          server: protocol,
          failed: notTls
            ? `the connection did not speak TLS (${code})`
            : `the client broke the handshake off (${code})`,
        });
        return;
      }
      if (notTls) return; // not a TLS client hello: decides nothing, the next connection will
      // ended before the server sent its certificate: the client never saw it, so it refused
      // nothing (a connection reset before its ClientHello was read)
      const raw = (socket as TLSSocket & { _parent?: Socket })._parent;
      if (raw && raw.bytesWritten === 0) return;
      probe.decide({
        kind: probe.kind,
        result: 'refused',
        at: Date.now(),
        how: `it broke the handshake off (${code})`,
      });
    });
  }

  /** The client sent a packet or a request (any: over TLS, since only TLS is offered to it). */
  clientSpoke(what: string): void {
    const probe = this.probe;
    if (!probe || probe.spoke) return;
    probe.spoke = true;
    probe.decide({ kind: probe.kind, result: 'accepted', at: Date.now(), what });
  }

  /** True while a check runs: what the client sends belongs to it, not to the session. */
  get probing(): boolean {
    return this.probe !== undefined;
  }

  /**
   * Runs the check of `kind` (run), and once more when the client refused a certificate it must
   * accept while the harness was starved: a second such refusal is INCONCLUSIVE; any other outcome
   * of the second run is the check's. `say` tells the operator of the second run.
   */
  async check(
    kind: TlsProbeKind,
    material: TlsMaterial,
    start: () => { exited: Promise<unknown>; end: () => Promise<unknown> },
    boundMs: number,
    say: (line: string) => void = () => {},
  ): Promise<ProbeOutcome> {
    const first = await this.run(kind, material, start, boundMs);
    if (first.result !== 'refused' || !first.starved || !PROBE_MUST_ACCEPT[kind]) return first;
    say(
      `TLS check ${kind}: the client refused it (${first.how}) while ${first.starved}: once more`,
    );
    const second = await this.run(kind, material, start, boundMs);
    if (second.result !== 'refused' || !second.starved) return second;
    return {
      kind,
      result: 'inconclusive',
      why: `the client refused it twice (${first.how}; ${second.how}), both times while ${second.starved}: a client giving up on a starved server is not its verdict on the certificate`,
    };
  }

  /**
   * Presents `material` and runs the client (`start` returns when it ended, or is ended by `end`)
   * until its first TLS connection decides, the client ends, or `boundMs` passes; the session's
   * certificate is presented again after. A refusal says whether the harness was starved over the
   * check (`starved`).
   */
  async run(
    kind: TlsProbeKind,
    material: TlsMaterial,
    start: () => { exited: Promise<unknown>; end: () => Promise<unknown> },
    boundMs: number,
  ): Promise<ProbeOutcome> {
    const stalls = new StallLog();
    const startedAt = Date.now();
    this.present(material);
    let decide: (outcome: ProbeOutcome) => void = () => {};
    const decided = new Promise<ProbeOutcome>((resolve) => {
      decide = resolve;
    });
    this.probe = { kind, decide: (outcome) => decide(outcome), spoke: false };
    const client = start();
    let timer: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        decided,
        client.exited.then(
          (exit): ProbeOutcome => ({
            kind,
            result: 'undecided',
            why: `the client ended (${String(exit)}) without a TLS connection`,
          }),
        ),
        new Promise<ProbeOutcome>((resolve) => {
          timer = setTimeout(
            () =>
              resolve({ kind, result: 'undecided', why: `no TLS connection within ${boundMs} ms` }),
            boundMs,
          );
        }),
      ]);
      return outcome.result === 'refused' ? weighed(outcome, stalls, startedAt) : outcome;
    } finally {
      stalls.stop();
      clearTimeout(timer);
      await client.end();
      this.probe = undefined;
      this.present(this.session);
    }
  }

  private present(material: TlsMaterial): void {
    for (const { server } of this.servers)
      server.setSecureContext({ cert: material.cert, key: material.key });
  }
}

/**
 * A refusal with `starved` set when the harness stood still for more than half of the time from the
 * check's start to the refusal (the timing model's rule, refuseIfStarvedInAll: the total of its
 * stalls or its worst one): a client that gives up on a server that does not answer in time
 * refuses nothing.
 */
function weighed(
  outcome: Extract<ProbeOutcome, { result: 'refused' }>,
  stalls: StallLog,
  startedAt: number,
): ProbeOutcome {
  try {
    refuseIfStarvedInAll(
      { worstMs: () => stalls.worstBetween(startedAt, outcome.at) },
      stalls.stalledBetween(startedAt, outcome.at),
      Math.max(0, outcome.at - startedAt),
      `the ${outcome.kind} check until the refusal`,
    );
    return outcome;
  } catch (error) {
    if (!(error instanceof Inconclusive)) throw error;
    return { ...outcome, starved: error.message.replace(/^INCONCLUSIVE: /, '') };
  }
}
