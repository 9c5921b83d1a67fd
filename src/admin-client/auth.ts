/**
 * An authenticated session with the admin REST API (docs/reference/interfaces.md "Administration
 * REST API", docs/reference/platform-facts.md §8): POST /api/auth/login, the header
 * `X-Authorization: Bearer <JWT>`, and one refresh (POST /api/auth/token, else a new login) when a
 * request answers 401 with errorCode 11 (token expired). Bodies are parsed losslessly, so 42.0
 * stays distinguishable from 42 and longs stay exact. Every body is read, so keep-alive connections
 * are reused.
 */
import { Agent, request, FormData, type Dispatcher } from 'undici';
import { MAX_JSON_DEPTH, parseLossless } from '../../lib/kv/values';

import { AdminApiError, AdminResponseShapeError } from './errors';
import type { ExchangeRecorder } from '../report/exchanges';

/** How many levels the admin API's answers put around a stored value, with room to spare. */
const ADMIN_WRAPPING_DEPTH = 16;

export interface AdminCredentials {
  username: string;
  password: string;
}

export interface AdminResponse {
  status: number;
  text: string;
  /** The body parsed losslessly when it is JSON. */
  json?: unknown;
  /** The Location header of a redirect (3xx), as sent. */
  location?: string;
}

export interface SessionOptions {
  /** Bound of one request (headers and body). */
  requestTimeoutMs?: number;
  /** Trust for an https admin URL: a CA certificate, or no verification. */
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  /**
   * Told every request and its answer (scenario evidence); the session behaves the same without it.
   */
  recorder?: ExchangeRecorder;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Body = unknown;

const TOKEN_EXPIRED = 11;

export class AdminSession {
  private token = '';
  private refreshToken = '';
  private refreshing?: Promise<void>;
  private readonly dispatcher: Agent;
  /**
   * Hands the session's exchanges on with its X-Authorization header as `Bearer <redacted>` (the
   * JWT never leaves; the header's presence does, so a reproduce line says where the token goes),
   * other headers left out.
   */
  private readonly recorder?: ExchangeRecorder;

  private constructor(
    readonly baseUrl: string,
    private readonly credentials: AdminCredentials,
    private readonly options: SessionOptions,
  ) {
    this.dispatcher = new Agent({
      keepAliveTimeout: 10_000,
      connect: options.tls
        ? { ca: options.tls.ca, rejectUnauthorized: !options.tls.insecureSkipVerify }
        : undefined,
    });
    const { recorder } = options;
    if (recorder)
      this.recorder = (exchange) =>
        recorder(
          exchange.protocol === 'http'
            ? {
                ...exchange,
                request: {
                  ...exchange.request,
                  headers: exchange.request.headers?.['x-authorization']
                    ? { 'x-authorization': 'Bearer <redacted>' }
                    : undefined,
                },
              }
            : exchange,
        );
  }

  static async login(
    baseUrl: string,
    credentials: AdminCredentials,
    options: SessionOptions = {},
  ): Promise<AdminSession> {
    const session = new AdminSession(baseUrl.replace(/\/+$/, ''), credentials, options);
    try {
      await session.login();
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  private async login(): Promise<void> {
    const answer = await this.send(
      'POST',
      '/api/auth/login',
      { username: this.credentials.username, password: this.credentials.password },
      false,
    );
    if (answer.status !== 200) throw errorOf('POST', '/api/auth/login', answer);
    this.adopt(answer, '/api/auth/login');
  }

  /** One refresh at a time, however many requests saw the expiry. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const answer = await this.send(
          'POST',
          '/api/auth/token',
          { refreshToken: this.refreshToken },
          false,
        );
        if (answer.status === 200) this.adopt(answer, '/api/auth/token');
        else await this.login();
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private adopt(answer: AdminResponse, path: string): void {
    const pair = answer.json as { token?: unknown; refreshToken?: unknown } | undefined;
    if (typeof pair?.token !== 'string')
      throw new AdminResponseShapeError(`POST ${path} gave no token`, '');
    this.token = pair.token;
    this.refreshToken = typeof pair.refreshToken === 'string' ? pair.refreshToken : '';
  }

  /**
   * The answer whatever its status (for steps that check refusals); refreshes once on an expired
   * token.
   */
  async raw(method: Method, path: string, body?: Body): Promise<AdminResponse> {
    const sentWith = this.token;
    let answer = await this.send(method, path, body, true);
    if (answer.status === 401 && errorCodeOf(answer) === TOKEN_EXPIRED) {
      if (this.token === sentWith) await this.refresh();
      answer = await this.send(method, path, body, true);
    }
    return answer;
  }

  /** The answer of a request that must succeed (2xx); throws AdminApiError otherwise. */
  async call(method: Method, path: string, body?: Body): Promise<AdminResponse> {
    const answer = await this.raw(method, path, body);
    if (answer.status < 200 || answer.status >= 300) throw errorOf(method, path, answer);
    return answer;
  }

  /**
   * Sends `body`: a FormData as multipart/form-data, a string as JSON text exactly as given (to
   * keep number lexemes), anything else as JSON.
   */
  private send(
    method: Method,
    path: string,
    body: Body,
    authenticated: boolean,
  ): Promise<AdminResponse> {
    return adminRequest(this.baseUrl, method, path, {
      headers: authenticated ? { 'x-authorization': `Bearer ${this.token}` } : {},
      body,
      dispatcher: this.dispatcher,
      timeoutMs: this.options.requestTimeoutMs,
      recorder: this.recorder,
    });
  }

  /**
   * The current access token, for what needs the JWT itself (the analytics report API). Never log
   * it.
   */
  get accessToken(): string {
    return this.token;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/**
 * One request to the admin REST API with exactly the headers given (no session): what the session
 * sends through, and what steps use to check how missing, malformed, expired or revoked credentials
 * are refused. `body`: a FormData as multipart/form-data, a string as JSON text exactly as given
 * (to keep number lexemes), else JSON.
 */
export async function adminRequest(
  baseUrl: string,
  method: Method,
  path: string,
  options: {
    headers?: Record<string, string>;
    body?: Body;
    dispatcher?: Dispatcher;
    timeoutMs?: number;
    recorder?: ExchangeRecorder;
  } = {},
): Promise<AdminResponse> {
  const started = performance.now();
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let payload: string | FormData | undefined;
  if (options.body instanceof FormData) {
    payload = options.body; // undici sets the multipart content type with its boundary
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await request(baseUrl.replace(/\/+$/, '') + path, {
    method,
    headers,
    body: payload,
    dispatcher: options.dispatcher,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const answer = readAnswer(response.statusCode, await response.body.text());
  const location = response.headers.location;
  if (typeof location === 'string') answer.location = location;
  options.recorder?.({
    protocol: 'http',
    via: 'admin',
    request: {
      method,
      url: path,
      headers: options.headers,
      body:
        typeof payload === 'string'
          ? payload
          : payload === undefined
            ? undefined
            : '(multipart form data)',
    },
    response: { status: answer.status, body: answer.text },
    elapsedMs: performance.now() - started,
  });
  return answer;
}

function readAnswer(status: number, text: string): AdminResponse {
  let json: unknown;
  if (text.length > 0) {
    try {
      // a device value may be as deep as the platform's bound (1000, ROB-NEST-01) and the admin API
      // wraps it a few levels more ({key: [{ts, value}]}): the harness must read back what it
      // stored
      json = parseLossless(text, MAX_JSON_DEPTH + ADMIN_WRAPPING_DEPTH);
    } catch {
      json = undefined; // not JSON (ThingsBoard answers some 400s with plain text)
    }
  }
  return { status, text, json };
}

function errorCodeOf(answer: AdminResponse): number | undefined {
  const code = (answer.json as { errorCode?: unknown } | undefined)?.errorCode;
  return code === undefined || code === null ? undefined : Number(String(code));
}

export function errorOf(method: string, path: string, answer: AdminResponse): AdminApiError {
  const json = answer.json as { message?: unknown } | undefined;
  const message = typeof json?.message === 'string' ? json.message : answer.text.slice(0, 300);
  return new AdminApiError(method, path, answer.status, errorCodeOf(answer), message);
}
