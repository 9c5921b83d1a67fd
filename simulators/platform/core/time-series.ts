/** Time series of a device: a history per key kept sorted by ts, and the latest value per key. */
import type { TypedValue } from '../../../lib/kv/values';
import type { Device, TimeseriesEntry } from './model';

/**
 * History kept per key: the newest entries, so that a long `iotc simulate` session under load stays
 * bounded. Only these are ever read (historyOf, deleteTelemetry).
 */
export const MAX_HISTORY_PER_KEY = 100_000;

/**
 * Entries a full series may hold beyond MAX_HISTORY_PER_KEY before its oldest are dropped: trimmed
 * in batches, not by `splice(0, 1)` of a 100,000-entry array for every new ts of every key (a copy
 * of the whole series per message once a key was full). The surplus is never read.
 */
const TRIM_SLACK = MAX_HISTORY_PER_KEY / 8;

/** The entries of a series that count: its newest MAX_HISTORY_PER_KEY. */
function kept(series: TimeseriesEntry[]): TimeseriesEntry[] {
  return series.length > MAX_HISTORY_PER_KEY ? series.slice(-MAX_HISTORY_PER_KEY) : series;
}

export interface TelemetryRecord {
  ts: number;
  values: Array<[string, TypedValue]>;
}

/**
 * Keeps a series sorted by ts, one entry per ts (a later value at the same ts replaces the earlier
 * one, as the platform's time series). Appending in time order, the common case, is O(1); anything
 * else is a binary search.
 */
function insertByTs(series: TimeseriesEntry[], entry: TimeseriesEntry): void {
  const last = series[series.length - 1];
  if (!last || last.ts < entry.ts) {
    series.push(entry);
    return;
  }
  // a second message in the same millisecond as the newest entry (most messages under load): the
  // binary search below would find the last entry too, after ~17 reads scattered over a full
  // 100,000-entry series (each a cache miss: 4 keys of the bench's device cost more than its payload)
  if (last.ts === entry.ts) {
    series[series.length - 1] = entry;
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

/**
 * Stores already validated records; the latest value of a key is the one with the greatest ts.
 * Linear in the message: a key's new entries are gathered first, then merged into its history once
 * (inserting each entry of a long message out of order would make it quadratic). A message of one
 * record (nearly every publish) is inserted entry by entry, with no gathering: the same outcome,
 * since its keys are distinct, or the later of two equal keys wins either way.
 */
export function appendTelemetry(device: Device, records: TelemetryRecord[]): void {
  if (records.length === 1) {
    const { ts, values } = records[0];
    for (const [key, value] of values) {
      const entry = { ts, value };
      let series = device.history.get(key);
      if (!series) device.history.set(key, (series = []));
      insertByTs(series, entry);
      trim(series);
      const latest = device.latest.get(key);
      if (!latest || latest.ts <= ts) device.latest.set(key, entry);
    }
    return;
  }
  const byKey = new Map<string, TimeseriesEntry[]>();
  for (const { ts, values } of records) {
    for (const [key, value] of values) {
      const entries = byKey.get(key);
      if (entries) entries.push({ ts, value });
      else byKey.set(key, [{ ts, value }]);
    }
  }
  for (const [key, entries] of byKey) {
    let series = device.history.get(key);
    if (!series) device.history.set(key, (series = []));
    series = mergeByTs(series, entries);
    trim(series);
    device.history.set(key, series);
    const newest = entries.reduce((best, entry) => (entry.ts >= best.ts ? entry : best));
    const latest = device.latest.get(key);
    if (!latest || latest.ts <= newest.ts) device.latest.set(key, newest);
  }
}

/** Drops a series' oldest entries once it is TRIM_SLACK past the bound: in batches. */
function trim(series: TimeseriesEntry[]): void {
  if (series.length > MAX_HISTORY_PER_KEY + TRIM_SLACK)
    series.splice(0, series.length - MAX_HISTORY_PER_KEY);
}

/**
 * The series with `entries` merged in, sorted by ts, one entry per ts (a later entry replaces an
 * earlier one at the same ts). Entries after the series' end in time order, the common case, are
 * appended in place.
 */
function mergeByTs(series: TimeseriesEntry[], entries: TimeseriesEntry[]): TimeseriesEntry[] {
  if (entries.length === 1) {
    insertByTs(series, entries[0]);
    return series;
  }
  let ascending = true;
  for (let index = 1; index < entries.length && ascending; index++)
    ascending = entries[index - 1].ts < entries[index].ts;
  const last = series[series.length - 1];
  if (ascending && (!last || last.ts < entries[0].ts)) {
    for (const entry of entries) series.push(entry);
    return series;
  }
  // the general case: a stable sort keeps the later of two entries at one ts after the earlier,
  // then last wins
  const sorted = [...series, ...entries].sort((a, b) => a.ts - b.ts);
  const merged: TimeseriesEntry[] = [];
  for (const entry of sorted) {
    if (merged.length > 0 && merged[merged.length - 1].ts === entry.ts)
      merged[merged.length - 1] = entry;
    else merged.push(entry);
  }
  return merged;
}

/**
 * History of one key in [startTs, endTs): endTs is exclusive, as on ThingsBoard
 * (TsKvRepository.java:40, 50, 58; docs/reference/interfaces.md does not say), newest first unless
 * ascending, at most `limit` entries.
 */
export function historyOf(
  device: Device,
  key: string,
  range: { startTs: number; endTs: number; limit: number; ascending: boolean },
): TimeseriesEntry[] {
  const inRange = kept(device.history.get(key) ?? []).filter(
    (entry) => entry.ts >= range.startTs && entry.ts < range.endTs,
  );
  if (!range.ascending) inRange.reverse();
  return inRange.slice(0, range.limit);
}

/**
 * Deletes the history of the keys in [startTs, endTs) (TelemetryController deleteEntityTimeseries,
 * 517-590; the end is exclusive as in TsKvRepository). The latest value goes too when it lies in
 * the range and `deleteLatest`; with `rewriteLatestIfDeleted` the newest remaining entry becomes
 * the latest.
 */
export function deleteTelemetry(
  device: Device,
  keys: readonly string[],
  range: { startTs: number; endTs: number; deleteLatest: boolean; rewriteLatestIfDeleted: boolean },
): void {
  const inRange = (ts: number) => ts >= range.startTs && ts < range.endTs;
  for (const key of keys) {
    const remaining = kept(device.history.get(key) ?? []).filter((entry) => !inRange(entry.ts));
    if (remaining.length > 0) device.history.set(key, remaining);
    else device.history.delete(key);
    const latest = device.latest.get(key);
    if (!latest || !range.deleteLatest || !inRange(latest.ts)) continue;
    const newest = remaining[remaining.length - 1];
    if (range.rewriteLatestIfDeleted && newest) device.latest.set(key, newest);
    else device.latest.delete(key);
  }
}
