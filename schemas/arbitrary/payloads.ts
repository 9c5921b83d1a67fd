/**
 * Valid and malformed device payloads (telemetry in its three forms, client attributes) with the
 * entries the platform must store.
 */
import fc from 'fast-check';
import { clientAttributesSchema } from '../attributes';
import { plainTelemetrySchema, telemetrySchema, timestampedTelemetrySchema } from '../telemetry';
import { isValid } from '../validate';
import { parseLossless, stringifyLossless, toPlain, type TypedValue } from '../../lib/kv/values';

import { type JsonSchema, arbitraryFromSchema, defineMember } from './derive';
import {
  GeneratedValue,
  doubleValueArbitrary,
  keyArbitrary,
  payloadDeriveOptions,
  toWireTree,
  type ValueOptions,
} from './values';

/**
 * One entry the platform must store: the key, the value with its type, and the device's ts when one
 * was sent.
 */
export interface ExpectedEntry {
  key: string;
  value: TypedValue;
  /** Present for the timestamped form; absent when the server assigns the timestamp. */
  ts?: number;
}

export type TelemetryForm = 'object' | 'array' | 'timestamped';

export interface ValidPayload<Form extends string = string> {
  form: Form;
  /**
   * The request body, exactly as sent (lossless lexemes: 21.5 is a DOUBLE, 9223372036854775807 a
   * LONG).
   */
  body: string;
  /** Plain-JS view of the body (numbers as JS numbers), as the schema validators see it. */
  document: unknown;
  expected: ExpectedEntry[];
}

export interface MalformedPayload {
  /** What is wrong, for people (e.g. "values is not an object", "truncated JSON text"). */
  defect: string;
  body: string;
}

/** The telemetry forms as the branches of `telemetrySchema.anyOf` (timestamped, object, array). */
const TELEMETRY_FORM_SCHEMAS: Record<TelemetryForm, JsonSchema> = {
  timestamped: timestampedTelemetrySchema,
  object: plainTelemetrySchema,
  array: telemetrySchema.anyOf[2],
};

/** Valid telemetry of one form (or any form), with every key unique within the payload. */
export function validTelemetry(
  form?: TelemetryForm,
  values: ValueOptions = {},
): fc.Arbitrary<ValidPayload<TelemetryForm>> {
  if (form === undefined)
    return fc.oneof(
      validTelemetry('object', values),
      validTelemetry('array', values),
      validTelemetry('timestamped', values),
    );
  const options = { ...payloadDeriveOptions(values), maxEntries: form === 'array' ? 3 : 5 };
  return arbitraryFromSchema(TELEMETRY_FORM_SCHEMAS[form], options)
    .map(makeKeysUnique)
    .map((document) => toValidPayload(form, document, telemetryEntries(document)));
}

/** Valid client attributes (a JSON object of key to value). */
export function validClientAttributes(
  values: ValueOptions = {},
): fc.Arbitrary<ValidPayload<'attributes'>> {
  return arbitraryFromSchema(clientAttributesSchema, payloadDeriveOptions(values)).map((document) =>
    toValidPayload('attributes', document, objectEntries(document as Record<string, unknown>)),
  );
}

/** Whether a valid payload stores a STRING value. */
export function hasStringValue(payload: Pick<ValidPayload, 'expected'>): boolean {
  return payload.expected.some((entry) => entry.value.type === 'STRING');
}

/** The first millisecond of the year 10000 (10000-01-01T00:00:00Z). */
const YEAR_10000_MS = 253_402_300_800_000;

/** Whether a valid payload carries a ts from the year 10000 on. */
export function hasLateTs(payload: Pick<ValidPayload, 'expected'>): boolean {
  return payload.expected.some((entry) => entry.ts !== undefined && entry.ts >= YEAR_10000_MS);
}

/**
 * Whether a valid payload stores nothing for itself or for one of the devices it names (`[]`, `{}`;
 * a gateway device with no entry or only empty values). ThingsBoard 4.3.1.3 never answers an empty
 * telemetry array (HTTP: 503 when Spring's 30 s async timeout ends the request; gateway: no
 * PUBACK), so such payloads stay out of the first part.
 */
export function storesNothingFor(
  payload: Pick<ValidPayload, 'expected'> & { devices?: readonly string[] },
): boolean {
  if (payload.expected.length === 0) return true;
  return (payload.devices ?? []).some(
    (device) => !payload.expected.some((entry) => (entry as { device?: string }).device === device),
  );
}

/**
 * Three parts that split the valid payloads of an arbitrary by what they hold, so that a target
 * declaring a deviation of one kind of value (KV-02 strings, KV-04 doubles, KV-06 JSON) still runs
 * the scenarios of the others:
 * - `booleans-and-longs`: BOOLEAN and LONG values only, every ts before the year 10000, at least
 *   one value stored for the payload and for every device it names;
 * - `doubles-or-json`: no STRING value, and a DOUBLE or JSON value, a ts from the year 10000 on, or
 *   nothing stored for the payload or one of its devices (storesNothingFor);
 * - `strings`: a STRING value.
 */
export type PayloadPart = 'booleans-and-longs' | 'doubles-or-json' | 'strings';

/**
 * One part of the payloads of `of` (each drawn from values of its own kinds, not a thin filter of
 * all), or all of them (undefined). The three parts together are every payload of `of({})`.
 */
export function payloadPart<
  T extends Pick<ValidPayload, 'expected'> & { devices?: readonly string[] },
>(of: (values: ValueOptions) => fc.Arbitrary<T>, part: PayloadPart | undefined): fc.Arbitrary<T> {
  switch (part) {
    case undefined:
      return of({});
    case 'booleans-and-longs':
      return of({ types: ['BOOLEAN', 'LONG'] }).filter(
        (payload) => !hasLateTs(payload) && !storesNothingFor(payload),
      );
    case 'doubles-or-json':
      return of({ withoutStrings: true }).filter(
        (payload) =>
          hasLateTs(payload) ||
          storesNothingFor(payload) ||
          payload.expected.some(
            (entry) => entry.value.type === 'DOUBLE' || entry.value.type === 'JSON',
          ),
      );
    case 'strings':
      return of({}).filter(hasStringValue);
  }
}

export function toValidPayload<Form extends string>(
  form: Form,
  document: unknown,
  expected: ExpectedEntry[],
): ValidPayload<Form> {
  const body = stringifyLossless(toWireTree(document));
  return { form, body, document: toPlain(parseLossless(body)), expected };
}

function isTimestamped(element: Record<string, unknown>): boolean {
  return 'ts' in element && 'values' in element && !(element.values instanceof GeneratedValue);
}

function telemetryEntries(document: unknown): ExpectedEntry[] {
  const elements = (Array.isArray(document) ? document : [document]) as Array<
    Record<string, unknown>
  >;
  return elements.flatMap((element) =>
    isTimestamped(element)
      ? objectEntries(element.values as Record<string, unknown>, element.ts as number)
      : objectEntries(element),
  );
}

export function objectEntries(object: Record<string, unknown>, ts?: number): ExpectedEntry[] {
  return Object.entries(object).map(([key, value]) => {
    if (!(value instanceof GeneratedValue))
      throw new Error(`key ${JSON.stringify(key)} holds no generated value`);
    return ts === undefined ? { key, value: value.typed } : { key, value: value.typed, ts };
  });
}

/**
 * Keys are unique within one object by construction; across the elements of the array form a
 * repeated key is renamed (`key~2`), so that every key of a payload names exactly one expected
 * entry.
 */
function makeKeysUnique(document: unknown): unknown {
  if (!Array.isArray(document)) return document;
  const seen = new Set<string>();
  const unique = (key: string): string => {
    let candidate = key;
    for (let n = 2; seen.has(candidate); n++) candidate = `${key}~${n}`;
    seen.add(candidate);
    return candidate;
  };
  const rename = (object: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) defineMember(out, unique(key), value);
    return out;
  };
  return (document as Array<Record<string, unknown>>).map((element) => {
    if (!isTimestamped(element)) return rename(element);
    return { ts: element.ts, values: rename(element.values as Record<string, unknown>) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Malformed payloads

/**
 * JSON documents that are never key-value objects or telemetry (as plain JS; parsed by every JSON
 * parser).
 */
export const primitive = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 8 }),
  );

/** A valid key-value object as plain JS (what a malformed document is built around). */
/**
 * A `ts` that is not an integer of milliseconds: text, a boolean, null or a fraction (device and
 * gateway payloads).
 */
export const nonIntegerTs = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.constant(null),
    doubleValueArbitrary().map((typed) => typed.value),
  );

export const plainKeyValues = (): fc.Arbitrary<Record<string, unknown>> =>
  validClientAttributes().map((payload) => payload.document as Record<string, unknown>);

/**
 * Broken JSON text made from valid text: cut short, garbage after the end, or a key without quotes.
 */
export function brokenText(validBody: fc.Arbitrary<string>): fc.Arbitrary<MalformedPayload> {
  return fc.oneof(
    fc.tuple(validBody, fc.nat()).map(
      ([text, cut]): MalformedPayload => ({
        defect: 'truncated JSON text',
        body: text.slice(0, cut % Math.max(1, text.length)),
      }),
    ),
    fc.tuple(validBody, fc.constantFrom('}', ']', ',', 'x', ' garbage', '{}', '"', '\u0000')).map(
      ([text, garbage]): MalformedPayload => ({
        defect: 'trailing garbage after the JSON text',
        body: text + garbage,
      }),
    ),
    validBody
      .filter((text) => /"[A-Za-z_][A-Za-z0-9_]*":/.test(text))
      .map(
        (text): MalformedPayload => ({
          defect: 'unquoted key',
          body: text.replace(/"([A-Za-z_][A-Za-z0-9_]*)":/, '$1:'),
        }),
      ),
  );
}

export const structural = (
  defect: string,
  document: fc.Arbitrary<unknown>,
): fc.Arbitrary<MalformedPayload> =>
  document.map((value): MalformedPayload => ({ defect, body: stringifyLossless(value) }));

/** True when `body` cannot be parsed as JSON, or parses to a document `schema` rejects. */
export function isMalformedFor(schema: JsonSchema, body: string): boolean {
  let parsed: unknown;
  try {
    parsed = parseLossless(body);
  } catch {
    return true;
  }
  return !isValid(schema, toPlain(parsed));
}

/** A null value next to valid ones (null is not a value type). */
export const withNullValue = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.tuple(plainKeyValues(), keyArbitrary()).map(([object, key]) => {
    const out = { ...object };
    defineMember(out, key, null);
    return out;
  });

/** Telemetry that every form rejects: structurally wrong documents and broken JSON text. */
export function malformedTelemetry(): fc.Arbitrary<MalformedPayload> {
  const timestamp = arbitraryFromSchema(timestampedTelemetrySchema.properties.ts);
  return fc
    .oneof(
      structural('top-level primitive', primitive()),
      structural(
        'array holding a non-object',
        fc
          .tuple(
            fc.array(plainKeyValues(), { maxLength: 2 }),
            fc.oneof(primitive(), fc.array(primitive(), { maxLength: 2 })),
          )
          .map(([objects, bad]) => [...objects, bad]),
      ),
      structural(
        'values is not an object',
        fc
          .tuple(timestamp, fc.oneof(primitive(), fc.array(primitive(), { maxLength: 3 })))
          .map(([ts, values]) => ({ ts, values })),
      ),
      structural(
        'ts is not an integer',
        fc
          .tuple(fc.oneof(nonIntegerTs(), fc.constant({})), plainKeyValues())
          .map(([ts, values]) => ({ ts, values })),
      ),
      structural('null value', withNullValue()),
      structural(
        'null value in timestamped values',
        fc.tuple(timestamp, withNullValue()).map(([ts, values]) => ({ ts, values })),
      ),
      structural(
        'null value in an array element',
        fc.tuple(plainKeyValues(), withNullValue()).map(([first, second]) => [first, second]),
      ),
      brokenText(validTelemetry().map((payload) => payload.body)),
    )
    .filter((payload) => isMalformedFor(telemetrySchema, payload.body));
}

/**
 * Client attributes that must be rejected: anything but a key-value object, null values, broken
 * JSON text.
 */
export function malformedClientAttributes(): fc.Arbitrary<MalformedPayload> {
  return fc
    .oneof(
      structural('top-level primitive', primitive()),
      structural(
        'array instead of an object',
        fc.array(fc.oneof(plainKeyValues(), primitive()), { maxLength: 3 }),
      ),
      structural('null value', withNullValue()),
      brokenText(validClientAttributes().map((payload) => payload.body)),
    )
    .filter((payload) => isMalformedFor(clientAttributesSchema, payload.body));
}
