/**
 * Checks a caller's JWT against the platform (GET /api/auth/user). A positive answer is remembered
 * for at most `cacheMs` and never beyond the token's own `exp` claim; a token without a readable
 * `exp` is asked about every time. Concurrent checks of one token share a single platform call.
 * Negative answers are never cached.
 */
import { InvalidJwtError } from './errors';
import type { PlatformReader } from './platform-reader';
import { type StepFaults, withFaults } from '../../faults/steps';

/** Most tokens remembered at once; the oldest entry goes first. */
const MAX_CACHED = 1000;

/**
 * The `exp` claim in ms, or undefined when the token has none or is not a JWT. The signature is the
 * platform's job.
 */
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

/** The steps of a check (the faults below wrap them). */
interface JwtCheckSteps {
  /**
   * Until when the token is valid by its own claims (ms; undefined: no readable `exp`, ask every
   * time).
   */
  expiry(jwt: string): number | undefined;
  /** Until when a positive answer of the platform is remembered (never beyond `expiry`). */
  rememberUntil(now: number, cacheMs: number): number;
  /** The platform's answer: whether it accepts the token. */
  ask(reader: PlatformReader, jwt: string): Promise<boolean>;
}

const JWT_CHECK_STEPS: JwtCheckSteps = {
  expiry: expiryOf,
  rememberUntil: (now, cacheMs) => now + cacheMs,
  ask: (reader, jwt) => reader.acceptsJwt(jwt),
};

const JWT_CHECK_FAULTS: StepFaults<JwtCheckSteps> = {
  // with report-endpoint.ts's entry of the same id: an expired token passes, and so does its report
  'AN-ERR-01:expired-accepted': {
    expiry: () => () => Number.POSITIVE_INFINITY,
    rememberUntil: () => () => Number.POSITIVE_INFINITY,
  },
  'AN-04:login-jwt-refused': {
    ask: (step) => (reader, jwt) =>
      issuerOf(jwt) === 'thingsboard.io' ? Promise.resolve(false) : step(reader, jwt),
  },
};

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
    const steps = withFaults(JWT_CHECK_STEPS, JWT_CHECK_FAULTS);
    const now = this.now();
    const expiry = steps.expiry(jwt);
    if (expiry !== undefined && expiry <= now) throw new InvalidJwtError('JWT has expired');
    const cachedUntil = this.validUntil.get(jwt);
    if (cachedUntil !== undefined) {
      if (now < cachedUntil) return;
      this.validUntil.delete(jwt);
    }
    let pending = this.inFlight.get(jwt);
    if (!pending) {
      pending = steps.ask(this.reader, jwt).finally(() => this.inFlight.delete(jwt));
      this.inFlight.set(jwt, pending);
    }
    if (!(await pending)) throw new InvalidJwtError();
    if (expiry === undefined || this.cacheMs <= 0) return;
    this.remember(jwt, Math.min(steps.rememberUntil(this.now(), this.cacheMs), expiry));
  }

  private remember(jwt: string, until: number): void {
    if (this.validUntil.size >= MAX_CACHED && !this.validUntil.has(jwt)) {
      const oldest = this.validUntil.keys().next().value;
      if (oldest !== undefined) this.validUntil.delete(oldest);
    }
    this.validUntil.set(jwt, until);
  }
}
