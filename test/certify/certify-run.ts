/**
 * The certification runner of the kill matrix (src/faults/certify-run.ts), for the tests of
 * test/certify: the clean certifications and the edge cases. The planted faults of the clients
 * under test are the matrix's to judge (faults/client-catalogue.ts, `npm run faults`), not these
 * tests'.
 */
import { join } from 'node:path';
import { typeScriptClient } from '../../src/faults/certify-run';

export { certify, type Certified } from '../../src/faults/certify-run';

/** A test client under test/certify/, run by node with ts-node as `--exec` runs it. */
export function testClient(file: string): string {
  return typeScriptClient(join('test', 'certify', file));
}
