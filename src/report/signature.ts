/**
 * Tamper evidence for conformance.json: a SHA-256 digest beside it (`conformance.json.sha256`,
 * sha256sum's format, so `sha256sum -c` checks it too), and an Ed25519 signature
 * (`conformance.json.sig`, base64) made with a key the user holds, through Node's crypto. `iotc
 * report verify` checks both against the file as it is now.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from './provenance';
import { IotcError } from '../../lib/errors';

const REPORT_FILE = 'conformance.json';

/** A report cannot be signed or verified (no conformance.json, a key that is not Ed25519). */
export class ReportSignatureError extends IotcError {
  readonly code = 'IOTC_REPORT_SIGNATURE';
  constructor(message: string) {
    super(message);
  }
}

/** Writes conformance.json.sha256 for the report in `dir`. */
export function writeDigest(dir: string): string {
  const digest = sha256(readFileSync(join(dir, REPORT_FILE)));
  writeFileSync(join(dir, `${REPORT_FILE}.sha256`), `${digest}  ${REPORT_FILE}\n`);
  return digest;
}

/** A new Ed25519 key pair as PEM files (`<base>.key`, mode 600, and `<base>.pub`). */
export function generateSigningKey(base: string): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const paths = { privateKey: `${base}.key`, publicKey: `${base}.pub` };
  writeFileSync(paths.privateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  writeFileSync(paths.publicKey, publicKey.export({ type: 'spki', format: 'pem' }));
  return paths;
}

/** Signs the report in `dir` (and refreshes its digest); writes conformance.json.sig. */
export function signReport(dir: string, privateKeyFile: string): string {
  const data = readFileSync(join(dir, REPORT_FILE));
  const key = createPrivateKey(readFileSync(privateKeyFile));
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ReportSignatureError(
      `${privateKeyFile} is a ${key.asymmetricKeyType} key; sign with an Ed25519 key`,
    );
  const signature = sign(null, data, key).toString('base64');
  writeFileSync(join(dir, `${REPORT_FILE}.sig`), `${signature}\n`);
  writeDigest(dir);
  return signature;
}

interface Verification {
  digest: 'match' | 'mismatch' | 'missing';
  signature: 'valid' | 'invalid' | 'missing' | 'not checked';
}

/**
 * Checks the digest and, given a public key, the signature of the report in `dir` as the files are
 * now.
 */
export function verifyReport(dir: string, publicKeyFile?: string): Verification {
  const data = readFileSync(join(dir, REPORT_FILE));
  const digestFile = join(dir, `${REPORT_FILE}.sha256`);
  const digest = !existsSync(digestFile)
    ? 'missing'
    : readFileSync(digestFile, 'utf8').split(/\s+/)[0] === sha256(data)
      ? 'match'
      : 'mismatch';
  if (!publicKeyFile) return { digest, signature: 'not checked' };
  const signatureFile = join(dir, `${REPORT_FILE}.sig`);
  if (!existsSync(signatureFile)) return { digest, signature: 'missing' };
  const signature = Buffer.from(readFileSync(signatureFile, 'utf8').trim(), 'base64');
  const valid = verify(null, data, createPublicKey(readFileSync(publicKeyFile)), signature);
  return { digest, signature: valid ? 'valid' : 'invalid' };
}
