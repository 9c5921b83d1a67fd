/**
 * Keys and typed values (STRING, BOOLEAN, DOUBLE, LONG, JSON) and the derive options that put them
 * into payloads.
 */
import fc from 'fast-check';
import { keyValueSchema } from '../kv';
import { typedValueToLossless, type TypedValue } from '../../lib/kv/values';

import { type DeriveOptions, Deriver, defineMember } from './derive';

/**
 * Words of real device payloads; combined with separators and unicode they make realistic but
 * tricky keys.
 */
const KEY_WORDS = [
  'temperature',
  'humidity',
  'pressure',
  'battery',
  'rssi',
  'fw',
  'version',
  'status',
  'active',
  'location',
  'lat',
  'lon',
  'Température',
  'Luftfeuchtigkeit',
  'температура',
  '温度',
  'ضغط',
  'sensor',
  'room',
  'A',
  'x',
  '1',
  'ok',
  '🌡️',
  'ünïcödé',
  'constructor',
  'toString',
  'hasOwnProperty',
  'length',
  'valueOf',
];
const KEY_SEPARATORS = ['', ' ', '.', '_', '-', '/', ':', '$', '#', '.'];

/**
 * Telemetry and attribute keys: realistic names with spaces, dots and unicode. Never a comma (the
 * read-back APIs take comma-separated key lists, so such a key cannot be read back on any
 * platform), never blank, never with leading or trailing spaces, never `__proto__`, and never `ts`
 * or `values` (the platform treats them specially; the schemas' `not: {required: [ts, values]}`
 * keeps generated plain objects apart from the timestamped form).
 */
export function keyArbitrary(): fc.Arbitrary<string> {
  const separator = fc.constantFrom(...KEY_SEPARATORS);
  const word = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...KEY_WORDS) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }) },
  );
  return fc
    .tuple(word, fc.array(fc.tuple(separator, word), { maxLength: 3 }))
    .map(([first, rest]) => first + rest.map(([sep, next]) => sep + next).join(''))
    .map((key) => key.replace(/,/g, ';').trim())
    .filter(
      (key) =>
        key.length > 0 &&
        key.length <= 64 &&
        key !== '__proto__' &&
        key !== 'ts' &&
        key !== 'values',
    );
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * STRING: realistic words, unicode, empty, JSON-looking and number-looking text (a string stays a
 * STRING).
 */
function stringValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc
    .oneof(
      fc.string({ unit: 'grapheme', maxLength: 24 }),
      fc.string({ unit: 'binary-ascii', maxLength: 24 }),
      fc.constantFrom(
        '',
        ' ',
        'on',
        'OFF',
        'true',
        'null',
        '42',
        '1.5',
        '{"a":1}',
        '[1,2]',
        'line\nbreak',
        'tab\tand "quotes" \\',
      ),
    )
    .map((value): TypedValue => ({ type: 'STRING', value }));
}

function booleanValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc.boolean().map((value): TypedValue => ({ type: 'BOOLEAN', value }));
}

/**
 * DOUBLE: finite and not an integer, so its lexeme always carries `.` or an exponent (21.5, 1e-7,
 * ...).
 */
export function doubleValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc
    .oneof(
      fc.integer({ min: -100_000, max: 100_000 }).map((hundredths) => hundredths / 100), // sensor-like readings
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    )
    .filter((value) => Number.isFinite(value) && !Number.isInteger(value))
    .map((value): TypedValue => ({ type: 'DOUBLE', value }));
}

/** LONG: the whole signed 64-bit range, as bigint (2^63-1 must survive the round trip). */
function longValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc
    .bigInt({ min: LONG_MIN, max: LONG_MAX })
    .map((value): TypedValue => ({ type: 'LONG', value }));
}

/** JSON: a nested object or array (null allowed inside, not at the top: null is not a value). */
function jsonValueArbitrary(): fc.Arbitrary<TypedValue> {
  const deriver = new Deriver({ keys: keyArbitrary(), maxEntries: 3, maxDepth: 2 });
  const document = fc.oneof(
    deriver.derive({ type: 'object', additionalProperties: {} }),
    deriver.derive({ type: 'array', items: {} }),
  );
  return document.map((value): TypedValue => ({ type: 'JSON', value }));
}

/** The five value types of docs/reference/interfaces.md. */
export type ValueType = TypedValue['type'];

/**
 * Which values a payload may hold: `types` (default all five; JSON documents keep their nested
 * strings), or all but STRING with `withoutStrings`. The payload scenarios split the payloads by
 * the types they hold, so that a target declaring a deviation of one type (KV-02: a numeric string
 * is stored as a number; KV-04, KV-06) still runs the scenarios of the others
 * (steps/properties.steps.ts).
 */
export interface ValueOptions {
  withoutStrings?: boolean;
  types?: readonly ValueType[];
}

/**
 * One of the five value types of docs/reference/interfaces.md (or those of `options`), with its
 * type explicit.
 */
export function typedValueArbitrary(options: ValueOptions = {}): fc.Arbitrary<TypedValue> {
  const all: Record<ValueType, () => fc.Arbitrary<TypedValue>> = {
    STRING: stringValueArbitrary,
    BOOLEAN: booleanValueArbitrary,
    DOUBLE: doubleValueArbitrary,
    LONG: longValueArbitrary,
    JSON: jsonValueArbitrary,
  };
  const types = (options.types ?? (Object.keys(all) as ValueType[])).filter(
    (type) => !(options.withoutStrings && type === 'STRING'),
  );
  return fc.oneof(...types.map((type) => all[type]()));
}

/**
 * Marks a generated key-value value inside a document until serialization, so its type is never
 * guessed.
 */
export class GeneratedValue {
  constructor(readonly typed: TypedValue) {}
}

export const keyValueOverrides = (
  options: ValueOptions = {},
): ReadonlyMap<object, fc.Arbitrary<unknown>> =>
  new Map<object, fc.Arbitrary<unknown>>([
    [keyValueSchema, typedValueArbitrary(options).map((typed) => new GeneratedValue(typed))],
  ]);

export const payloadDeriveOptions = (options: ValueOptions = {}): DeriveOptions => ({
  overrides: keyValueOverrides(options),
  keys: keyArbitrary(),
  maxEntries: 5,
});

/**
 * A document with GeneratedValue markers → the lossless tree that stringifies with the right
 * lexemes.
 */
export function toWireTree(document: unknown): unknown {
  if (document instanceof GeneratedValue) return typedValueToLossless(document.typed);
  if (Array.isArray(document)) return document.map(toWireTree);
  if (document !== null && typeof document === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(document)) defineMember(out, key, toWireTree(value));
    return out;
  }
  return document;
}
