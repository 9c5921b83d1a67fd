/**
 * Reading expectations written in scenarios: typed values from a table row, JSON documents compared
 * by type.
 */
import { isLosslessNumber } from 'lossless-json';
import {
  jsonEqual,
  numberFromLexeme,
  parseLossless,
  typedValuesEqual,
  type TypedValue,
  type ValueType,
} from '../../lib/kv/values';

const TYPE_NAMES: Record<string, ValueType> = {
  string: 'STRING',
  boolean: 'BOOLEAN',
  double: 'DOUBLE',
  long: 'LONG',
  json: 'JSON',
};

/**
 * The typed value a table row means: `| 21.5 | double |`, `| abc | string |`, `| {"a":[1]} | json
 * |`.
 */
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
 * True when the stored value is the expected one. A JSON document may come back as its text (the
 * real platform reads JSON values as strings), which matches when it parses to the same document.
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

/**
 * A lossless JSON tree with every number replaced by "LONG:42" / "DOUBLE:42" so that comparisons
 * see types.
 */
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

const NUMBER_LEXEME = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * True when the stored value is the one a scenario wrote, whatever type it was stored as: numbers
 * compare as numbers (40 is 40.0 and "40"), booleans case-insensitively ("True" is Python's text of
 * true), JSON as documents, everything else as text. For checks that are not about the type, so
 * that a target storing every value as text fails only the requirements about types (RC-ENT-02,
 * RC-BODY-03).
 */
export function storedValueMatches(expectedText: string, stored: TypedValue | undefined): boolean {
  if (!stored) return false;
  if (stored.type === 'JSON') {
    try {
      return jsonEqual(stored.value, JSON.parse(expectedText));
    } catch {
      return false; // the expected text is no JSON document
    }
  }
  const text =
    stored.type === 'DOUBLE' && Number.isInteger(stored.value)
      ? (stored.value as number).toFixed(1)
      : String(stored.value);
  if (NUMBER_LEXEME.test(expectedText.trim()) && NUMBER_LEXEME.test(text.trim()))
    return Number(expectedText) === Number(text);
  if (/^(true|false)$/i.test(expectedText))
    return text.toLowerCase() === expectedText.toLowerCase();
  return text === expectedText;
}
