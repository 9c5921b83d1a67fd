/**
 * Where the conformance rest.json of the embedded REST connector is: beside the sources in a
 * checkout, and in an installed package too (package.json `files`), so never relative to the
 * running module, which is in dist/ when compiled.
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';

export const EMBEDDED_REST_FILE = join(PACKAGE_ROOT, 'src', 'target', 'embedded-rest.json');

/**
 * The second conformance rest.json: every optional section left out (server.security with SSL
 * false, and the three arrays of requestsMapping), served by a second connector of the same gateway
 * (connector.sparse of a profile).
 */
export const EMBEDDED_REST_SPARSE_FILE = join(
  PACKAGE_ROOT,
  'src',
  'target',
  'embedded-rest-sparse.json',
);
