/**
 * Payload parsing shared by the transports and the admin API: JSON text → schema check (schemas/) → lossless
 * re-read → typed entries (src/kv/values.ts). Throws BadRequestError with a clear reason; stores nothing.
 */
import { parseLossless, typedValueOf, type TypedValue } from '../../../src/kv/values';
import { telemetrySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from '../core/errors';

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: malformed JSON (${(error as Error).message})`);
  }
}

/** Parses, validates against the schema, then re-reads losslessly so that value types are known. */
export function parseValid(text: string, schema: object, what: string): unknown {
  const plain = parseJson(text, what);
  const check = validate(schema, plain);
  if (!check.ok) throw new BadRequestError(`Invalid ${what}: ${check.errors.join('; ')}`);
  try {
    return parseLossless(text);
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: ${(error as Error).message}`);
  }
}

/** Key-value object (lossless) → typed entries; null is not a value. */
export function typedEntries(document: unknown): Array<[string, TypedValue]> {
  const entries: Array<[string, TypedValue]> = [];
  for (const [key, value] of Object.entries(document as Record<string, unknown>)) {
    const typed = typedValueOf(value);
    if (!typed) throw new BadRequestError(`Invalid value of ${key}: null is not a value`);
    entries.push([key, typed]);
  }
  return entries;
}

/** The three telemetry forms → entries with their timestamps (server time `now` where the form has none). */
export function telemetryEntries(text: string, now: number): Array<{ ts: number; values: Array<[string, TypedValue]> }> {
  const document = parseValid(text, telemetrySchema, 'telemetry');
  const elements = Array.isArray(document) ? document : [document];
  return elements.map((element) => {
    const record = element as Record<string, unknown>;
    return Object.hasOwn(record, 'ts') && Object.hasOwn(record, 'values')
      ? { ts: Number(String(record.ts)), values: typedEntries(record.values) }
      : { ts: now, values: typedEntries(record) };
  });
}
