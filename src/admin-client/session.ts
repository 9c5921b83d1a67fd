/**
 * An authenticated session with the admin REST API: login, the X-Authorization header, refresh when the access
 * token expires (401 errorCode 11), and JSON requests with lossless number parsing (so 42.0 stays a DOUBLE).
 */
import { Agent, request, FormData, type Dispatcher } from 'undici';
import { parseLossless } from '../kv/values';
import { AdminApiError } from './errors';

export interface AdminCredentials {
  username: string;
  password: string;
}

export interface AdminResponse {
  status: number;
  text: string;
  /** The body parsed losslessly when it is JSON. */
  json?: unknown;
}

export interface SessionOptions {
  requestTimeoutMs?: number;
  /** Trust for an https admin URL: a CA certificate, or no verification. */
  tls?: { ca?: string; insecureSkipVerify?: boolean };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export class AdminSession {
  private token = '';
  private refreshToken = '';
  private readonly dispatcher: Agent;

  private constructor(
    readonly baseUrl: string,
    private readonly credentials: AdminCredentials,
    private readonly options: SessionOptions,
  ) {
    this.dispatcher = new Agent({
      keepAliveTimeout: 10_000,
      connect: options.tls ? { ca: options.tls.ca, rejectUnauthorized: !options.tls.insecureSkipVerify } : undefined,
    });
  }

  static async login(baseUrl: string, credentials: AdminCredentials, options: SessionOptions = {}): Promise<AdminSession> {
    const session = new AdminSession(baseUrl.replace(/\/+$/, ''), credentials, options);
    await session.login();
    return session;
  }

  private async login(): Promise<void> {
    const answer = await this.send('POST', '/api/auth/login', { username: this.credentials.username, password: this.credentials.password }, false);
    if (answer.status !== 200) throw this.error('POST', '/api/auth/login', answer);
    this.adopt(answer);
  }

  private async refresh(): Promise<void> {
    const answer = await this.send('POST', '/api/auth/token', { refreshToken: this.refreshToken }, false);
    if (answer.status === 200) this.adopt(answer);
    else await this.login();
  }

  private adopt(answer: AdminResponse): void {
    const pair = JSON.parse(answer.text) as { token: string; refreshToken: string };
    this.token = pair.token;
    this.refreshToken = pair.refreshToken;
  }

  /** The raw answer, whatever its status (for steps that check error answers). */
  async raw(method: Method, path: string, body?: unknown): Promise<AdminResponse> {
    let answer = await this.send(method, path, body, true);
    if (answer.status === 401 && errorCodeOf(answer) === 11) {
      await this.refresh();
      answer = await this.send(method, path, body, true);
    }
    return answer;
  }

  /** The answer of a request that must succeed (2xx); throws AdminApiError otherwise. */
  async call(method: Method, path: string, body?: unknown): Promise<AdminResponse> {
    const answer = await this.raw(method, path, body);
    if (answer.status < 200 || answer.status >= 300) throw this.error(method, path, answer);
    return answer;
  }

  async upload(path: string, form: FormData): Promise<AdminResponse> {
    const response = await request(this.baseUrl + path, {
      method: 'POST',
      headers: { 'x-authorization': `Bearer ${this.token}` },
      body: form,
      dispatcher: this.dispatcher,
      headersTimeout: this.options.requestTimeoutMs,
      bodyTimeout: this.options.requestTimeoutMs,
    });
    const answer = await readAnswer(response.statusCode, await response.body.text());
    if (answer.status < 200 || answer.status >= 300) throw this.error('POST', path, answer);
    return answer;
  }

  private async send(method: Method, path: string, body: unknown, authenticated: boolean): Promise<AdminResponse> {
    return adminRequest(this.baseUrl, method, path, {
      headers: authenticated ? { 'x-authorization': `Bearer ${this.token}` } : {},
      body,
      dispatcher: this.dispatcher,
      timeoutMs: this.options.requestTimeoutMs,
    });
  }

  /** The current access token, for steps that test how the platform treats it. Never log it. */
  get accessToken(): string {
    return this.token;
  }

  private error(method: string, path: string, answer: AdminResponse): AdminApiError {
    const json = answer.json as { message?: unknown } | undefined;
    const message = typeof json?.message === 'string' ? json.message : answer.text.slice(0, 300);
    return new AdminApiError(method, path, answer.status, errorCodeOf(answer), message);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

/**
 * One request to the admin REST API with exactly the headers given (no session): for login and for steps that
 * check how missing, malformed, expired or revoked credentials are refused.
 */
export async function adminRequest(
  baseUrl: string,
  method: Method,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; dispatcher?: Dispatcher; timeoutMs?: number } = {},
): Promise<AdminResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let payload: string | undefined;
  if (options.body !== undefined) {
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
  return readAnswer(response.statusCode, await response.body.text());
}

function readAnswer(status: number, text: string): AdminResponse {
  let json: unknown;
  if (text.length > 0) {
    try {
      json = parseLossless(text);
    } catch {
      json = undefined;
    }
  }
  return { status, text, json };
}

function errorCodeOf(answer: AdminResponse): number | undefined {
  const code = (answer.json as { errorCode?: unknown } | undefined)?.errorCode;
  return code === undefined || code === null ? undefined : Number(String(code));
}
