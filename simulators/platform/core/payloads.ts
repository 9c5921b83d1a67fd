/**
 * Payload parsing shared by the transports and the admin API: JSON text → schema check (schemas/) → lossless
 * re-read → typed entries (lib/kv/values.ts). Throws BadRequestError with a clear reason; stores nothing.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import {
  checkJsonDepth,
  numberFromLexeme,
  parseLosslessValid,
  typedValueOf,
  type Lossless,
  type TypedValue,
} from '../../../lib/kv/values';
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import { NO_QUIRKS, type Quirks } from '../quirks';
import { acceptedTelemetrySchema, type DocumentOf } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from './errors';
import { faultActive } from '../../../faults';

/**
 * The deepest JSON nesting the platform parses: the mode's limit; none under the planted fault ROB-NEST-01:no-depth-limit,
 * one level less under ROB-NEST-01:limit-off-by-one.
 */
function nestingLimit(quirks: Quirks): number {
  if (faultActive('ROB-NEST-01:no-depth-limit')) return Number.POSITIVE_INFINITY;
  return quirks.jsonMaxNestingDepth - (faultActive('ROB-NEST-01:limit-off-by-one') ? 1 : 0);
}

export function parseJson(text: string, what: string, quirks: Quirks = NO_QUIRKS): unknown {
  try {
    // before anything is parsed, so before anything can be stored
    checkJsonDepth(text, nestingLimit(quirks));
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: malformed JSON (${(error as Error).message})`);
  }
}

/**
 * Parses, validates against the schema, then re-reads losslessly so that value types are known. In quirks mode
 * with dropNullValues, null members of key-value objects are removed first (`kvObjects` finds those objects).
 * The document has the schema's type (DocumentOf) with every number a LosslessNumber (Lossless): the plain reading
 * of the same text, nulls dropped alike, passed the schema.
 */
export function parseValid<const Schema extends JSONSchema & object, Document = DocumentOf<Schema>>(
  text: string,
  schema: Schema,
  what: string,
  quirks: Quirks = NO_QUIRKS,
  kvObjects: (document: unknown) => unknown[] = (document) => [document],
): Lossless<Document> {
  const plain = parseJson(text, what, quirks);
  const dropNullValues = quirks.dropNullValues || faultActive('HTTP-ERR-01:nulls-dropped');
  if (dropNullValues) for (const object of kvObjects(plain)) dropNulls(object);
  const check = validate(schema, plain);
  if (!check.ok) throw new BadRequestError(`Invalid ${what}: ${check.errors.join('; ')}`);
  try {
    // parseJson accepted this text above, its depth held to the same limit: the faster reading of valid text gives
    // lossless-json's tree without a second depth pass
    const document = parseLosslessValid(text);
    if (dropNullValues) for (const object of kvObjects(document)) dropNulls(object);
    // the one cast: ajv checked the plain reading of this text against the schema just above
    return document as Lossless<Document>;
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: ${(error as Error).message}`);
  }
}

function dropNulls(object: unknown): void {
  if (!object || typeof object !== 'object' || Array.isArray(object)) return;
  for (const [key, value] of Object.entries(object))
    if (value === null) delete (object as Record<string, unknown>)[key];
}

/** ThingsBoard's NumberUtils.isParsable: an optional minus, digits, at most one point; no exponent, no hex. */
const PARSABLE_NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;

/** Key-value object (lossless) → typed entries; null is not a value. */
export function typedEntries(
  document: unknown,
  quirks: Quirks = NO_QUIRKS,
): Array<[string, TypedValue]> {
  const entries: Array<[string, TypedValue]> = [];
  for (const [key, value] of Object.entries(document as Record<string, unknown>)) {
    let typed = typedValueOf(value);
    if (!typed) throw new BadRequestError(`Invalid value of ${key}: null is not a value`);
    if (quirks.castNumericStrings && typed.type === 'STRING' && PARSABLE_NUMBER.test(typed.value)) {
      typed = numberFromLexeme(
        typed.value.includes('.') && !/\.\d/.test(typed.value) ? `${typed.value}0` : typed.value,
      );
    }
    if (quirks.bigScaleDoublesAsStrings && typed.type === 'DOUBLE' && isLosslessNumber(value)) {
      const plain = plainDecimalOfBigScale((value as LosslessNumber).value);
      if (plain !== undefined) typed = { type: 'STRING', value: plain };
    }
    if (quirks.jsonNullMembersDropped && typed.type === 'JSON')
      typed = { type: 'JSON', value: withoutNullMembers(typed.value) };
    entries.push([faultyKey(key), faultyValue(typed)]);
  }
  return entries;
}

/** Planted faults of keys (faults/catalogue/key-value-data.ts): a key stored other than as sent. */
function faultyKey(key: string): string {
  if (faultActive('KV-01:keys-lowercased')) return key.toLowerCase();
  if (faultActive('KV-01:keys-trimmed')) return key.trim();
  return key;
}

/** Planted faults of value types (faults/catalogue/key-value-data.ts): each stores one type wrongly. */
function faultyValue(typed: TypedValue): TypedValue {
  switch (typed.type) {
    case 'STRING':
      if (faultActive('KV-02:numeric-strings-cast') && PARSABLE_NUMBER.test(typed.value))
        return numberFromLexeme(typed.value);
      return typed;
    case 'BOOLEAN':
      if (faultActive('KV-03:booleans-as-strings'))
        return { type: 'STRING', value: String(typed.value) };
      return typed;
    case 'DOUBLE':
      if (faultActive('KV-04:integral-doubles-as-longs') && Number.isInteger(typed.value))
        return { type: 'LONG', value: BigInt(typed.value) };
      if (faultActive('KV-04:single-precision'))
        return { type: 'DOUBLE', value: Math.fround(typed.value) };
      return typed;
    case 'LONG':
      if (faultActive('KV-05:longs-rounded'))
        return { type: 'LONG', value: BigInt(Number(typed.value)) };
      if (faultActive('KV-05:negative-longs-as-doubles') && typed.value < 0n)
        return { type: 'DOUBLE', value: Number(typed.value) };
      return typed;
    case 'JSON':
      if (faultActive('KV-06:json-arrays-refused') && Array.isArray(typed.value))
        throw new BadRequestError('Invalid value: a JSON array is not a value');
      if (faultActive('KV-06:nested-nulls-dropped'))
        return { type: 'JSON', value: withoutNulls(typed.value) };
      return typed;
  }
}

/**
 * ThingsBoard's reading of a decimal number (JsonConverter.buildNumericKeyValueProto): a BigDecimal whose scale is
 * above 16 becomes a STRING of its plain text (BigDecimal.toPlainString); undefined when the scale is 16 or less.
 */
function plainDecimalOfBigScale(lexeme: string): string | undefined {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(lexeme);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  if (scale <= 16) return undefined;
  // unscaled digits with `scale` of them after the point (scale > 16 > 0 here)
  const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const padded = digits.padStart(scale + 1, '0');
  return `${sign}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/** The JSON value without the null members of its objects, at any depth; nulls inside arrays stay. */
function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== null)
        .map(([key, inner]) => [key, withoutNullMembers(inner)]),
    );
  return value;
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== null)
        .map(([key, inner]) => [key, withoutNulls(inner)]),
    );
  return value;
}

/** The key-value objects of a telemetry document: the object, each element, or the values of timestamped ones. */
function telemetryKvObjects(document: unknown): unknown[] {
  const elements = Array.isArray(document) ? document : [document];
  return elements.map((element) =>
    element &&
    typeof element === 'object' &&
    Object.hasOwn(element, 'ts') &&
    Object.hasOwn(element, 'values')
      ? (element as { values: unknown }).values
      : element,
  );
}

/** The three telemetry forms → entries with their timestamps (server time `now` where the form has none). */
export function telemetryEntries(
  text: string,
  now: number,
  quirks: Quirks = NO_QUIRKS,
): Array<{ ts: number; values: Array<[string, TypedValue]> }> {
  const document = parseValid(
    text,
    acceptedTelemetrySchema,
    'telemetry',
    quirks,
    telemetryKvObjects,
  );
  const array = Array.isArray(document);
  let elements = array ? document : [document];
  if (array && faultActive('HTTP-TEL-02:first-element-only')) elements = elements.slice(0, 1);
  // a planted fault (faults/) may store plain elements at the epoch instead of the server's time
  const epoch = array
    ? faultActive('HTTP-TEL-02:epoch-timestamp')
    : faultActive('HTTP-TEL-01:epoch-timestamp');
  const plainTs = epoch ? 0 : now;
  const records = elements.map((element) => {
    const record = element as Record<string, unknown>;
    if (Object.hasOwn(record, 'ts') && Object.hasOwn(record, 'values'))
      return { ts: timestampOf(record.ts, now), values: typedEntries(record.values, quirks) };
    const values = typedEntries(record, quirks);
    if (!array && faultActive('HTTP-TEL-01:last-key-dropped')) values.pop();
    return { ts: plainTs, values };
  });
  return withoutLateRecords(records, quirks);
}

/** The first millisecond of the year 10000 (10000-01-01T00:00:00Z). */
const YEAR_10000_MS = 253_402_300_800_000;

/** ThingsBoard (quirk timestampsFromYear10000Dropped) stores no telemetry from the year 10000 on. */
export function withoutLateRecords<T extends { ts: number }>(records: T[], quirks: Quirks): T[] {
  return quirks.timestampsFromYear10000Dropped
    ? records.filter((record) => record.ts < YEAR_10000_MS)
    : records;
}

/** The ts of the timestamped form, unless a planted fault ignores it or reads it as seconds. */
function timestampOf(ts: unknown, now: number): number {
  if (faultActive('HTTP-TEL-03:device-ts-ignored')) return now;
  const millis = Number(String(ts));
  return faultActive('HTTP-TEL-03:ts-as-seconds') ? millis * 1000 : millis;
}
