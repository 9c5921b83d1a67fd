/**
 * The environment of the worker processes of a parallel `iotc run` (cucumber forks them with it).
 * Two savings of CPU, which is what a parallel run waits for on two cores:
 * - an embedded target's certificates, made once here (IOTC_EMBEDDED_CERTIFICATES), not three times
 *   in every worker;
 * - V8's young generation at 32 MB semi-spaces instead of 16: scenarios allocate much short-lived
 *   garbage (HTTP and MQTT exchanges, evidence), and fewer scavenges took the run's CPU from 14.7
 *   to 13.9 s (median of 3, alternating; 64 MB saved no more). A NODE_OPTIONS that sets the size
 *   already is left as it is;
 * - compiled, V8's code cache for the ~850 modules every worker loads (lib/compile-cache.js: a
 *   tenth of a worker's start-up CPU was V8 compiling their source), preloaded first;
 * - compiled, cucumber's match indices from the RegExp `d` flag instead of its polyfill
 *   (native-match-indices.ts), preloaded so that it is in place before the worker loads cucumber.
 *   From the sources the module is TypeScript, which a worker cannot preload before ts-node is
 *   registered: the polyfill stays, slower and with the same results.
 */
import { join } from 'node:path';
import { COMPILED, PACKAGE_ROOT } from '../../lib/package-root';
import {
  EMBEDDED_CERTIFICATES_VARIABLE,
  makeEmbeddedCertificates,
} from '../target/embedded-certificates';

const YOUNG_GENERATION_OPTION = '--max-semi-space-size';
const WORKER_SEMI_SPACE_MB = 32;
const NATIVE_MATCH_INDICES = join(__dirname, 'native-match-indices.js');
/**
 * V8's code cache for the modules a worker loads (lib/compile-cache.js, plain JavaScript: preloaded
 * before all).
 */
const COMPILE_CACHE = join(PACKAGE_ROOT, 'lib', 'compile-cache.js');

export async function workerEnvironment(
  embedded: boolean,
  env: NodeJS.ProcessEnv = process.env,
  preloadNative: boolean = COMPILED,
): Promise<NodeJS.ProcessEnv> {
  const nodeOptions = env.NODE_OPTIONS ?? '';
  const sized = nodeOptions.includes(YOUNG_GENERATION_OPTION)
    ? nodeOptions
    : `${nodeOptions} ${YOUNG_GENERATION_OPTION}=${WORKER_SEMI_SPACE_MB}`.trim();
  return {
    ...env,
    // NODE_OPTIONS reads a double-quoted path as JSON writes it
    NODE_OPTIONS: preloadNative
      ? `${sized} --require ${JSON.stringify(COMPILE_CACHE)} --require ${JSON.stringify(NATIVE_MATCH_INDICES)}`
      : sized,
    ...(embedded
      ? { [EMBEDDED_CERTIFICATES_VARIABLE]: JSON.stringify(await makeEmbeddedCertificates()) }
      : {}),
  };
}
