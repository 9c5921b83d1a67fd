/**
 * The HTTP device driver: a simulated device speaking the HTTP device API
 * (docs/reference/interfaces.md) to any target by URL. Used by steps, load profiles and the CLI.
 * Every call answers {status, headers, text, json?, bytes} and never throws on a status: deciding
 * what a status means is the caller's job. Bodies are always read, so connections are reused.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { parseLossless } from '../../lib/kv/values';
import { DEVICE_HTTP_API, type DeviceHttpRole, deviceHttpPath } from '../../schemas';
import type { ExchangeRecorder } from '../../lib/exchange';

export interface DeviceResponse {
  /**
   * What was asked: method and URL (the URL carries the device token; redact before showing it).
   */
  request: { method: string; url: string };
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed losslessly when it is JSON (42.0 stays distinguishable from 42). */
  json?: unknown;
  bytes: Buffer;
  elapsedMs: number;
}

interface HttpDeviceOptions {
  /** Per-request timeout; long-polls add their own timeout to it. */
  requestTimeoutMs?: number;
  /** Trust for an https base URL: a CA certificate, or no verification. */
  tls?: { ca?: string; insecureSkipVerify?: boolean };
  /** Share one connection pool among many simulated devices (load profiles). */
  dispatcher?: Dispatcher;
  /**
   * Told every request and its answer (scenario evidence); the driver behaves the same without it.
   */
  recorder?: ExchangeRecorder;
}

/**
 * A body: a value sent as JSON, or text sent exactly as given (malformed payloads, exact number
 * lexemes).
 */
/**
 * A JSON value to serialize, or a body sent exactly as given (bytes that are not UTF-8 included).
 */
type DeviceBody = { json: unknown } | { raw: string | Buffer } | undefined;

export function createDeviceDispatcher(options: Pick<HttpDeviceOptions, 'tls'> = {}): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connect: options.tls
      ? { ca: options.tls.ca, rejectUnauthorized: !options.tls.insecureSkipVerify }
      : undefined,
  });
}

/** Sends one request of the HTTP device API. `path` starts with /api/v1/. */
export async function deviceRequest(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  body: DeviceBody,
  options: HttpDeviceOptions & { extraTimeoutMs?: number } = {},
): Promise<DeviceResponse> {
  const timeout = (options.requestTimeoutMs ?? 10_000) + (options.extraTimeoutMs ?? 0);
  const started = performance.now();
  const payload =
    body === undefined ? undefined : 'raw' in body ? body.raw : JSON.stringify(body.json);
  const url = baseUrl.replace(/\/+$/, '') + path;
  const response = await request(url, {
    method,
    // docs/reference/interfaces.md: requests with a body carry Content-Type: application/json
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    body: payload,
    dispatcher: options.dispatcher,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const text = bytes.toString('utf8');
  const json = jsonBody(String(response.headers['content-type'] ?? ''), text);
  const elapsedMs = performance.now() - started;
  options.recorder?.({
    protocol: 'http',
    via: 'device',
    request: { method, url, body: Buffer.isBuffer(payload) ? payload.toString('utf8') : payload },
    response: { status: response.statusCode, body: text },
    elapsedMs,
  });
  return {
    request: { method, url },
    status: response.statusCode,
    headers: response.headers,
    text,
    json,
    bytes,
    elapsedMs,
  };
}

/**
 * The body parsed losslessly when it is JSON: declared so by its content type, or an object or
 * array whatever the content type says (some platforms answer JSON as text/plain). Text that does
 * not parse stays text only.
 */
function jsonBody(contentType: string, text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.length === 0) return undefined;
  if (!contentType.includes('json') && !trimmed.startsWith('{') && !trimmed.startsWith('['))
    return undefined;
  try {
    return parseLossless(text);
  } catch {
    return undefined;
  }
}

/** POST /api/v1/provision: no token, the provisioning key and secret in the body. */
export function provision(
  baseUrl: string,
  body: DeviceBody,
  options: HttpDeviceOptions = {},
): Promise<DeviceResponse> {
  const { method } = DEVICE_HTTP_API.provision;
  return deviceRequest(baseUrl, method, deviceHttpPath('provision', ''), body, options);
}

/**
 * How long a long-poll without the timeout parameter may stay open: the platform's default
 * (ThingsBoard's transport.http.request_timeout, 60 s; a monolith ends it at about 30 s,
 * docs/reference/platform-facts.md §1).
 */
const DEFAULT_LONG_POLL_WAIT_MS = 60_000;

export class HttpDevice {
  private readonly options: HttpDeviceOptions;
  /** The keep-alive pool this driver made itself (none when it was given a shared one). */
  private readonly ownDispatcher?: Agent;

  constructor(
    readonly baseUrl: string,
    readonly accessToken: string,
    options: HttpDeviceOptions = {},
  ) {
    this.ownDispatcher = options.dispatcher ? undefined : createDeviceDispatcher(options);
    this.options = { ...options, dispatcher: options.dispatcher ?? this.ownDispatcher };
  }

  /** Closes the driver's own connection pool (a shared one belongs to whoever made it). */
  async close(): Promise<void> {
    await this.ownDispatcher?.close();
  }

  /**
   * A request of a role of the protocol table (schemas/device-http.ts), with its query (`?...`) if
   * any.
   */
  private call(
    role: DeviceHttpRole,
    body: DeviceBody | undefined,
    options: HttpDeviceOptions & { extraTimeoutMs?: number },
    { query = '', id }: { query?: string; id?: number | string } = {},
  ): Promise<DeviceResponse> {
    const path = `${deviceHttpPath(role, this.accessToken, id)}${query}`;
    return deviceRequest(this.baseUrl, DEVICE_HTTP_API[role].method, path, body, options);
  }

  /**
   * `extraTimeoutMs` waits that much longer than the request timeout (an answer the platform is
   * known to hold back).
   */
  postTelemetry(
    body: DeviceBody,
    extra: { extraTimeoutMs?: number } = {},
  ): Promise<DeviceResponse> {
    return this.call('telemetry', body, { ...this.options, ...extra });
  }

  postAttributes(body: DeviceBody): Promise<DeviceResponse> {
    return this.call('postAttributes', body, this.options);
  }

  getAttributes(
    keys: { clientKeys?: string[]; sharedKeys?: string[] } = {},
  ): Promise<DeviceResponse> {
    const query = new URLSearchParams();
    if (keys.clientKeys) query.set('clientKeys', keys.clientKeys.join(','));
    if (keys.sharedKeys) query.set('sharedKeys', keys.sharedKeys.join(','));
    const suffix = query.size ? `?${query}` : '';
    return this.call('getAttributes', undefined, this.options, { query: suffix });
  }

  /**
   * Long-poll for shared attribute updates; timeout in milliseconds, absent: the platform's
   * default.
   */
  pollAttributeUpdates(timeoutMs?: number): Promise<DeviceResponse> {
    const query = timeoutMs === undefined ? '' : `?timeout=${timeoutMs}`;
    const extraTimeoutMs = timeoutMs ?? DEFAULT_LONG_POLL_WAIT_MS;
    return this.call('attributeUpdates', undefined, { ...this.options, extraTimeoutMs }, { query });
  }

  /**
   * Long-poll for a server-side RPC request; timeout in milliseconds, absent: the platform's
   * default.
   */
  pollRpc(timeoutMs?: number): Promise<DeviceResponse> {
    const query = timeoutMs === undefined ? '' : `?timeout=${timeoutMs}`;
    const extraTimeoutMs = timeoutMs ?? DEFAULT_LONG_POLL_WAIT_MS;
    return this.call('rpcPoll', undefined, { ...this.options, extraTimeoutMs }, { query });
  }

  replyRpc(id: number | string, body: DeviceBody): Promise<DeviceResponse> {
    return this.call('rpcReply', body, this.options, { id });
  }

  clientRpc(body: DeviceBody): Promise<DeviceResponse> {
    return this.call('clientRpc', body, this.options);
  }

  claim(body?: DeviceBody): Promise<DeviceResponse> {
    return this.call('claim', body, this.options);
  }

  firmware(
    title: string,
    version: string,
    part: { size?: number; chunk?: number } = {},
  ): Promise<DeviceResponse> {
    const query = new URLSearchParams({ title, version });
    if (part.size !== undefined) query.set('size', String(part.size));
    if (part.chunk !== undefined) query.set('chunk', String(part.chunk));
    return this.call('firmware', undefined, this.options, { query: `?${query}` });
  }

  /** Any path under /api/v1/{token}/ (for checks of unknown resources and invalid URLs). */
  request(method: 'GET' | 'POST', resource: string, body?: DeviceBody): Promise<DeviceResponse> {
    const path = `/api/v1/${encodeURIComponent(this.accessToken)}/${resource}`;
    return deviceRequest(this.baseUrl, method, path, body, this.options);
  }
}
