/**
 * Authentication of the admin REST API as ThingsBoard does it (docs/reference/platform-facts.md
 * §8): login for a JWT pair (HS512), refresh, and the `X-Authorization` (or `Authorization`) header
 * with `Bearer <JWT>` or `ApiKey <value>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { type StepFaults, withFaults } from '../../../faults/steps';
import { AuthenticationError, LoginRedirect, PlatformError } from '../core/errors';
import { NO_QUIRKS, type Quirks } from '../quirks';
import type { User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';
import type { TokenLifetimes } from './token-lifetimes';

/**
 * ThingsBoard's message for a refresh token used as an access token: the NullPointerException's
 * own.
 */
const REFRESH_AS_ACCESS_MESSAGE =
  'Cannot invoke "java.lang.Boolean.booleanValue()" because the return value of "io.jsonwebtoken.Claims.get(String, java.lang.Class)" is null';

export type { TokenLifetimes } from './token-lifetimes';

/** What a request's authorization header says: its scheme and credential (both may be absent). */
export interface Credentials {
  readonly scheme: string | undefined;
  readonly credential: string | undefined;
}

/** A token pair as handed out by login and refresh. */
export interface TokenPair {
  token: string;
  refreshToken?: string;
}

/**
 * The named steps of the admin API's authentication, each a decision of ThingsBoard's
 * (docs/reference/platform-facts.md §8). The planted faults that break them are a table of wrappers
 * (auth-faults.ts AUTH_FAULTS) that index.ts hands to the constructor, applied per call by
 * faults/steps.ts, so AdminAuth's methods hold only behaviour.
 */
export const AUTH_STEPS = {
  /** Whether a login's password is the user's. */
  passwordMatches: (user: User, password: unknown): boolean => user.password === password,
  /** The clock tolerance of a token's `exp` check, in seconds: none. */
  clockTolerance: (_kind: 'access' | 'refresh', _lifetimes: TokenLifetimes): number => 0,
  /** The caller of a request without credentials: none, refused 401. */
  anonymous: (_users: readonly User[]): User => {
    throw new AuthenticationError('Authentication failed');
  },
  /** The scheme and credential of a request's X-Authorization (or Authorization) header. */
  credentials: (_request: IncomingMessage, value: string): Credentials => {
    const [scheme, credential] = value.trim().split(/\s+/, 2);
    return { scheme, credential };
  },
  /** The JWT a Bearer credential stands for: itself. */
  jwtOf: (credential: string): string => credential,
  /** Whether verified claims are a refresh token's, which is no access token. */
  isRefreshToken: (claims: Record<string, unknown>): boolean =>
    (claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN') ?? false,
  /** Whether an API key may be used: when enabled. */
  keyEnabled: (key: { enabled: boolean }): boolean => key.enabled,
  /** Whether an API key has expired: its expirationTime passed (0 or less: never). */
  apiKeyExpired: (
    key: { expirationTime: number; createdTime: number },
    now: number,
    _lifetimes: TokenLifetimes,
  ): boolean => key.expirationTime > 0 && key.expirationTime <= now,
  /**
   * The claims of a token jose refused: none; an expired JWT or a bad signature is code 11, else
   * code 10.
   */
  refusedToken: (_token: string, error: unknown): Record<string, unknown> => {
    if (
      error instanceof joseErrors.JWTExpired ||
      error instanceof joseErrors.JWSSignatureVerificationFailed
    ) {
      throw new AuthenticationError('Token has expired', 11);
    }
    throw new AuthenticationError('Invalid username or password');
  },
  /** The pair handed out: as signed. */
  issued: (pair: TokenPair): TokenPair => pair,
  /** The lifetime of a new access token: the configured one. */
  accessSeconds: (lifetimes: TokenLifetimes): number => lifetimes.accessSeconds,
  /** The lifetime of a new refresh token: the configured one. */
  refreshSeconds: (lifetimes: TokenLifetimes): number => lifetimes.refreshSeconds,
};
export type AuthSteps = typeof AUTH_STEPS;

/** Verified tokens kept at most (a long `iotc simulate` forgets them all and checks them again). */
const VERIFIED_TOKENS_KEPT = 10_000;

export class AdminAuth {
  private readonly secret = randomBytes(64);
  /**
   * The secret as a WebCrypto key, imported once: given the bytes, jose imports them again for
   * every token it signs or checks, which doubled the CPU of each authenticated admin request.
   */
  private readonly key = crypto.subtle.importKey(
    'raw',
    this.secret,
    { name: 'HMAC', hash: 'SHA-512' },
    false,
    ['sign', 'verify'],
  );
  /**
   * Tokens whose signature this instance has checked, with their claims. Every admin request of a
   * scenario carries the same token, and the HMAC check through WebCrypto was about 6 % of a
   * parallel run's worker CPU. A token found here skips only the signature check, and only while
   * jose would accept it too (its `exp` rule, below); any other case goes through jwtVerify again,
   * so refusals and their reasons are jose's as before.
   */
  private readonly verifiedTokens = new Map<string, Record<string, unknown>>();

  private lifetimes: TokenLifetimes;

  constructor(
    private readonly core: PlatformCore,
    lifetimes: TokenLifetimes,
    private readonly quirks: Pick<Quirks, 'adminAuthRefusalsAsThingsboard'> = NO_QUIRKS,
    /** The planted faults of the steps (auth-faults.ts), applied per call. */
    private readonly faults: StepFaults<AuthSteps> = {},
  ) {
    this.lifetimes = { ...lifetimes };
  }

  /** The JWT settings as ThingsBoard answers them (GET /api/admin/jwtSettings). */
  settings() {
    return {
      tokenExpirationTime: this.lifetimes.accessSeconds,
      refreshTokenExpTime: this.lifetimes.refreshSeconds,
      tokenIssuer: 'thingsboard.io',
    };
  }

  /** New lifetimes for tokens issued from now on (POST /api/admin/jwtSettings). */
  setLifetimes(lifetimes: TokenLifetimes): void {
    this.lifetimes = { ...lifetimes };
  }

  /** A new token pair for an authenticated user (the answer to a settings change). */
  /** The steps with the active faults applied (nothing allocated when none is on). */
  private get steps(): AuthSteps {
    return withFaults(AUTH_STEPS, this.faults);
  }

  pairFor(user: User): Promise<{ token: string; refreshToken: string }> {
    return this.pair(user);
  }

  async login(
    username: unknown,
    password: unknown,
  ): Promise<{ token: string; refreshToken: string }> {
    const user = this.core.users.find(
      (candidate) =>
        candidate.email === username && this.steps.passwordMatches(candidate, password),
    );
    if (!user) throw new AuthenticationError('Invalid username or password');
    return this.pair(user);
  }

  async refresh(refreshToken: unknown): Promise<{ token: string; refreshToken: string }> {
    if (typeof refreshToken !== 'string')
      throw new AuthenticationError('Invalid username or password');
    const claims = await this.verify(refreshToken, 'refresh');
    if (!(claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN'))
      throw new AuthenticationError('Invalid username or password');
    return this.pair(this.userById(String(claims.userId)));
  }

  /**
   * The user behind a request's credentials; throws AuthenticationError with ThingsBoard's message
   * and code.
   */
  async authenticate(request: IncomingMessage): Promise<User> {
    const steps = this.steps;
    const header = request.headers['x-authorization'] ?? request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) return steps.anonymous(this.core.users);
    const { scheme, credential } = steps.credentials(request, value);
    // quirks mode thingsboard-4.3 (deviation AUTH-05): ThingsBoard's filter chain knows no Basic
    // scheme and sends the unauthenticated request to its OAuth2 login entry point
    if (scheme === 'Basic' && this.quirks.adminAuthRefusalsAsThingsboard)
      throw new LoginRedirect('/oauth2Login');
    if (scheme === 'Bearer' && credential) {
      const claims = await this.verify(steps.jwtOf(credential));
      if (steps.isRefreshToken(claims)) {
        // quirks mode thingsboard-4.3 (deviation AUTH-05): parseAccessJwtToken unboxes the refresh
        // token's missing enabled claim (JwtTokenFactory.java:142), a NullPointerException answered
        // 500
        if (this.quirks.adminAuthRefusalsAsThingsboard)
          throw new PlatformError(REFRESH_AS_ACCESS_MESSAGE, 500, 2);
        throw new AuthenticationError('Invalid username or password');
      }
      return this.userById(String(claims.userId));
    }
    if (scheme === 'ApiKey' && credential) {
      const key = this.core.apiKeys.withValue(credential);
      if (!key) throw new AuthenticationError('Invalid username or password');
      if (!steps.keyEnabled(key)) throw new AuthenticationError('User account is not active');
      if (steps.apiKeyExpired(key, Date.now(), this.lifetimes))
        throw new AuthenticationError('API key has expired', 11);
      return this.userById(key.userId);
    }
    throw new AuthenticationError('Authentication failed');
  }

  private async verify(
    token: string,
    kind: 'access' | 'refresh' = 'access',
  ): Promise<Record<string, unknown>> {
    const steps = this.steps;
    const clockTolerance = steps.clockTolerance(kind, this.lifetimes);
    const known = this.verifiedTokens.get(token);
    // jose's own rule (jwt_claims_set.js): expired when exp <= now - tolerance, now in whole
    // seconds; our tokens carry no nbf, and one that did is checked by jose
    if (
      known &&
      known.nbf === undefined &&
      typeof known.exp === 'number' &&
      known.exp > Math.floor(Date.now() / 1000) - clockTolerance
    )
      return { ...known };
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        algorithms: ['HS512'],
        clockTolerance,
      });
      if (this.verifiedTokens.size >= VERIFIED_TOKENS_KEPT) this.verifiedTokens.clear();
      this.verifiedTokens.set(token, { ...payload });
      return payload;
    } catch (error) {
      // ThingsBoard: an expired JWT or a bad signature is code 11 "Token has expired"; a malformed
      // one code 10
      return steps.refusedToken(token, error);
    }
  }

  private userById(id: string): User {
    const user = this.core.users.find((candidate) => candidate.id === id);
    if (!user) throw new AuthenticationError('Invalid username or password');
    return user;
  }

  private async pair(user: User): Promise<{ token: string; refreshToken: string }> {
    const common = {
      userId: user.id,
      sessionId: randomUUID(),
      tenantId: user.tenantId,
      customerId: user.customerId,
      isPublic: false,
    };
    const steps = this.steps;
    const issuedAt = Math.floor(Date.now() / 1000);
    const refreshToken = await this.sign(
      user,
      { ...common, scopes: ['REFRESH_TOKEN'] },
      issuedAt,
      issuedAt + steps.refreshSeconds(this.lifetimes),
    );
    const token = await this.sign(
      user,
      {
        ...common,
        scopes: [user.authority],
        firstName: user.firstName,
        lastName: user.lastName,
        enabled: true,
      },
      issuedAt,
      issuedAt + steps.accessSeconds(this.lifetimes),
    );
    return steps.issued({ token, refreshToken }) as { token: string; refreshToken: string };
  }

  /** exp - iat is exactly the lifetime: both come from the one issuedAt. */
  private async sign(
    user: User,
    claims: Record<string, unknown>,
    issuedAt: number,
    expiresAt: number,
  ): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject(user.email)
      .setIssuer('thingsboard.io')
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(await this.key);
  }
}
