/**
 * Where the conformance rest.json of the embedded REST connector is: beside the sources in a checkout, and in an
 * installed package too (package.json `files`), so never relative to the running module, which is in dist/ when
 * compiled.
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';

export const EMBEDDED_REST_FILE = join(PACKAGE_ROOT, 'src', 'target', 'embedded-rest.json');
