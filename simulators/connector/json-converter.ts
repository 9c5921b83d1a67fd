/**
 * The json converter (docs/reference/interfaces.md "json converter parameters"): device name and
 * profile from deviceInfo, then every attributes and timeseries entry: key and value expressions
 * evaluated on the request's data, the value converted to the entry's type, None (a missing field,
 * null, an unconvertible value) not passed on. Timeseries timestamps come from tsField (a datetime
 * string read with dayfirst/yearfirst), else the ts or timestamp member of the message, else the
 * time the request arrived.
 */
import {
  evaluate,
  evaluateText,
  hasPlaceholders,
  type EvaluateOptions,
} from '../../lib/expressions';
import type { TypedValue } from '../../lib/kv/values';
import type { ConverterConfig, DeviceInfo, Entry, TimeseriesEntry } from './config-types';
import type { ConvertedData, RequestData, UplinkConverter } from './converted';
import { parseDatetime } from './datetime';
import { deviceOf } from './device-info';
import { pythonText } from './python-text';
import { NO_CONNECTOR_QUIRKS, type ConnectorQuirks } from './quirks';
import { convertValue } from './typed-values';

type Values = Record<string, TypedValue>;
type Converted = { key: string; value: TypedValue };

/** What a conversion builds: the attributes, and the telemetry by timestamp. */
export interface Conversion {
  attributes: Values;
  telemetryAt(ts: number): Values;
}

/** The json converter's steps (steps.ts); step-faults.ts wraps them. */
export interface JsonConverterSteps {
  /** The device name and profile of the request. */
  device(deviceInfo: DeviceInfo, data: unknown): { deviceName: string; deviceProfile: string };
  /** An entry's key from its expression ('' or undefined: None). */
  key(entry: Entry, data: Record<string, unknown>): string | undefined;
  /** The value of an entry's expression. */
  value(expression: string, data: Record<string, unknown>, options: EvaluateOptions): unknown;
  /** The raw value as the entry's typed value (undefined: None, not passed on). */
  typed(raw: unknown, entry: Entry, multipart: boolean): TypedValue | undefined;
  /** A timeseries entry's timestamp. */
  timestamp(entry: TimeseriesEntry, data: Record<string, unknown>, receivedAt: number): number;
  /** Where a converted attributes entry goes. */
  attribute(conversion: Conversion, converted: Converted, receivedAt: number): void;
  /** Where a converted timeseries entry goes. */
  timeseries(conversion: Conversion, converted: Converted, ts: number): void;
}

export const JSON_CONVERTER_STEPS: JsonConverterSteps = {
  device: deviceOf,
  key: (entry, data) => evaluateText(entry.key, data),
  value: (expression, data, options) => evaluate(expression, data, options),
  typed: (raw, entry) => convertValue(raw, entry.type),
  timestamp: timestampOf,
  attribute: (conversion, { key, value }) => {
    conversion.attributes[key] = value;
  },
  timeseries: (conversion, { key, value }, ts) => {
    conversion.telemetryAt(ts)[key] = value;
  },
};

export class JsonConverter implements UplinkConverter {
  constructor(
    private readonly config: Extract<ConverterConfig, { type: 'json' }>,
    private readonly quirks: ConnectorQuirks = NO_CONNECTOR_QUIRKS,
    private readonly steps: JsonConverterSteps = JSON_CONVERTER_STEPS,
  ) {}

  convert(request: RequestData): ConvertedData {
    const { data } = request;
    const multipart = /^multipart\//i.test(request.contentType ?? '');
    const byTs = new Map<number, Values>();
    const conversion: Conversion = {
      attributes: {},
      telemetryAt: (ts) => {
        const values = byTs.get(ts) ?? {};
        byTs.set(ts, values);
        return values;
      },
    };
    for (const entry of this.config.attributes) {
      const converted = this.convertEntry(entry, data, multipart);
      if (converted) this.steps.attribute(conversion, converted, request.receivedAt);
    }
    for (const entry of this.config.timeseries) {
      const converted = this.convertEntry(entry, data, multipart);
      if (converted)
        this.steps.timeseries(
          conversion,
          converted,
          this.steps.timestamp(entry, data, request.receivedAt),
        );
    }
    return {
      ...this.steps.device(this.config.deviceInfo, data),
      attributes: conversion.attributes,
      telemetry: [...byTs].map(([ts, values]) => ({ ts, values })),
    };
  }

  /** One entry's key and typed value, or undefined when either is None. */
  private convertEntry(
    entry: Entry,
    data: Record<string, unknown>,
    multipart: boolean,
  ): Converted | undefined {
    const { quirks, steps } = this;
    const key = steps.key(entry, data);
    if (key === undefined || key === '') return undefined;
    const raw =
      typeof entry.value === 'string' && hasPlaceholders(entry.value)
        ? steps.value(
            entry.value,
            data,
            quirks.noneInCompositeValues ? { missingText: 'None' } : {},
          )
        : entry.value;
    if (quirks.valuesAsText)
      return raw === undefined || raw === null
        ? undefined
        : { key, value: { type: 'STRING', value: pythonText(raw) } };
    const value = steps.typed(raw, entry, multipart);
    return value && { key, value };
  }
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
  for (const member of ['ts', 'timestamp'] as const) {
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
