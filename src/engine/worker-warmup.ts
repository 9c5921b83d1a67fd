/**
 * A cucumber worker's libraries loaded before its INITIALIZE (issue 29 items 1–2).
 *
 * A worker loads some 800 modules when cucumber's INITIALIZE tells it where the step definitions
 * are, and on an embedded target its BeforeAll loads the reference; most of that CPU is not the step
 * files but what they import (undici, mqtt, jose, the simulators, the schemas, the reference:
 * bench/README.md "The compiled run's wall, worker by worker"). The first workers are forked while
 * the CLI still loads and assembles the test cases (staggered-workers.ts `forkWorkersEarly`), so
 * here, preloaded last into every worker (worker-environment.ts), those libraries are required at
 * once: the step files then find them loaded. Only modules without cucumber's definitions (those
 * need the support-code builder INITIALIZE resets) and without effects at load are named. A worker
 * forked when cucumber asks loads the same modules, in the same process, a little earlier.
 */
import { join, sep } from 'node:path';
import { EMBEDDED_CERTIFICATES_VARIABLE } from '../target/embedded-certificates';

/** What the step files import most, relative to this folder (no extension: .js or .ts). */
const LIBRARIES = [
  '../admin-client',
  '../target',
  '../../simulators/device/mqtt-connection',
  '../../simulators/device/http-device',
  '../../simulators/device/mqtt-device',
  '../../simulators/gateway/mqtt-gateway',
  '../../simulators/connector-client',
  '../../schemas/target-answers',
  '../../schemas/arbitrary',
];
/** The reference an embedded target's BeforeAll starts (src/target/index.ts requires it then). */
const EMBEDDED_REFERENCE = '../target/embedded';

const CUCUMBER_WORKER = `${sep}parallel${sep}run_worker.js`;
if (process.argv[1]?.endsWith(CUCUMBER_WORKER))
  // after the worker's own module has listened for its messages (INITIALIZE waits in the pipe)
  setImmediate(() => {
    const embedded = process.env[EMBEDDED_CERTIFICATES_VARIABLE] !== undefined;
    for (const library of embedded ? [...LIBRARIES, EMBEDDED_REFERENCE] : LIBRARIES) {
      try {
        require(join(__dirname, library));
      } catch {
        // loaded again by the step file that needs it, which then reports the error
      }
    }
  });
