/**
 * Authentication of the admin REST API as ThingsBoard does it (platform-facts.md §8): login for a JWT pair (HS512),
 * refresh, and the `X-Authorization` (or `Authorization`) header with `Bearer <JWT>` or `ApiKey <value>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AuthenticationError } from '../core/errors';
import type { User } from '../core/model';
import type { PlatformCore } from '../core/platform-core';

export interface TokenLifetimes {
  accessSeconds: number;
  refreshSeconds: number;
}

export class AdminAuth {
  private readonly secret = randomBytes(64);

  constructor(
    private readonly core: PlatformCore,
    private readonly lifetimes: TokenLifetimes,
  ) {}

  async login(
    username: unknown,
    password: unknown,
  ): Promise<{ token: string; refreshToken: string }> {
    const user = this.core.users.find(
      (candidate) => candidate.email === username && candidate.password === password,
    );
    if (!user) throw new AuthenticationError('Invalid username or password');
    return this.pair(user);
  }

  async refresh(refreshToken: unknown): Promise<{ token: string; refreshToken: string }> {
    if (typeof refreshToken !== 'string')
      throw new AuthenticationError('Invalid username or password');
    const claims = await this.verify(refreshToken);
    if (!(claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN'))
      throw new AuthenticationError('Invalid username or password');
    return this.pair(this.userById(String(claims.userId)));
  }

  /** The user behind a request's credentials; throws AuthenticationError with ThingsBoard's message and code. */
  async authenticate(request: IncomingMessage): Promise<User> {
    const header = request.headers['x-authorization'] ?? request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) throw new AuthenticationError('Authentication failed');
    const [scheme, credential] = value.trim().split(/\s+/, 2);
    if (scheme === 'Bearer' && credential) {
      const claims = await this.verify(credential);
      if ((claims.scopes as string[] | undefined)?.includes('REFRESH_TOKEN'))
        throw new AuthenticationError('Invalid username or password');
      return this.userById(String(claims.userId));
    }
    if (scheme === 'ApiKey' && credential) {
      const key = this.core.apiKeyByValue(credential);
      if (!key) throw new AuthenticationError('Invalid username or password');
      if (!key.enabled) throw new AuthenticationError('User account is not active');
      if (key.expirationTime > 0 && key.expirationTime <= Date.now())
        throw new AuthenticationError('API key has expired', 11);
      return this.userById(key.userId);
    }
    throw new AuthenticationError('Authentication failed');
  }

  private async verify(token: string): Promise<Record<string, unknown>> {
    try {
      const { payload } = await jwtVerify(token, this.secret, { algorithms: ['HS512'] });
      return payload;
    } catch (error) {
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
    return {
      token: await this.sign(
        user,
        {
          ...common,
          scopes: [user.authority],
          firstName: user.firstName,
          lastName: user.lastName,
          enabled: true,
        },
        issuedAt,
        issuedAt + this.lifetimes.accessSeconds,
      ),
      refreshToken: await this.sign(
        user,
        { ...common, scopes: ['REFRESH_TOKEN'] },
        issuedAt,
        issuedAt + this.lifetimes.refreshSeconds,
      ),
    };
  }

  /** exp - iat is exactly the lifetime: both come from the one issuedAt. */
  private sign(
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
      .sign(this.secret);
  }
}
