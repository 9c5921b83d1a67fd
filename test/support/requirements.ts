/**
 * A catalogue requirement for report tests: an HTTP device API MUST of the platform, testable,
 * named by its id.
 */
import type { Requirement } from '../../schemas';

export const requirement = (id: string, capability?: string): Requirement => ({
  id,
  interface: 'http-device-api',
  role: 'platform',
  statement: id,
  section: 's',
  level: 'MUST',
  testable: true,
  ...(capability ? { capability } : {}),
});
