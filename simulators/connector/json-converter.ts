/**
 * The json converter (docs/reference/interfaces.md "json converter parameters"): device name and profile from deviceInfo, then
 * every attributes and timeseries entry: key and value expressions evaluated on the request's data, the value
 * converted to the entry's type, None (a missing field, null, an unconvertible value) not passed on. Timeseries
 * timestamps come from tsField (a datetime string read with dayfirst/yearfirst), else the ts or timestamp member
 * of the message, else the time the request arrived.
 */
import { faultActive } from '../../faults';
import {
  evaluate,
  evaluateText,
  hasPlaceholders,
  textOf,
  type EvaluateOptions,
} from '../../lib/expressions';
import { typedValueOf, type TypedValue } from '../../lib/kv/values';
import type { ConverterConfig, Entry, TimeseriesEntry } from './config-types';
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
    const multipart = /^multipart\//i.test(request.contentType ?? '');
    const attributes: Record<string, TypedValue> = {};
    const byTs = new Map<number, Record<string, TypedValue>>();
    for (const entry of this.config.attributes) {
      const converted = convertEntry(entry, data, multipart, this.quirks);
      if (!converted) continue;
      if (faultActive('RC-JSON-06:attributes-as-telemetry')) {
        const values = byTs.get(request.receivedAt) ?? {};
        values[converted.key] = converted.value;
        byTs.set(request.receivedAt, values);
      } else attributes[converted.key] = converted.value;
    }
    for (const entry of this.config.timeseries) {
      const converted = convertEntry(entry, data, multipart, this.quirks);
      if (!converted) continue;
      if (faultActive('RC-JSON-07:timeseries-as-attributes')) {
        attributes[converted.key] = converted.value;
        continue;
      }
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
  multipart: boolean,
  quirks: ConnectorQuirks,
): { key: string; value: TypedValue } | undefined {
  const key = faultActive('RC-ENT-01:key-not-evaluated')
    ? entry.key
    : evaluateText(entry.key, data);
  if (key === undefined || key === '') return undefined;
  const raw =
    typeof entry.value === 'string' && hasPlaceholders(entry.value)
      ? evaluateValue(
          entry.value,
          data,
          quirks.noneInCompositeValues ? { missingText: 'None' } : {},
        )
      : entry.value;
  if (quirks.valuesAsText)
    return raw === undefined || raw === null
      ? undefined
      : { key, value: { type: 'STRING', value: pythonText(raw) } };
  if ((raw === undefined || raw === null) && faultActive('RC-CONV-03:missing-sent-as-text'))
    return { key, value: { type: 'STRING', value: 'None' } };
  if (
    raw !== undefined &&
    raw !== null &&
    (faultActive('RC-ENT-02:text-values') ||
      (multipart && faultActive('RC-BODY-03:multipart-text-values')))
  )
    return { key, value: { type: 'STRING', value: textOf(raw) } };
  if (raw !== undefined && raw !== null && faultActive('RC-ENT-02:type-ignored')) {
    const untyped = typedValueOf(raw);
    return untyped && { key, value: untyped };
  }
  const value = convertValue(raw, entry.type);
  return value && { key, value };
}

/** The value of an entry's expression (the faults of its parts switched here). */
function evaluateValue(
  expression: string,
  data: Record<string, unknown>,
  options: EvaluateOptions,
): unknown {
  if (faultActive('RC-ENT-03:value-not-evaluated')) return expression;
  if (faultActive('RC-ENT-03:nested-path-unsupported') && /\$\{[^}]*\.[^}]*\}/.test(expression))
    return undefined;
  if (faultActive('RC-ENT-04:first-expression-only')) {
    const first = /\$\{[^}]*\}/.exec(expression);
    if (first && first[0] !== expression) return evaluate(first[0], data, options);
  }
  return evaluate(expression, data, options);
}

function timestampOf(
  entry: TimeseriesEntry,
  data: Record<string, unknown>,
  receivedAt: number,
): number {
  if (entry.tsField && !faultActive('RC-ENT-05:ts-field-ignored')) {
    const field = evaluate(entry.tsField, data);
    const parsed = typeof field === 'string' ? parseDatetime(field, entry) : undefined;
    if (parsed !== undefined) return parsed;
  }
  const ignored = {
    ts: faultActive('RC-ENT-06:ts-ignored'),
    timestamp: faultActive('RC-ENT-06:timestamp-ignored'),
  };
  for (const member of ['ts', 'timestamp'] as const) {
    if (ignored[member]) continue;
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
