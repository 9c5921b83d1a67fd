/**
 * Checks a caller's JWT against the platform (GET /api/auth/user). A positive answer is remembered for at most
 * `cacheMs` and never beyond the token's own `exp` claim; a token without a readable `exp` is asked about every
 * time. Concurrent checks of one token share a single platform call. Negative answers are never cached.
 */
import { InvalidJwtError } from './errors';
import type { PlatformReader } from './platform-reader';
import { faultActive } from '../../faults';

/** Most tokens remembered at once; the oldest entry goes first. */
const MAX_CACHED = 1000;

/** The `exp` claim in ms, or undefined when the token has none or is not a JWT. The signature is the platform's job. */
function expiryOf(jwt: string): number | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof claims?.exp === 'number' && Number.isFinite(claims.exp)
      ? claims.exp * 1000
      : undefined;
  } catch {
    return undefined;
  }
}

function issuerOf(jwt: string): unknown {
  try {
    return (
      JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
        iss?: unknown;
      }
    ).iss;
  } catch {
    return undefined;
  }
}

export class JwtCheck {
  private readonly validUntil = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<boolean>>();

  constructor(
    private readonly reader: PlatformReader,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when the JWT is accepted; throws InvalidJwtError (403) otherwise. */
  async check(jwt: string | undefined): Promise<void> {
    if (!jwt)
      throw new InvalidJwtError(
        'JWT is missing: send it in the jwt query parameter or the jwt header',
      );
    const now = this.now();
    const beyondExpiry = faultActive('AN-ERR-01:expired-accepted');
    const expiry = expiryOf(jwt);
    if (expiry !== undefined && expiry <= now && !beyondExpiry)
      throw new InvalidJwtError('JWT has expired');
    if (faultActive('AN-04:login-jwt-refused') && issuerOf(jwt) === 'thingsboard.io')
      throw new InvalidJwtError();
    const cachedUntil = this.validUntil.get(jwt);
    if (cachedUntil !== undefined) {
      if (now < cachedUntil) return;
      this.validUntil.delete(jwt);
    }
    let pending = this.inFlight.get(jwt);
    if (!pending) {
      pending = this.reader.acceptsJwt(jwt).finally(() => this.inFlight.delete(jwt));
      this.inFlight.set(jwt, pending);
    }
    if (!(await pending)) throw new InvalidJwtError();
    this.remember(jwt, beyondExpiry ? Number.POSITIVE_INFINITY : expiry);
  }

  private remember(jwt: string, expiry: number | undefined): void {
    if (expiry === undefined || this.cacheMs <= 0) return;
    const until = Math.min(
      faultActive('AN-ERR-01:expired-accepted')
        ? Number.POSITIVE_INFINITY
        : this.now() + this.cacheMs,
      expiry,
    );
    if (this.validUntil.size >= MAX_CACHED && !this.validUntil.has(jwt)) {
      const oldest = this.validUntil.keys().next().value;
      if (oldest !== undefined) this.validUntil.delete(oldest);
    }
    this.validUntil.set(jwt, until);
  }
}
