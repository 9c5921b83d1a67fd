/**
 * A small fake of the platform's admin API for the analytics tests (ThingsBoard's paths and JSON
 * shapes, docs/reference/platform-facts.md §8): GET /api/auth/user (valid for the tokens it knows,
 * 401 otherwise), devices by name and by text search, time series history, attributes of a scope.
 * It counts the requests it serves per path.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'undici';

export interface FakeDevice {
  id: string;
  name: string;
  telemetry: Record<string, Array<{ ts: number; value: unknown }>>;
  attributes: Partial<
    Record<'CLIENT_SCOPE' | 'SHARED_SCOPE' | 'SERVER_SCOPE', Record<string, unknown>>
  >;
}

export interface FakePlatform {
  url: string;
  /** Tokens GET /api/auth/user accepts; tests add and remove. */
  validTokens: Set<string>;
  devices: FakeDevice[];
  /** Requests served, by path without query. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** A JWT-shaped token (unsigned) with an exp claim in seconds. */
export function makeJwt(expSeconds: number, subject = 'tenant@thingsboard.org'): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS512' })}.${part({ sub: subject, scopes: ['TENANT_ADMIN'], exp: expSeconds, iat: Math.floor(Date.now() / 1000) })}.c2lnbmF0dXJl`;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

const tbError = (status: number, message: string, errorCode: number) => ({
  status,
  message,
  errorCode,
  timestamp: Date.now(),
});

export async function startFakePlatform(devices: FakeDevice[]): Promise<FakePlatform> {
  const validTokens = new Set<string>();
  const hits = new Map<string, number>();
  const deviceView = (device: FakeDevice) => ({
    id: { entityType: 'DEVICE', id: device.id },
    name: device.name,
    type: 'default',
    label: null,
  });

  const handle = (incoming: IncomingMessage, response: ServerResponse) => {
    const url = new URL(incoming.url ?? '/', 'http://fake');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const header = incoming.headers['x-authorization'];
    const token =
      typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (!token || !validTokens.has(token))
      return send(response, 401, tbError(401, 'Authentication failed', 10));
    if (url.pathname === '/api/auth/user') {
      return send(response, 200, {
        id: { entityType: 'USER', id: 'u1' },
        email: 'tenant@thingsboard.org',
        authority: 'TENANT_ADMIN',
      });
    }
    if (url.pathname === '/api/tenant/devices') {
      const name = url.searchParams.get('deviceName');
      if (name !== null) {
        const device = devices.find((candidate) => candidate.name === name);
        return device
          ? send(response, 200, deviceView(device))
          : send(response, 404, tbError(404, "Requested item wasn't found!", 32));
      }
      const search = (url.searchParams.get('textSearch') ?? '').toLowerCase();
      const pageSize = Number(url.searchParams.get('pageSize'));
      const page = Number(url.searchParams.get('page'));
      const all = devices
        .filter((device) => device.name.toLowerCase().includes(search))
        .sort((a, b) => a.name.localeCompare(b.name));
      const data = all.slice(page * pageSize, (page + 1) * pageSize).map(deviceView);
      return send(response, 200, {
        data,
        totalPages: Math.ceil(all.length / pageSize),
        totalElements: all.length,
        hasNext: (page + 1) * pageSize < all.length,
      });
    }
    const match =
      /^\/api\/plugins\/telemetry\/DEVICE\/([^/]+)\/values\/(timeseries|attributes\/(\w+))$/.exec(
        url.pathname,
      );
    const device = match && devices.find((candidate) => candidate.id === match[1]);
    if (!match || !device)
      return send(response, 404, tbError(404, "Requested item wasn't found!", 32));
    const keys = (url.searchParams.get('keys') ?? '').split(',').filter(Boolean);
    if (match[2] === 'timeseries') {
      const startTs = Number(url.searchParams.get('startTs'));
      const endTs = Number(url.searchParams.get('endTs'));
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const ascending = url.searchParams.get('orderBy') === 'ASC';
      const out: Record<string, Array<{ ts: number; value: unknown }>> = {};
      for (const key of keys) {
        const points = (device.telemetry[key] ?? [])
          // endTs is exclusive, as on ThingsBoard (TsKvRepository.java:40)
          .filter((point) => point.ts >= startTs && point.ts < endTs)
          .sort((a, b) => (ascending ? a.ts - b.ts : b.ts - a.ts))
          .slice(0, limit);
        if (points.length) out[key] = points;
      }
      return send(response, 200, out);
    }
    const scope = match[3] as keyof FakeDevice['attributes'];
    const attributes = Object.entries(device.attributes[scope] ?? {})
      .filter(([key]) => keys.length === 0 || keys.includes(key))
      .map(([key, value]) => ({ key, value, lastUpdateTs: 1 }));
    return send(response, 200, attributes);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    validTokens,
    devices,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
  json: any;
  contentType: string;
  ms: number;
}

/** POSTs a report request; `jwtIn` chooses where the JWT goes. Never throws on a status. */
export async function postReport(
  reportUrl: string,
  body: unknown,
  options: {
    jwt?: string;
    jwtIn?: 'query' | 'header';
    contentType?: string;
    raw?: string;
    signal?: AbortSignal;
  } = {},
): Promise<Answer> {
  const started = performance.now();
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
  };
  let url = reportUrl;
  if (options.jwt !== undefined) {
    if (options.jwtIn === 'header') headers.jwt = options.jwt;
    else url += `?jwt=${encodeURIComponent(options.jwt)}`;
  }
  const response = await request(url, {
    method: 'POST',
    headers,
    body: options.raw ?? JSON.stringify(body),
    signal: options.signal,
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return {
    status: response.statusCode,
    text,
    json,
    contentType: String(response.headers['content-type'] ?? ''),
    ms: performance.now() - started,
  };
}

export async function limiterStatus(statusUrl: string): Promise<{
  active: number;
  queued: number;
  rejected: number;
  completed: number;
  abandoned: number;
  poolSize: number;
  queueCapacity: number;
}> {
  const response = await request(statusUrl);
  return (await response.body.json()) as Awaited<ReturnType<typeof limiterStatus>>;
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
export async function eventually(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 3000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * A report request that takes a limiter slot and keeps it until the test says so: it sends its
 * headers (the limiter admits a request before it reads the body) and holds its body back. `finish`
 * sends the body and resolves with the status; `drop` hangs up. Load-proof by construction: the
 * slot is held for as long as the test needs, however slow the machine is, where a report cost in
 * milliseconds would be a race.
 */
export interface HeldRequest {
  finish(): Promise<number>;
  drop(): void;
}

export async function holdSlot(
  reportUrl: string,
  jwt: string,
  body: unknown,
): Promise<HeldRequest> {
  const url = new URL(reportUrl);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const text = JSON.stringify(body);
  socket.write(
    `POST ${url.pathname}?jwt=${encodeURIComponent(jwt)} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n`,
  );
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    async finish() {
      socket.write(text); // not end(): a half-closed client would have its answer cut
      await closed;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (!status)
        throw new Error(`no HTTP answer to a held report request: ${answer.slice(0, 200)}`);
      return Number(status);
    },
    drop: () => socket.destroy(),
  };
}
