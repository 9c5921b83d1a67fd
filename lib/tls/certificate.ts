/**
 * A self-signed certificate for the reference servers' TLS endpoints (HTTPS device API, mqtts and the
 * connector's SSL), generated at start-up by the selfsigned package. Its PEM doubles as the CA a client trusts.
 */
import type selfsignedModule from 'selfsigned';

export interface TlsMaterial {
  /** PEM certificate; trust it as the CA. */
  cert: string;
  /** PEM private key. */
  key: string;
}

export async function generateSelfSignedCertificate(
  hosts: string[] = ['localhost', '127.0.0.1'],
): Promise<TlsMaterial> {
  const altNames = hosts.map((host) =>
    /^[\d.]+$/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host },
  );
  // loaded at the first certificate, not with this module: selfsigned and its x509/asn1 libraries cost ~55 ms of CPU
  // to load, and a worker of a parallel `iotc run` imports this module but takes its certificates from the run
  const selfsigned = require('selfsigned') as typeof selfsignedModule;
  const pems = await selfsigned.generate([{ name: 'commonName', value: hosts[0] ?? 'localhost' }], {
    keyType: 'ec', // P-256: generated in milliseconds, where RSA 2048 takes a quarter of a second at every start
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames }],
  });
  return { cert: pems.cert, key: pems.private };
}
