/**
 * The certificate of `iotc simulate --state-dir`: generated once and kept in the state directory,
 * so that a CA file a target profile names (tls.caFile) still verifies the server after a restart.
 * A new one is made only when there is none, when it was made for other host names, or when it
 * expires within a day.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSelfSignedCertificate, issueCertificate, type TlsMaterial } from './certificate';

const DAY_MS = 86_400_000;

interface KeptCertificate extends TlsMaterial {
  /** The certificate's file: the CA to trust. */
  caFile: string;
  /** Whether this start made it (false: the one kept from an earlier start). */
  created: boolean;
}

export async function keptCertificate(stateDir: string, hosts: string[]): Promise<KeptCertificate> {
  const dir = join(stateDir, 'tls');
  const files = {
    cert: join(dir, 'ca.pem'),
    key: join(dir, 'key.pem'),
    hosts: join(dir, 'hosts.json'),
  };
  if (Object.values(files).every((file) => existsSync(file))) {
    const cert = readFileSync(files.cert, 'utf8');
    const key = readFileSync(files.key, 'utf8');
    const sameHosts = readFileSync(files.hosts, 'utf8').trim() === JSON.stringify(hosts);
    const validTo = Date.parse(new X509Certificate(cert).validTo);
    if (sameHosts && validTo - Date.now() > DAY_MS)
      return { cert, key, caFile: files.cert, created: false };
  }
  const made = await generateSelfSignedCertificate(hosts);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(files.key, made.key, { mode: 0o600 });
  writeFileSync(files.cert, made.cert);
  writeFileSync(files.hosts, `${JSON.stringify(hosts)}\n`);
  return { ...made, caFile: files.cert, created: true };
}

/**
 * How long iotc's certificate authority is valid: firmware built with it trusted keeps working for
 * years.
 */
const AUTHORITY_DAYS = 3650;

/**
 * iotc's own certificate authority (`iotc certify --tls`): made once and kept in
 * `<stateDir>/tls/authority/` (ca.pem, the file a device trusts, and its key), so firmware built
 * with it trusted certifies again and again; a new one only when there is none or it expires within
 * a day. It issues the server certificates of each session.
 */
export async function keptCertificateAuthority(
  stateDir: string,
): Promise<TlsMaterial & { caFile: string; created: boolean }> {
  const dir = join(stateDir, 'tls', 'authority');
  const files = { cert: join(dir, 'ca.pem'), key: join(dir, 'key.pem') };
  if (existsSync(files.cert) && existsSync(files.key)) {
    const cert = readFileSync(files.cert, 'utf8');
    if (Date.parse(new X509Certificate(cert).validTo) - Date.now() > DAY_MS)
      return { cert, key: readFileSync(files.key, 'utf8'), caFile: files.cert, created: false };
  }
  const made = await issueCertificate([], {
    authority: true,
    commonName: 'iotc certification CA',
    notAfter: new Date(Date.now() + AUTHORITY_DAYS * DAY_MS),
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(files.key, made.key, { mode: 0o600 });
  writeFileSync(files.cert, made.cert);
  return { ...made, caFile: files.cert, created: true };
}
