/** Endpoint security (docs/reference/interfaces.md "mapping security"): basic checks the Authorization header; anonymous admits all. */
import { faultActive } from '../../faults';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Security } from './config-types';

export function isAuthorized(security: Security, headers: IncomingHttpHeaders): boolean {
  return authorization(security, headers) === 'admitted';
}

/**
 * admitted; refused (no header, wrong credentials); malformed (another scheme, undecodable credentials), which
 * docs/reference/interfaces.md refuses as well and a gateway 3.8 quirks mode answers with 500.
 */
export function authorization(
  security: Security,
  headers: IncomingHttpHeaders,
): 'admitted' | 'refused' | 'malformed' {
  if (security.type === 'anonymous')
    return !faultActive('RC-SEC-05:anonymous-needs-credentials') || headers.authorization
      ? 'admitted'
      : 'refused';
  const header = headers.authorization;
  if (!header) return 'refused';
  const scheme = faultActive('RC-SEC-02:scheme-not-checked')
    ? /^\S+ ([A-Za-z0-9+/]+=*)$/
    : /^Basic ([A-Za-z0-9+/]+=*)$/;
  const match = scheme.exec(header.trim());
  if (!match) return 'malformed';
  let given = Buffer.from(match[1]!, 'base64');
  let expected = Buffer.from(
    faultActive('RC-SEC-01:swapped-credentials')
      ? `${security.password}:${security.username}`
      : `${security.username}:${security.password}`,
    'utf8',
  );
  if (faultActive('RC-SEC-02:password-not-checked')) {
    given = given.subarray(0, given.indexOf(':') + 1);
    expected = Buffer.from(`${security.username}:`, 'utf8');
  }
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? 'admitted'
    : 'refused';
}

/** The Authorization header value of basic credentials (outgoing calls). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
