/**
 * Certificates for the reference servers' TLS endpoints (HTTPS device API, mqtts and the connector's SSL), generated
 * by the selfsigned package: self-signed (its PEM doubles as the CA a client trusts), or issued by a certificate
 * authority of iotc's own (`iotc certify --tls`, persistent-certificate.ts keeps it), which also issues the
 * certificates a client under test must refuse (another subject name, expired) or must cope with (a large chain).
 */
import type selfsignedModule from 'selfsigned';

export interface TlsMaterial {
  /** PEM certificate; trust it as the CA (self-signed), or the leaf an authority issued. */
  cert: string;
  /** PEM private key. */
  key: string;
}

const DAY_MS = 86_400_000;

export interface CertificateOptions {
  /** The issuer; absent: self-signed. */
  ca?: TlsMaterial;
  /** A certificate authority (may sign others) rather than a server certificate. */
  authority?: boolean;
  notBefore?: Date;
  notAfter?: Date;
  /** The common name (default: the first host). */
  commonName?: string;
}

/** A certificate for `hosts` (DNS names or IP addresses, in its subjectAltName), by default valid for 30 days. */
export async function issueCertificate(
  hosts: readonly string[],
  options: CertificateOptions = {},
): Promise<TlsMaterial> {
  const altNames = hosts.map((host) =>
    /^[\d.]+$/.test(host) || host.includes(':')
      ? { type: 7 as const, ip: host }
      : { type: 2 as const, value: host },
  );
  // loaded at the first certificate, not with this module: selfsigned and its x509/asn1 libraries cost ~55 ms of CPU
  // to load, and a worker of a parallel `iotc run` imports this module but takes its certificates from the run
  const selfsigned = require('selfsigned') as typeof selfsignedModule;
  const pems = await selfsigned.generate(
    [{ name: 'commonName', value: options.commonName ?? hosts[0] ?? 'localhost' }],
    {
      keyType: 'ec', // P-256: generated in milliseconds, where RSA 2048 takes a quarter of a second at every start
      algorithm: 'sha256',
      ...(options.notBefore ? { notBeforeDate: options.notBefore } : {}),
      notAfterDate: options.notAfter ?? new Date(Date.now() + 30 * DAY_MS),
      ...(options.ca ? { ca: options.ca } : {}),
      extensions: options.authority
        ? [
            { name: 'basicConstraints', cA: true, critical: true },
            { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
            ...(altNames.length ? [{ name: 'subjectAltName' as const, altNames }] : []),
          ]
        : !options.ca
          ? [{ name: 'subjectAltName', altNames }] // self-signed: as it always was (its PEM is the trust anchor)
          : [
              { name: 'basicConstraints', cA: false },
              { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
              { name: 'extKeyUsage', serverAuth: true },
              { name: 'subjectAltName', altNames },
            ],
    },
  );
  return { cert: pems.cert, key: pems.private };
}

export async function generateSelfSignedCertificate(
  hosts: string[] = ['localhost', '127.0.0.1'],
): Promise<TlsMaterial> {
  return issueCertificate(hosts);
}
