/**
 * The environment of the worker processes of a parallel `iotc run` (cucumber forks them with it).
 * Two savings of CPU, which is what a parallel run waits for on two cores:
 * - an embedded target's certificates, made once here (IOTC_EMBEDDED_CERTIFICATES), not three times
 *   in every worker, and kept for the next runs (keptEmbeddedCertificates below);
 * - V8's young generation at 32 MB semi-spaces instead of 16: scenarios allocate much short-lived
 *   garbage (HTTP and MQTT exchanges, evidence), and fewer scavenges took the run's CPU from 14.7
 *   to 13.9 s (median of 3, alternating; 64 MB saved no more). A NODE_OPTIONS that sets the size
 *   already is left as it is;
 * - V8's code cache for the ~850 modules every worker loads (lib/compile-cache.js: a tenth of a
 *   worker's start-up CPU was V8 compiling their source), preloaded first;
 * - cucumber's match indices from the RegExp `d` flag instead of its polyfill
 *   (native-match-indices.ts), preloaded so that it is in place before the worker loads cucumber.
 *   From the sources the module is TypeScript: lib/ts-register.js (plain JavaScript) is preloaded
 *   before it. Without it the polyfill parsed every step definition's regular expression with
 *   regexp-tree in every worker (issue 29: about 0.1 s of a worker's CPU).
 * - the worker's messages to the CLI batched, each feature's document received once
 *   (worker-messages.ts), preloaded after those.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPILED, PACKAGE_ROOT } from '../../lib/package-root';
import {
  EMBEDDED_CERTIFICATES_VARIABLE,
  type EmbeddedCertificates,
  makeEmbeddedCertificates,
} from '../target/embedded-certificates';

const YOUNG_GENERATION_OPTION = '--max-semi-space-size';
const WORKER_SEMI_SPACE_MB = 32;
/** native-match-indices.ts, or .js compiled. */
const NATIVE_MATCH_INDICES = join(__dirname, 'native-match-indices');
/** worker-messages.ts, or .js compiled: the worker's side of its messages to the CLI. */
const WORKER_MESSAGES = join(__dirname, 'worker-messages');
/** The require hook of the TypeScript sources, preloaded before native-match-indices.ts. */
const TS_REGISTER = join(PACKAGE_ROOT, 'lib', 'ts-register.js');
/**
 * V8's code cache for the modules a worker loads (lib/compile-cache.js, plain JavaScript: preloaded
 * before all).
 */
const COMPILE_CACHE = join(PACKAGE_ROOT, 'lib', 'compile-cache.js');

export async function workerEnvironment(
  embedded: boolean,
  env: NodeJS.ProcessEnv = process.env,
  compiled: boolean = COMPILED,
): Promise<NodeJS.ProcessEnv> {
  const nodeOptions = env.NODE_OPTIONS ?? '';
  const sized = nodeOptions.includes(YOUNG_GENERATION_OPTION)
    ? nodeOptions
    : `${nodeOptions} ${YOUNG_GENERATION_OPTION}=${WORKER_SEMI_SPACE_MB}`.trim();
  return {
    ...env,
    // NODE_OPTIONS reads a double-quoted path as JSON writes it
    NODE_OPTIONS: [
      sized,
      ...(compiled
        ? [COMPILE_CACHE, `${NATIVE_MATCH_INDICES}.js`, `${WORKER_MESSAGES}.js`]
        : [COMPILE_CACHE, TS_REGISTER, `${NATIVE_MATCH_INDICES}.ts`, `${WORKER_MESSAGES}.ts`]
      ).map((file) => `--require ${JSON.stringify(file)}`),
    ].join(' '),
    ...(embedded
      ? { [EMBEDDED_CERTIFICATES_VARIABLE]: JSON.stringify(await keptEmbeddedCertificates()) }
      : {}),
  };
}

const DAY_MS = 86_400_000;
/** Where the embedded target's certificates are kept between runs (the caches' folder). */
const CERTIFICATES_FILE = join(
  PACKAGE_ROOT,
  'node_modules',
  '.cache',
  'iotc-certificates',
  'embedded.json',
);

/**
 * The embedded target's certificates of the last run while each is valid for more than a day yet
 * and matches its key, else new ones, kept for the next runs (the folder 0700, the file 0600, as
 * `iotc simulate --state-dir` keeps its own: lib/tls/persistent-certificate.ts). Making them cost
 * the CLI about 0.3 s of CPU before it could start a worker (loading selfsigned's x509 and ASN.1
 * libraries, then signing; issue 29). They are the reference's own self-signed certificates for
 * localhost, trusted by the steps through the same variable; a file that cannot be read or written
 * only means new ones, as before.
 */
export async function keptEmbeddedCertificates(
  file: string = CERTIFICATES_FILE,
  now: number = Date.now(),
): Promise<EmbeddedCertificates> {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as EmbeddedCertificates;
    const usable = (['platform', 'connectorServer', 'externalApi'] as const).every((name) => {
      const { cert, key } = kept[name];
      const certificate = new X509Certificate(cert);
      return (
        Date.parse(certificate.validFrom) <= now &&
        Date.parse(certificate.validTo) - now > DAY_MS &&
        certificate.checkPrivateKey(createPrivateKey(key))
      );
    });
    if (usable) return kept;
  } catch {
    // none kept yet, or unreadable: new ones
  }
  const made = await makeEmbeddedCertificates();
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, JSON.stringify(made), { mode: 0o600 });
    renameSync(aside, file);
  } catch {
    // a read-only installation: new ones every run, as before
  }
  return made;
}
