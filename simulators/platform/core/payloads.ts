/**
 * Payload parsing shared by the transports and the admin API: JSON text → schema check (schemas/) → lossless
 * re-read → typed entries (src/kv/values.ts). Throws BadRequestError with a clear reason; stores nothing.
 */
import {
  checkJsonDepth,
  numberFromLexeme,
  parseLossless,
  typedValueOf,
  type TypedValue,
} from '../../../src/kv/values';
import { NO_QUIRKS, type Quirks } from '../quirks';
import { telemetrySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from './errors';

export function parseJson(text: string, what: string): unknown {
  try {
    checkJsonDepth(text); // before anything is parsed, so before anything can be stored
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: malformed JSON (${(error as Error).message})`);
  }
}

/**
 * Parses, validates against the schema, then re-reads losslessly so that value types are known. In quirks mode
 * with dropNullValues, null members of key-value objects are removed first (`kvObjects` finds those objects).
 */
export function parseValid(
  text: string,
  schema: object,
  what: string,
  quirks: Quirks = NO_QUIRKS,
  kvObjects: (document: unknown) => unknown[] = (document) => [document],
): unknown {
  const plain = parseJson(text, what);
  if (quirks.dropNullValues) for (const object of kvObjects(plain)) dropNulls(object);
  const check = validate(schema, plain);
  if (!check.ok) throw new BadRequestError(`Invalid ${what}: ${check.errors.join('; ')}`);
  try {
    const document = parseLossless(text);
    if (quirks.dropNullValues) for (const object of kvObjects(document)) dropNulls(object);
    return document;
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
    entries.push([key, typed]);
  }
  return entries;
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
  const document = parseValid(text, telemetrySchema, 'telemetry', quirks, telemetryKvObjects);
  const elements = Array.isArray(document) ? document : [document];
  return elements.map((element) => {
    const record = element as Record<string, unknown>;
    return Object.hasOwn(record, 'ts') && Object.hasOwn(record, 'values')
      ? { ts: Number(String(record.ts)), values: typedEntries(record.values, quirks) }
      : { ts: now, values: typedEntries(record, quirks) };
  });
}
