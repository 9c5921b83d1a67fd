/** Reading expectations written in scenarios: typed values from a table row, JSON documents compared by type. */
import { isLosslessNumber } from 'lossless-json';
import {
  jsonEqual,
  numberFromLexeme,
  parseLossless,
  typedValuesEqual,
  type TypedValue,
  type ValueType,
} from '../../src/kv/values';

const TYPE_NAMES: Record<string, ValueType> = {
  string: 'STRING',
  boolean: 'BOOLEAN',
  double: 'DOUBLE',
  long: 'LONG',
  json: 'JSON',
};

/** The typed value a table row means: `| 21.5 | double |`, `| abc | string |`, `| {"a":[1]} | json |`. */
export function expectedValue(text: string, typeName: string): TypedValue {
  const type = TYPE_NAMES[typeName.toLowerCase()];
  switch (type) {
    case 'STRING':
      return { type, value: text };
    case 'BOOLEAN':
      if (text !== 'true' && text !== 'false')
        throw new Error(`a boolean is true or false, not ${text}`);
      return { type, value: text === 'true' };
    case 'DOUBLE':
      return { type, value: Number(text) };
    case 'LONG':
      return { type, value: BigInt(text) };
    case 'JSON':
      return { type, value: JSON.parse(text) };
    default:
      throw new Error(
        `unknown value type "${typeName}": use string, boolean, double, long or json`,
      );
  }
}

/**
 * True when the stored value is the expected one. A JSON document may come back as its text (the real platform
 * reads JSON values as strings), which matches when it parses to the same document.
 */
export function storedMatches(expected: TypedValue, stored: TypedValue | undefined): boolean {
  if (!stored) return false;
  if (typedValuesEqual(expected, stored)) return true;
  if (expected.type === 'JSON' && stored.type === 'STRING') {
    try {
      return jsonEqual(expected.value, JSON.parse(stored.value));
    } catch {
      return false;
    }
  }
  return false;
}

/** A lossless JSON tree with every number replaced by "LONG:42" / "DOUBLE:42" so that comparisons see types. */
export function canonical(value: unknown): unknown {
  if (isLosslessNumber(value)) {
    const typed = numberFromLexeme((value as { value: string }).value);
    return `${typed.type}:${String(typed.value)}`;
  }
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, canonical(inner)]));
  }
  return value;
}

/** Compares a received JSON body with the JSON text of a scenario, number types included. */
export function sameJson(received: unknown, expectedText: string): boolean {
  return jsonEqual(canonical(received), canonical(parseLossless(expectedText)));
}

/**
 * True when the stored value, read as the expected type, is the expected value, whatever type it was stored with:
 * a scenario that does not check the entry type (RC-ENT-02, RC-BODY-03) accepts 21.5 stored as the text "21.5",
 * so a connector that sends every value as text fails only the type requirements. Text is read as ThingsBoard
 * reads typed text: numbers by value, booleans case-insensitively ("True" is Python's text of true).
 */
export function storedValueMatches(expected: TypedValue, stored: TypedValue | undefined): boolean {
  if (!stored) return false;
  if (storedMatches(expected, stored)) return true;
  const text = typeof stored.value === 'string' ? stored.value : String(stored.value);
  switch (expected.type) {
    case 'DOUBLE':
    case 'LONG':
      return text.trim() !== '' && Number(text) === Number(expected.value);
    case 'BOOLEAN':
      return text.toLowerCase() === String(expected.value);
    case 'STRING':
      return text === expected.value;
    default:
      return false;
  }
}
