/**
 * What the two files of the deviation machinery on the REST connector's twin share
 * (test/integration/deviations-connector.test.ts, the matching profile, and
 * deviations-connector-undeclared.test.ts, a profile that declares nothing; two files so that the
 * test runner runs their runs side by side).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_REQUIRED_MEMBERS } from '../../lib/gateway-rest';
import { ROOT } from './iotc';

// every declaration of the real gateway's profile: the quirks mode must reproduce each one
export const CONNECTOR_DECLARED = Object.keys(
  (
    JSON.parse(
      readFileSync(join(ROOT, 'src', 'target', 'profiles', 'tb-gateway-3.8.json'), 'utf8'),
    ) as { deviations: Record<string, unknown> }
  ).deviations,
).sort();
/**
 * Declared for members 3.8.3 has no default for: the configuration it runs names them
 * (gateway-rest.ts), so the specification's scenarios pass on it and only the declaration's own
 * scenario shows the difference; and RC-SEC-04, whose placeholders an anonymous default mapping
 * admits.
 */
export const NOT_VISIBLE_WITHOUT_DECLARATION = [
  ...new Set([...GATEWAY_REQUIRED_MEMBERS.map((member) => member.requirement), 'RC-SEC-04']),
];
/**
 * Declared for issue 25, each verified on a real 3.8.3: no default for server.host (RC-SRV-01) and
 * for the rules' requestUrlExpression (RC-AUPD-11, RC-RPC-04), attribute updates without security
 * are anonymous (RC-AUPD-05), aiohttp's own 405 and 500 pages instead of unsuccessfulResponse
 * (RC-ERR-01). RC-AREQ-05 (no default for an attribute request's timeout: every request 500 on a
 * real 3.8.3) is not testable, so not declared: a DEVIATION verdict would count a requirement as
 * tested that the catalogue says cannot be.
 */
export const DECLARED_FOR_ISSUE_25 = [
  'RC-AUPD-05',
  'RC-AUPD-11',
  'RC-ERR-01',
  'RC-RPC-04',
  'RC-SRV-01',
];
/**
 * Defaults the twin leaves unexercised: none (its connector, as the reference, leaves server.port
 * to the default 5000, published at a free host port; the rest are declared deviations).
 */
export const DEFAULTS_NEVER_EXERCISED: string[] = [];
export const DEFAULT_NOT_EXERCISED = 'default not exercised: ';
