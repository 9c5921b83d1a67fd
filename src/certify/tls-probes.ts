/**
 * The TLS side of `iotc certify --tls`: watches every handshake of the device-facing TLS servers
 * (HTTPS, mqtts), and runs the client's TLS checks. For each check the client under test is started
 * once more with the same environment while the servers present the certificate of that check on
 * purpose (tls-certificates.ts): the first TLS connection decides, deterministically, whether the
 * client went on to speak over it (it sent a CONNECT or a request: it accepted the certificate,
 * token and all) or broke it off (an alert in the handshake, or a close before sending anything); a
 * connection that never spoke TLS (plain MQTT to the TLS port) decides nothing and the next one is
 * awaited. Then the client is ended and the servers present the session's certificate again.
 */
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import type { TlsMaterial } from '../../lib/tls/certificate';
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

export type ProbeOutcome =
  | { kind: TlsProbeKind; result: 'accepted'; at: number; what: string }
  | { kind: TlsProbeKind; result: 'refused'; at: number; how: string }
  | { kind: TlsProbeKind; result: 'undecided'; why: string };

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
  private probe:
    | { kind: TlsProbeKind; decide: (outcome: ProbeOutcome) => void; spoke: boolean }
    | undefined;

  constructor(private readonly session: TlsMaterial) {}

  attach(server: TlsServer, protocol: 'https' | 'mqtts'): void {
    this.servers.push({ server, protocol });
    server.on('secureConnection', (socket: TLSSocket) => {
      const probe = this.probe;
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
      if (!this.probe) {
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
      this.probe.decide({
        kind: this.probe.kind,
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
   * Presents `material` and runs the client (`start` returns when it ended, or is ended by `end`)
   * until its first TLS connection decides, the client ends, or `boundMs` passes; the session's
   * certificate is presented again after.
   */
  async run(
    kind: TlsProbeKind,
    material: TlsMaterial,
    start: () => { exited: Promise<unknown>; end: () => Promise<unknown> },
    boundMs: number,
  ): Promise<ProbeOutcome> {
    this.present(material);
    let decide: (outcome: ProbeOutcome) => void = () => {};
    const decided = new Promise<ProbeOutcome>((resolve) => {
      decide = resolve;
    });
    this.probe = { kind, decide: (outcome) => decide(outcome), spoke: false };
    const client = start();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
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
    } finally {
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
