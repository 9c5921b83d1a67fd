/** Endpoint security (interfaces.md "mapping security"): basic checks the Authorization header; anonymous admits all. */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Security } from './config';

export function isAuthorized(security: Security, headers: IncomingHttpHeaders): boolean {
  if (security.type === 'anonymous') return true;
  const header = headers.authorization;
  const match = header ? /^Basic ([A-Za-z0-9+/]+=*)$/.exec(header.trim()) : null;
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'base64');
  const expected = Buffer.from(`${security.username}:${security.password}`, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The Authorization header value of basic credentials (outgoing calls). */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
