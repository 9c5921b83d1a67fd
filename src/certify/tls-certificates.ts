/**
 * The certificates of `iotc certify --tls`: the one the servers present in the session (issued by
 * iotc's persistent certificate authority for the hosts the client is given, or the operator's own,
 * --tls-cert/--tls-key), and the ones presented on purpose while the client's TLS checks run
 * (tls-probes.ts): one no authority the client trusts issued, one for another subject name, one
 * expired, and one that comes with a large chain of intermediate authorities (over 16 KiB, more
 * than one TLS record: Device Advisor's TLS_LargeServerCert).
 */
import { readFileSync } from 'node:fs';
import { type TlsMaterial, issueCertificate } from '../../lib/tls/certificate';
import { keptCertificateAuthority } from '../../lib/tls/persistent-certificate';

export type TlsProbeKind = 'untrusted' | 'wrong-name' | 'expired' | 'large-chain';

export interface CertifyTls {
  /** What the servers present in the session. */
  session: TlsMaterial;
  /**
   * The file of the CA the client is told to trust (IOTC_CERTIFY_CA_FILE); the operator's: none of
   * iotc's.
   */
  caFile?: string;
  /** Where the session's certificate came from, for the certificate's title. */
  source: string;
  /**
   * The certificates of the TLS checks; a kind absent cannot be presented (the operator's
   * certificate), and why.
   */
  probes: Partial<Record<TlsProbeKind, TlsMaterial>>;
  missing: Partial<Record<TlsProbeKind, string>>;
}

const DAY_MS = 86_400_000;
/** A name no host answers (RFC 2606): the subject of the wrong-name certificate. */
const WRONG_NAME = 'not-this-server.invalid';
/** Intermediate authorities of the large chain, and the names padding each certificate of it. */
const CHAIN_DEPTH = 3;
const PADDING_NAMES = 120;

export async function certifyTls(
  hosts: readonly string[],
  given: { stateDir: string } | { certFile: string; keyFile: string },
): Promise<CertifyTls> {
  const untrusted = await issueCertificate(hosts); // self-signed: no authority the client trusts issued it
  if ('certFile' in given) {
    const operator =
      'the operator gave the server certificate (--tls-cert): iotc holds no key of an authority the client trusts, so it cannot issue';
    return {
      session: {
        cert: readFileSync(given.certFile, 'utf8'),
        key: readFileSync(given.keyFile, 'utf8'),
      },
      source: `the operator's certificate ${given.certFile}`,
      probes: { untrusted },
      missing: {
        'wrong-name': `${operator} one for another name`,
        expired: `${operator} an expired one`,
        'large-chain': `${operator} one with a large chain`,
      },
    };
  }
  const authority = await keptCertificateAuthority(given.stateDir);
  const now = Date.now();
  const padding = (prefix: string) =>
    Array.from({ length: PADDING_NAMES }, (_, index) => `${prefix}-${index}.large-chain.invalid`);
  let issuer: TlsMaterial = authority;
  const intermediates: string[] = [];
  for (let level = 1; level <= CHAIN_DEPTH; level += 1) {
    issuer = await issueCertificate(padding(`ca${level}`), {
      ca: issuer,
      authority: true,
      commonName: `iotc certification intermediate ${level}`,
    });
    intermediates.unshift(issuer.cert);
  }
  const large = await issueCertificate([...hosts, ...padding('leaf')], { ca: issuer });
  return {
    session: await issueCertificate(hosts, { ca: authority }),
    caFile: authority.caFile,
    source: `iotc's certificate authority ${authority.caFile}`,
    probes: {
      untrusted,
      'wrong-name': await issueCertificate([WRONG_NAME], { ca: authority }),
      expired: await issueCertificate(hosts, {
        ca: authority,
        notBefore: new Date(now - 30 * DAY_MS),
        notAfter: new Date(now - DAY_MS),
      }),
      // the leaf first, then each authority up to the one iotc's issued (RFC 8446 §4.4.2: the
      // sender's order)
      'large-chain': { cert: [large.cert, ...intermediates].join('\n'), key: large.key },
    },
    missing: {},
  };
}
