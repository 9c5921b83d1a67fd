/** Time series of a device: a history per key kept sorted by ts, and the latest value per key. */
import type { TypedValue } from '../../../src/kv/values';
import type { Device, TimeseriesEntry } from './model';

/** History kept per key: the newest entries, so that a long `iotc simulate` session under load stays bounded. */
export const MAX_HISTORY_PER_KEY = 100_000;

export interface TelemetryRecord {
  ts: number;
  values: Array<[string, TypedValue]>;
}

/**
 * Keeps a series sorted by ts, one entry per ts (a later value at the same ts replaces the earlier one, as the
 * platform's time series). Appending in time order, the common case, is O(1); anything else is a binary search.
 */
export function insertByTs(series: TimeseriesEntry[], entry: TimeseriesEntry): void {
  const last = series[series.length - 1];
  if (!last || last.ts < entry.ts) {
    series.push(entry);
    return;
  }
  let low = 0;
  let high = series.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (series[middle].ts < entry.ts) low = middle + 1;
    else high = middle;
  }
  if (series[low]?.ts === entry.ts) series[low] = entry;
  else series.splice(low, 0, entry);
}

/** Stores already validated records; the latest value of a key is the one with the greatest ts. */
export function appendTelemetry(device: Device, records: TelemetryRecord[]): void {
  for (const { ts, values } of records) {
    for (const [key, value] of values) {
      const entry = { ts, value };
      let series = device.history.get(key);
      if (!series) device.history.set(key, (series = []));
      insertByTs(series, entry);
      if (series.length > MAX_HISTORY_PER_KEY)
        series.splice(0, series.length - MAX_HISTORY_PER_KEY);
      const latest = device.latest.get(key);
      if (!latest || latest.ts <= ts) device.latest.set(key, entry);
    }
  }
}

/** History of one key in [startTs, endTs], newest first unless ascending, at most `limit` entries. */
export function historyOf(
  device: Device,
  key: string,
  range: { startTs: number; endTs: number; limit: number; ascending: boolean },
): TimeseriesEntry[] {
  const inRange = (device.history.get(key) ?? []).filter(
    (entry) => entry.ts >= range.startTs && entry.ts <= range.endTs,
  );
  if (!range.ascending) inRange.reverse();
  return inRange.slice(0, range.limit);
}
