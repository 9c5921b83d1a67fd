/**
 * Authentication of the admin REST API as ThingsBoard does it (docs/reference/platform-facts.md §8): login for a JWT pair (HS512),
 * refresh, and the `X-Authorization` (or `Authorization`) header with `Bearer <JWT>` or `ApiKey <value>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignJWT, decodeJwt, jwtVerify, errors as joseErrors } from 'jose';
import { faultActive } from '../../../faults';
import { AuthenticationError, LoginRedirect, PlatformError } from '../core/errors';
import { NO_QUIRKS, type Quirks } from '../quirks';
import type { User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';

/** ThingsBoard's message for a refresh token used as an access token: the NullPointerException's own. */
const REFRESH_AS_ACCESS_MESSAGE =
  'Cannot invoke "java.lang.Boolean.booleanValue()" because the return value of "io.jsonwebtoken.Claims.get(String, java.lang.Class)" is null';

interface TokenLifetimes {
  accessSeconds: number;
  refreshSeconds: number;
}

/** Verified tokens kept at most (a long `iotc simulate` forgets them all and checks them again). */
const VERIFIED_TOKENS_KEPT = 10_000;

export class AdminAuth {
  private readonly secret = randomBytes(64);
  /**
   * The secret as a WebCrypto key, imported once: given the bytes, jose imports them again for every token it signs
   * or checks, which doubled the CPU of each authenticated admin request.
   */
  private readonly key = crypto.subtle.importKey(
    'raw',
    this.secret,
    { name: 'HMAC', hash: 'SHA-512' },
    false,
    ['sign', 'verify'],
  );
  /**
   * Tokens whose signature this instance has checked, with their claims. Every admin request of a scenario carries
   * the same token, and the HMAC check through WebCrypto was about 6 % of a parallel run's worker CPU. A token found
   * here skips only the signature check, and only while jose would accept it too (its `exp` rule, below); any other
   * case goes through jwtVerify again, so refusals and their reasons are jose's as before.
   */
  private readonly verifiedTokens = new Map<string, Record<string, unknown>>();
  /** Fault AUTH-01:opaque-token: the opaque tokens handed out, each standing for the JWT it replaced. */
  private readonly opaqueTokens = new Map<string, string>();

  private lifetimes: TokenLifetimes;

  constructor(
    private readonly core: PlatformCore,
    lifetimes: TokenLifetimes,
    private readonly quirks: Pick<Quirks, 'adminAuthRefusalsAsThingsboard'> = NO_QUIRKS,
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
  pairFor(user: User): Promise<{ token: string; refreshToken: string }> {
    return this.pair(user);
  }

  async login(
    username: unknown,
    password: unknown,
  ): Promise<{ token: string; refreshToken: string }> {
    const user = this.core.users.find(
      (candidate) =>
        candidate.email === username &&
        (candidate.password === password || faultActive('AUTH-01:any-password')),
    );
    if (!user) throw new AuthenticationError('Invalid username or password');
    return this.pair(user);
  }

  async refresh(refreshToken: unknown): Promise<{ token: string; refreshToken: string }> {
    if (typeof refreshToken !== 'string')
      throw new AuthenticationError('Invalid username or password');
    const claims = await this.verify(refreshToken, faultActive('AUTH-05:expired-refresh-accepted'));
    if (!(claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN'))
      throw new AuthenticationError('Invalid username or password');
    return this.pair(this.userById(String(claims.userId)));
  }

  /** The user behind a request's credentials; throws AuthenticationError with ThingsBoard's message and code. */
  async authenticate(request: IncomingMessage): Promise<User> {
    const header = request.headers['x-authorization'] ?? request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) {
      if (faultActive('AUTH-05:missing-credentials-accepted'))
        return this.core.users.find((user) => user.authority === 'TENANT_ADMIN')!;
      throw new AuthenticationError('Authentication failed');
    }
    const [scheme, credential] = value.trim().split(/\s+/, 2);
    // quirks mode thingsboard-4.3 (deviation AUTH-05): ThingsBoard's filter chain knows no Basic scheme and sends
    // the unauthenticated request to its OAuth2 login entry point
    if (scheme === 'Basic' && this.quirks.adminAuthRefusalsAsThingsboard)
      throw new LoginRedirect('/oauth2Login');
    if (
      scheme === 'Bearer' &&
      faultActive('AUTH-04:bearer-refused-for-device') &&
      request.method === 'GET' &&
      /^\/api\/device\/[^/?]+(\?|$)/.test(request.url ?? '')
    )
      throw new AuthenticationError('Authentication failed');
    if (scheme === 'Bearer' && credential) {
      const claims = await this.verify(this.opaqueTokens.get(credential) ?? credential);
      if (
        (claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN') &&
        !faultActive('AUTH-05:refresh-token-accepted')
      ) {
        // quirks mode thingsboard-4.3 (deviation AUTH-05): parseAccessJwtToken unboxes the refresh token's missing
        // enabled claim (JwtTokenFactory.java:142), a NullPointerException answered 500
        if (this.quirks.adminAuthRefusalsAsThingsboard)
          throw new PlatformError(REFRESH_AS_ACCESS_MESSAGE, 500, 2);
        throw new AuthenticationError('Invalid username or password');
      }
      return this.userById(String(claims.userId));
    }
    if (scheme === 'ApiKey' && credential && !faultActive('AUTH-03:api-key-refused')) {
      const key = this.core.apiKeys.withValue(credential);
      if (!key) throw new AuthenticationError('Invalid username or password');
      if (!key.enabled && !faultActive('AUTH-KEY-02:disabled-accepted'))
        throw new AuthenticationError('User account is not active');
      if (this.apiKeyExpired(key)) throw new AuthenticationError('API key has expired', 11);
      return this.userById(key.userId);
    }
    throw new AuthenticationError('Authentication failed');
  }

  private apiKeyExpired(key: { expirationTime: number; createdTime: number }): boolean {
    const now = Date.now();
    if (faultActive('AUTH-KEY-01:expires-like-jwt')) {
      if (key.createdTime + this.lifetimes.accessSeconds * 1000 <= now) return true;
    }
    if (key.expirationTime <= 0 || faultActive('AUTH-KEY-03:expiry-ignored')) return false;
    return faultActive('AUTH-KEY-03:expired-at-creation') || key.expirationTime <= now;
  }

  private async verify(token: string, expiryUnchecked = false): Promise<Record<string, unknown>> {
    // faults: no exp check at all, or one more lifetime of grace after exp
    const clockTolerance =
      expiryUnchecked || faultActive('AUTH-05:expired-accepted')
        ? Number.MAX_SAFE_INTEGER
        : faultActive('AUTH-JWT-02:expiry-grace')
          ? this.lifetimes.accessSeconds
          : 0;
    const known = this.verifiedTokens.get(token);
    // jose's own rule (jwt_claims_set.js): expired when exp <= now - tolerance, now in whole seconds; our tokens carry
    // no nbf, and one that did is checked by jose
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
      if (
        faultActive('AUTH-05:signature-unchecked') &&
        error instanceof joseErrors.JWSSignatureVerificationFailed
      )
        return decodeJwt(token);
      // ThingsBoard: an expired JWT or a bad signature is code 11 "Token has expired"; a malformed one code 10
      if (
        error instanceof joseErrors.JWTExpired ||
        error instanceof joseErrors.JWSSignatureVerificationFailed
      ) {
        throw new AuthenticationError('Token has expired', 11);
      }
      throw new AuthenticationError('Invalid username or password');
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
    const issuedAt = Math.floor(Date.now() / 1000);
    const refreshToken = await this.refreshFor(user, common, issuedAt);
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
      issuedAt + this.accessSeconds(),
    );
    let answered = token;
    if (faultActive('AUTH-01:opaque-token')) {
      // a token that is not a JWT but still works: only its shape is wrong
      answered = randomBytes(32).toString('hex');
      this.opaqueTokens.set(answered, token);
    }
    return {
      token: answered,
      ...(faultActive('AUTH-01:no-refresh-token') ? {} : { refreshToken }),
    } as { token: string; refreshToken: string };
  }

  private refreshFor(user: User, common: Record<string, unknown>, issuedAt: number) {
    return this.sign(
      user,
      { ...common, scopes: ['REFRESH_TOKEN'] },
      issuedAt,
      issuedAt +
        (faultActive('AUTH-JWT-02:configured-refresh-ignored')
          ? 604800
          : this.lifetimes.refreshSeconds),
    );
  }

  private accessSeconds(): number {
    return faultActive('AUTH-JWT-02:configured-access-ignored')
      ? 9000
      : this.lifetimes.accessSeconds;
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
