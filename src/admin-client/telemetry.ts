/**
 * Telemetry read back (docs/reference/platform-facts.md §8 "Telemetry and attributes"): latest
 * values and history, typed with `useStrictDataTypes=true` and a lossless parse, so 42.0 stays
 * DOUBLE and longs stay exact. A JSON value may come back as the document or as its text (the real
 * platform answers text); comparing is the caller's job (steps/support/expectations.ts).
 */
import { typedValueOf, type TypedValue } from '../../lib/kv/values';
import type { AdminSession } from './auth';
import { keysQuery } from './records';

export interface StoredValue {
  ts: number;
  /** undefined when the platform holds no value for the key (it answers `"value": null`). */
  value: TypedValue | undefined;
}

export const TELEMETRY_API = '/api/plugins/telemetry/DEVICE';

type Series = Array<{ ts?: unknown; value?: unknown }>;

/** Latest value of each key (all keys when none are named). */
export async function latestTelemetry(
  session: AdminSession,
  deviceId: string,
  keys?: readonly string[],
): Promise<Map<string, StoredValue>> {
  const query = keys?.length ? `${keysQuery(keys)}&` : '';
  const answer = await session.call(
    'GET',
    `${TELEMETRY_API}/${deviceId}/values/timeseries?${query}useStrictDataTypes=true`,
  );
  const out = new Map<string, StoredValue>();
  for (const [key, series] of Object.entries((answer.json ?? {}) as Record<string, Series>)) {
    const latest = series[0];
    if (latest) out.set(key, storedValue(latest));
  }
  return out;
}

/**
 * Values of the keys stored in [startTs, endTs], both included, as the platform orders them (newest
 * first). The platform's endTs is exclusive (ThingsBoard: `ts >= startTs AND ts < endTs`,
 * TsKvRepository.java:40), so the query asks for endTs + 1.
 */
export async function telemetryHistory(
  session: AdminSession,
  deviceId: string,
  keys: readonly string[],
  startTs: number,
  endTs: number,
  limit = 1000,
): Promise<Map<string, StoredValue[]>> {
  const path = `${TELEMETRY_API}/${deviceId}/values/timeseries?${keysQuery(keys)}&startTs=${startTs}&endTs=${endTs + 1}&limit=${limit}&useStrictDataTypes=true`;
  const answer = await session.call('GET', path);
  const out = new Map<string, StoredValue[]>();
  for (const [key, series] of Object.entries((answer.json ?? {}) as Record<string, Series>))
    out.set(key, series.map(storedValue));
  return out;
}

/** Every telemetry key the device holds. */
export async function telemetryKeys(session: AdminSession, deviceId: string): Promise<string[]> {
  return ((await session.call('GET', `${TELEMETRY_API}/${deviceId}/keys/timeseries`)).json ??
    []) as string[];
}

function storedValue(entry: { ts?: unknown; value?: unknown }): StoredValue {
  return { ts: Number(String(entry.ts)), value: typedValueOf(entry.value) };
}
