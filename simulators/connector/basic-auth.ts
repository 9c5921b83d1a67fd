/**
 * Endpoint security (docs/reference/interfaces.md "mapping security"): basic checks the
 * Authorization header; anonymous admits all.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Security } from './config-types';

export type Admission = 'admitted' | 'refused' | 'malformed';

/** The admission check's steps (steps.ts); step-faults.ts wraps them. */
export interface AuthorizationSteps {
  /** A request to an anonymous endpoint. */
  anonymous(headers: IncomingHttpHeaders): Admission;
  /** Whether the Authorization header's scheme is the one basic security takes. */
  scheme(name: string): boolean;
  /** The `username:password` bytes the request must carry. */
  expected(security: Security & { type: 'basic' }): Buffer;
  /** Whether the given credentials are the expected ones. */
  matches(given: Buffer, expected: Buffer): boolean;
}

export const AUTHORIZATION_STEPS: AuthorizationSteps = {
  anonymous: () => 'admitted',
  scheme: (name) => name === 'Basic',
  expected: (security) => Buffer.from(`${security.username}:${security.password}`, 'utf8'),
  matches: (given, expected) =>
    given.length === expected.length && timingSafeEqual(given, expected),
};

/**
 * admitted; refused (no header, wrong credentials); malformed (another scheme, undecodable
 * credentials), which docs/reference/interfaces.md refuses as well and a gateway 3.8 quirks mode
 * answers with 500.
 */
export function authorization(
  security: Security,
  headers: IncomingHttpHeaders,
  steps: AuthorizationSteps = AUTHORIZATION_STEPS,
): Admission {
  if (security.type === 'anonymous') return steps.anonymous(headers);
  const header = headers.authorization;
  if (!header) return 'refused';
  const match = /^(\S+) ([A-Za-z0-9+/]+=*)$/.exec(header.trim());
  if (!match || !steps.scheme(match[1]!)) return 'malformed';
  return steps.matches(Buffer.from(match[2]!, 'base64'), steps.expected(security))
    ? 'admitted'
    : 'refused';
}

/** The Authorization header value of basic credentials (outgoing calls). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
