/**
 * A real JWT minted at run time (jose, HS512, a random key of this run), for tests of redaction and
 * of answers that carry a token: no token-shaped string is committed to the repository.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

export function mintJwt(subject: string): Promise<string> {
  return new SignJWT({ sub: subject })
    .setProtectedHeader({ alg: 'HS512' })
    .setIssuedAt()
    .sign(randomBytes(64));
}
