/**
 * Reads from the platform through its administration REST API with the caller's JWT, exactly as a
 * real analytics component talks to ThingsBoard (docs/reference/platform-facts.md §8): GET
 * /api/auth/user, devices by name or by a text search, time series history with typed values,
 * attributes of one scope. 401 or 403 from the platform means the JWT may not read
 * (InvalidJwtError, answered 403); anything else unexpected is a PlatformReadError (502).
 */
import { Agent, request } from 'undici';
import { InvalidJwtError, PlatformReadError } from './errors';
import type { AttributeScope } from '../../schemas/analytics-views';

export interface PlatformDevice {
  id: string;
  name: string;
}

export interface TimeseriesPoint {
  ts: number;
  value: unknown;
}

interface AttributeEntry {
  key: string;
  value: unknown;
  lastUpdateTs: number;
}

const PAGE_SIZE = 100;
/** Bounds the listing of a name search: at most this many pages of PAGE_SIZE devices. */
const MAX_PAGES = 100;

export class PlatformReader {
  private readonly dispatcher: Agent;
  private readonly baseUrl: string;

  constructor(platformUrl: string, timeoutMs = 10_000) {
    this.baseUrl = platformUrl.replace(/\/+$/, '');
    this.dispatcher = new Agent({
      connections: 64,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connectTimeout: timeoutMs,
    });
  }

  /** True when the platform accepts the JWT (GET /api/auth/user answers 200), false on 401/403. */
  async acceptsJwt(jwt: string, signal?: AbortSignal): Promise<boolean> {
    const answer = await this.get('/api/auth/user', jwt, signal, { refuseAsFalse: true });
    return answer !== undefined;
  }

  /** The device of that exact name, or undefined when the platform has none (404). */
  async deviceNamed(
    jwt: string,
    name: string,
    signal?: AbortSignal,
  ): Promise<PlatformDevice | undefined> {
    const device = await this.get(
      `/api/tenant/devices?deviceName=${encodeURIComponent(name)}`,
      jwt,
      signal,
      { notFoundAsUndefined: true },
    );
    return device === undefined ? undefined : deviceOf(device);
  }

  /**
   * Devices whose name contains `text` (case-insensitive), ordered by name; the listing is bounded
   * by MAX_PAGES.
   */
  async devicesContaining(
    jwt: string,
    text: string,
    signal?: AbortSignal,
  ): Promise<PlatformDevice[]> {
    const found: PlatformDevice[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const query = `pageSize=${PAGE_SIZE}&page=${page}&sortProperty=name&sortOrder=ASC&textSearch=${encodeURIComponent(text)}`;
      const answer = (await this.get(`/api/tenant/devices?${query}`, jwt, signal)) as {
        data?: unknown;
        hasNext?: unknown;
      };
      if (!Array.isArray(answer?.data))
        throw new PlatformReadError('device listing has no data array');
      found.push(...answer.data.map(deviceOf));
      if (answer.hasNext !== true) break;
    }
    const needle = text.toLowerCase();
    return found
      .filter((device) => device.name.toLowerCase().includes(needle))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Time series history of `keys` within [startTs, endTs], typed (useStrictDataTypes=true). The
   * platform's endTs is exclusive (ThingsBoard's TsKvRepository.java:40: ts < endTs), so it is
   * asked for endTs + 1.
   */
  async timeseries(
    jwt: string,
    deviceId: string,
    query: {
      keys: string[];
      startTs: number;
      endTs: number;
      limit: number;
      orderBy: 'ASC' | 'DESC';
    },
    signal?: AbortSignal,
  ): Promise<Record<string, TimeseriesPoint[]>> {
    const parameters = new URLSearchParams({
      keys: query.keys.join(','),
      startTs: String(query.startTs),
      endTs: String(query.endTs + 1),
      limit: String(query.limit),
      orderBy: query.orderBy,
      useStrictDataTypes: 'true',
    });
    const answer = await this.get(
      `/api/plugins/telemetry/DEVICE/${encodeURIComponent(deviceId)}/values/timeseries?${parameters}`,
      jwt,
      signal,
    );
    if (!answer || typeof answer !== 'object' || Array.isArray(answer))
      throw new PlatformReadError('time series answer is not an object');
    const out: Record<string, TimeseriesPoint[]> = {};
    for (const [key, points] of Object.entries(answer as Record<string, unknown>)) {
      if (!Array.isArray(points))
        throw new PlatformReadError(`time series of ${key} is not an array`);
      out[key] = points
        .filter(
          (point): point is TimeseriesPoint => typeof point?.ts === 'number' && 'value' in point,
        )
        .map((point) => ({ ts: point.ts, value: point.value }));
    }
    return out;
  }

  /** Attributes of one scope, typed. */
  async attributes(
    jwt: string,
    deviceId: string,
    scope: AttributeScope,
    keys: string[],
    signal?: AbortSignal,
  ): Promise<AttributeEntry[]> {
    const path = `/api/plugins/telemetry/DEVICE/${encodeURIComponent(deviceId)}/values/attributes/${scope}?keys=${encodeURIComponent(keys.join(','))}`;
    const answer = await this.get(path, jwt, signal);
    if (!Array.isArray(answer)) throw new PlatformReadError('attributes answer is not an array');
    return answer.filter(
      (entry): entry is AttributeEntry => typeof entry?.key === 'string' && 'value' in entry,
    );
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async get(
    path: string,
    jwt: string,
    signal: AbortSignal | undefined,
    options: { refuseAsFalse?: boolean; notFoundAsUndefined?: boolean } = {},
  ): Promise<unknown> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(this.baseUrl + path, {
        method: 'GET',
        headers: { 'x-authorization': `Bearer ${jwt}`, accept: 'application/json' },
        dispatcher: this.dispatcher,
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new PlatformReadError(`platform unreachable: ${(error as Error).message}`);
    }
    const text = await response.body.text();
    const status = response.statusCode;
    if (status === 401 || status === 403) {
      if (options.refuseAsFalse) return undefined;
      throw new InvalidJwtError(
        status === 401
          ? 'JWT is not valid or has expired'
          : 'The JWT does not allow reading the data of this view',
      );
    }
    if (status === 404 && options.notFoundAsUndefined) return undefined;
    if (status !== 200)
      throw new PlatformReadError(`platform answered ${status} to GET ${path.split('?')[0]}`);
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      throw new PlatformReadError(
        `platform answered GET ${path.split('?')[0]} with malformed JSON`,
      );
    }
  }
}

function deviceOf(record: unknown): PlatformDevice {
  const device = record as { id?: { id?: unknown }; name?: unknown } | null;
  if (typeof device?.id?.id !== 'string' || typeof device.name !== 'string')
    throw new PlatformReadError('device record without id.id and name');
  return { id: device.id.id, name: device.name };
}
