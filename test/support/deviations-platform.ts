/**
 * What the two files of the deviation machinery on the platform twin share
 * (test/integration/deviations-platform.test.ts, the matching profile, and
 * deviations-platform-undeclared.test.ts, a profile that declares nothing; two files so that the
 * test runner runs their runs side by side): the selection, the interfaces judged and the declared
 * requirements.
 */
import type { Report } from './deviations';
import { DEVICE_API_TAGS } from './deviations';

/**
 * The device APIs, the admin API's authentication and robustness: where the thingsboard-4.3 profile
 * declares.
 */
export const TAGS = `${DEVICE_API_TAGS} or @admin-auth or @robustness`;
export const INTERFACES = [
  'http-device-api',
  'key-value-data',
  'mqtt-gateway-api',
  'admin-auth',
  'robustness',
];
export const deviceApi = (report: Report) =>
  report.requirements.filter(
    (requirement) => requirement.testable && INTERFACES.includes(requirement.interface),
  );

export const DECLARED = [
  'AUTH-05',
  'GW-ATTRREQ-01',
  'GW-CLAIM-01',
  'GW-ERR-01',
  'GW-ERR-02',
  'GW-ERR-03',
  'GW-ERR-04',
  'GW-RULE-02-TS',
  'GW-TEL-01-EMPTY',
  'GW-TEL-03',
  'HTTP-ERR-01',
  'HTTP-ERR-02',
  'HTTP-ERR-05',
  'HTTP-PROV-05',
  'HTTP-TEL-02-EMPTY',
  'HTTP-TEL-03',
  'KV-02',
  'KV-04',
  'KV-06',
  'ROB-CONN-02',
  'ROB-NEST-01',
  'ROB-SLOW-01',
];
