/**
 * The environment of the worker processes of a parallel `iotc run` (cucumber forks them with it).
 * Two savings of CPU, which is what a parallel run waits for on two cores:
 * - an embedded target's certificates, made once here (IOTC_EMBEDDED_CERTIFICATES), not three times
 *   in every worker;
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
 */
import { join } from 'node:path';
import { COMPILED, PACKAGE_ROOT } from '../../lib/package-root';
import {
  EMBEDDED_CERTIFICATES_VARIABLE,
  makeEmbeddedCertificates,
} from '../target/embedded-certificates';

const YOUNG_GENERATION_OPTION = '--max-semi-space-size';
const WORKER_SEMI_SPACE_MB = 32;
/** native-match-indices.ts, or .js compiled. */
const NATIVE_MATCH_INDICES = join(__dirname, 'native-match-indices');
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
        ? [COMPILE_CACHE, `${NATIVE_MATCH_INDICES}.js`]
        : [COMPILE_CACHE, TS_REGISTER, `${NATIVE_MATCH_INDICES}.ts`]
      ).map((file) => `--require ${JSON.stringify(file)}`),
    ].join(' '),
    ...(embedded
      ? { [EMBEDDED_CERTIFICATES_VARIABLE]: JSON.stringify(await makeEmbeddedCertificates()) }
      : {}),
  };
}
