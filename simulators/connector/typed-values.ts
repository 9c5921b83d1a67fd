/**
 * The entry `type` of the json converter: an incoming value converted to the configured type
 * (docs/reference/interfaces.md: multipart values arrive as strings and are converted to boolean,
 * integer or double). The result is a TypedValue, so a double is published as a double lexeme
 * (40.0, not 40) and the platform stores the type that was configured. A value that cannot be
 * converted (`abc` as double) is None: not passed on.
 */
import { typedValueOf, type TypedValue } from '../../lib/kv/values';
import { textOf } from '../../lib/expressions';
import type { EntryType } from './config-types';

export function convertValue(value: unknown, type: EntryType): TypedValue | undefined {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'string':
      return { type: 'STRING', value: textOf(value) };
    case 'double': {
      const number = toNumber(value);
      return number === undefined ? undefined : { type: 'DOUBLE', value: number };
    }
    case 'integer': {
      if (typeof value === 'bigint') return { type: 'LONG', value };
      const number = toNumber(value);
      if (number === undefined || !Number.isInteger(number)) return undefined;
      return { type: 'LONG', value: BigInt(number) };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { type: 'BOOLEAN', value };
      if (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))
        return { type: 'BOOLEAN', value: value.trim().toLowerCase() === 'true' };
      if (value === 1 || value === 0) return { type: 'BOOLEAN', value: value === 1 };
      return undefined;
    case 'json':
      if (typeof value === 'string') {
        try {
          return typedValueOf(JSON.parse(value));
        } catch {
          return { type: 'STRING', value };
        }
      }
      return typedValueOf(value);
  }
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (
    typeof value === 'string' &&
    value.trim() !== '' &&
    /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())
  )
    return Number(value.trim());
  return undefined;
}
