/**
 * The json converter (interfaces.md "json converter parameters"): device name and profile from deviceInfo, then
 * every attributes and timeseries entry: key and value expressions evaluated on the request's data, the value
 * converted to the entry's type, None (a missing field, null, an unconvertible value) not passed on. Timeseries
 * timestamps come from tsField (a datetime string read with dayfirst/yearfirst), else the ts or timestamp member
 * of the message, else the time the request arrived.
 */
import { evaluate, evaluateText, hasPlaceholders } from '../../src/expressions';
import type { TypedValue } from '../../src/kv/values';
import type { ConverterConfig, Entry, TimeseriesEntry } from './config';
import type { ConvertedData, RequestData, UplinkConverter } from './converted';
import { parseDatetime } from './datetime';
import { deviceOf } from './device-info';
import { pythonText } from './python-text';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { convertValue } from './typed-values';

export class JsonConverter implements UplinkConverter {
  constructor(
    private readonly config: Extract<ConverterConfig, { type: 'json' }>,
    private readonly quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
  ) {}

  convert(request: RequestData): ConvertedData {
    const { data } = request;
    const attributes: Record<string, TypedValue> = {};
    for (const entry of this.config.attributes) {
      const converted = convertEntry(entry, data, this.quirks);
      if (converted) attributes[converted.key] = converted.value;
    }
    const byTs = new Map<number, Record<string, TypedValue>>();
    for (const entry of this.config.timeseries) {
      const converted = convertEntry(entry, data, this.quirks);
      if (!converted) continue;
      const ts = timestampOf(entry, data, request.receivedAt);
      const values = byTs.get(ts) ?? {};
      values[converted.key] = converted.value;
      byTs.set(ts, values);
    }
    return {
      ...deviceOf(this.config.deviceInfo, data),
      attributes,
      telemetry: [...byTs].map(([ts, values]) => ({ ts, values })),
    };
  }
}

/** One entry's key and typed value, or undefined when either is None. */
function convertEntry(
  entry: Entry,
  data: Record<string, unknown>,
  quirks: ConnectorQuirks,
): { key: string; value: TypedValue } | undefined {
  const key = evaluateText(entry.key, data);
  if (key === undefined || key === '') return undefined;
  const raw =
    typeof entry.value === 'string' && hasPlaceholders(entry.value)
      ? evaluate(entry.value, data, quirks.noneInCompositeValues ? { missingText: 'None' } : {})
      : entry.value;
  if (quirks.valuesAsText)
    return raw === undefined || raw === null
      ? undefined
      : { key, value: { type: 'STRING', value: pythonText(raw) } };
  const value = convertValue(raw, entry.type);
  return value && { key, value };
}

function timestampOf(
  entry: TimeseriesEntry,
  data: Record<string, unknown>,
  receivedAt: number,
): number {
  if (entry.tsField) {
    const field = evaluate(entry.tsField, data);
    const parsed = typeof field === 'string' ? parseDatetime(field, entry) : undefined;
    if (parsed !== undefined) return parsed;
  }
  for (const member of ['ts', 'timestamp']) {
    const value = data[member];
    const number =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d+$/.test(value)
          ? Number(value)
          : undefined;
    if (number !== undefined && Number.isSafeInteger(number)) return number;
  }
  return receivedAt;
}
