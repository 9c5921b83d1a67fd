/**
 * Payload parsing shared by the transports and the admin API: JSON text → schema check (schemas/) →
 * lossless re-read → typed entries (lib/kv/values.ts); telemetry that is one flat object (nearly
 * every message) is read in one pass to the same entries (flatTelemetry). Throws BadRequestError
 * with a clear reason; stores nothing. The parser's decisions are named steps (PAYLOAD_STEPS: the nesting limit, whether
 * nulls are dropped, a key, a value, a telemetry document's elements, a plain element's record, a
 * timestamp); its planted faults (faults/catalogue/key-value-data.ts, http-device-api.ts,
 * robustness.ts) are wrappers of those steps (PAYLOAD_FAULTS, applied by faults/steps.ts), for
 * every transport alike.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import {
  checkJsonDepth,
  numberFromLexeme,
  parseLosslessValid,
  readFlatMembers,
  type FlatMember,
  typedValueOf,
  type Lossless,
  type TypedValue,
} from '../../../lib/kv/values';
import { isLosslessNumber, type LosslessNumber } from 'lossless-json';
import { NO_QUIRKS, type Quirks } from '../quirks';
import { acceptedTelemetrySchema, plainTelemetrySchema, type DocumentOf } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from './errors';
import { type StepFaults, withFaults } from '../../../faults/steps';

export function parseJson(text: string, what: string, quirks: Quirks = NO_QUIRKS): unknown {
  try {
    // before anything is parsed, so before anything can be stored
    checkJsonDepth(text, withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS).nestingLimit(quirks));
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`Invalid ${what}: malformed JSON (${(error as Error).message})`);
  }
}

/**
 * Parses, validates against the schema, then re-reads losslessly so that value types are known. In
 * quirks mode with dropNullValues, null members of key-value objects are removed first (`kvObjects`
 * finds those objects). The document has the schema's type (DocumentOf) with every number a
 * LosslessNumber (Lossless): the plain reading of the same text, nulls dropped alike, passed the
 * schema.
 */
export function parseValid<const Schema extends JSONSchema & object, Document = DocumentOf<Schema>>(
  text: string,
  schema: Schema,
  what: string,
  quirks: Quirks = NO_QUIRKS,
  kvObjects: (document: unknown) => unknown[] = (document) => [document],
): Lossless<Document> {
  const plain = parseJson(text, what, quirks);
  const dropNullValues = withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS).dropNullValues(quirks);
  if (dropNullValues) for (const object of kvObjects(plain)) dropNulls(object);
  const check = validate(schema, plain);
  if (!check.ok) throw new BadRequestError(`Invalid ${what}: ${check.errors.join('; ')}`);
  try {
    // parseJson accepted this text above, its depth held to the same limit: the faster reading of
    // valid text gives lossless-json's tree without a second depth pass
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

/**
 * ThingsBoard's NumberUtils.isParsable: an optional minus, digits, at most one point; no exponent,
 * no hex.
 */
const PARSABLE_NUMBER = /^-?(\d+(\.\d*)?|\.\d+)$/;

/** Key-value object (lossless) → typed entries; null is not a value. */
export function typedEntries(
  document: unknown,
  quirks: Quirks = NO_QUIRKS,
): Array<[string, TypedValue]> {
  return typedMembers(Object.entries(document as Record<string, unknown>), quirks);
}

/** A key-value object's members (lossless values), in order → typed entries. */
function typedMembers(members: Array<[string, unknown]>, quirks: Quirks): Entries {
  const steps = withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS);
  const entries = entriesFor(members.length);
  for (let index = 0; index < members.length; index++) {
    const [key, value] = members[index];
    const typed = typedValueOf(value);
    if (!typed) throw new BadRequestError(`Invalid value of ${key}: null is not a value`);
    const lexeme =
      typed.type === 'DOUBLE' && isLosslessNumber(value)
        ? (value as LosslessNumber).value
        : undefined;
    entries[index] = storedEntry(key, typed, lexeme, quirks, steps);
  }
  return entries;
}

/** Flat telemetry's members, typed as they were read (readFlatMembers), in order → entries. */
function flatEntries(members: FlatMember[], quirks: Quirks): Entries {
  const steps = withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS);
  const entries = entriesFor(members.length);
  for (let index = 0; index < members.length; index++) {
    const [key, typed, lexeme] = members[index];
    entries[index] = storedEntry(key, typed, lexeme, quirks, steps);
  }
  return entries;
}

/**
 * An array for `count` entries: of its size at once when small (nearly every message): a pushed-to
 * empty array takes room for 16; a large one grows as it is filled (V8 keeps a preallocated array
 * of 100,000 or more as a dictionary).
 */
function entriesFor(count: number): Entries {
  return count <= 64 ? new Array(count) : [];
}

/**
 * One member's entry as stored: its typed value as the mode reads it (`doubleLexeme`: a DOUBLE's
 * lexeme), through the key and value steps.
 */
function storedEntry(
  key: string,
  typedValue: TypedValue,
  doubleLexeme: string | undefined,
  quirks: Quirks,
  steps: typeof PAYLOAD_STEPS,
): [string, TypedValue] {
  let typed = typedValue;
  if (quirks.castNumericStrings && typed.type === 'STRING' && PARSABLE_NUMBER.test(typed.value)) {
    typed = numberFromLexeme(
      typed.value.includes('.') && !/\.\d/.test(typed.value) ? `${typed.value}0` : typed.value,
    );
  }
  if (quirks.bigScaleDoublesAsStrings && typed.type === 'DOUBLE' && doubleLexeme !== undefined) {
    const plain = plainDecimalOfBigScale(doubleLexeme);
    if (plain !== undefined) typed = { type: 'STRING', value: plain };
  }
  if (quirks.jsonNullMembersDropped && typed.type === 'JSON')
    typed = { type: 'JSON', value: withoutNullMembers(typed.value) };
  return [steps.key(key), steps.value(typed)];
}

/**
 * ThingsBoard's reading of a decimal number (JsonConverter.buildNumericKeyValueProto): a BigDecimal
 * whose scale is above 16 becomes a STRING of its plain text (BigDecimal.toPlainString); undefined
 * when the scale is 16 or less.
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

/**
 * The JSON value without the null members of its objects, at any depth; nulls inside arrays stay.
 */
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

/**
 * The key-value objects of a telemetry document: the object, each element, or the values of
 * timestamped ones.
 */
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

/**
 * The three telemetry forms → entries with their timestamps (server time `now` where the form has
 * none).
 */
export function telemetryEntries(
  text: string,
  now: number,
  quirks: Quirks = NO_QUIRKS,
): Array<{ ts: number; values: Array<[string, TypedValue]> }> {
  const steps = withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS);
  const flat = flatTelemetry(text, quirks);
  if (flat) {
    // the object form's one element, through the same steps as below (a loop into an array of
    // its size: no closure, no growing array, per message)
    const elements = steps.elements([flat], false);
    const records = new Array<{ ts: number; values: Array<[string, TypedValue]> }>(elements.length);
    for (let index = 0; index < elements.length; index++)
      records[index] = steps.plainRecord(
        {
          ts: now,
          values: flatEntries(elements[index] as FlatMember[], quirks),
        },
        false,
      );
    return withoutLateRecords(records, quirks);
  }
  const document = parseValid(
    text,
    acceptedTelemetrySchema,
    'telemetry',
    quirks,
    telemetryKvObjects,
  );
  const array = Array.isArray(document);
  const elements = steps.elements(array ? document : [document], array);
  const records = elements.map((element) => {
    const record = element as Record<string, unknown>;
    if (Object.hasOwn(record, 'ts') && Object.hasOwn(record, 'values'))
      return { ts: steps.timestamp(record.ts, now), values: typedEntries(record.values, quirks) };
    return steps.plainRecord({ ts: now, values: typedEntries(record, quirks) }, array);
  });
  return withoutLateRecords(records, quirks);
}

/** The members whose presence together makes an object the timestamped form, not the plain one. */
const TIMESTAMPED_MEMBERS = plainTelemetrySchema.not.required;

/**
 * The members of the document parseValid gives (Object.entries of it, each value typed as
 * typedEntries types it, a DOUBLE with its lexeme: FlatMember) for telemetry in the object form whose values are plain strings, booleans and numbers (nearly every message),
 * read in one pass (readFlatMembers) instead of JSON.parse, the schema check and the lossless
 * re-read; undefined for any other text, which goes the full way. The plain form
 * (plainTelemetrySchema) accepts every such object that does not hold all of
 * TIMESTAMPED_MEMBERS, a depth of 1 passes any nesting limit of 1 or more, and it holds no null to
 * drop: test/platform/flat-telemetry.test.ts checks it against parseValid on the schemas'
 * arbitraries and on texts changed around them.
 */
export function flatTelemetry(text: string, quirks: Quirks): FlatMember[] | undefined {
  if (!(withFaults(PAYLOAD_STEPS, PAYLOAD_FAULTS).nestingLimit(quirks) >= 1)) return undefined;
  const members = readFlatMembers(text);
  if (!members || holdsEvery(members, TIMESTAMPED_MEMBERS)) return undefined;
  return members;
}

/**
 * Whether a member of each name is among the members (loops: `every` over `some` made three
 * closures a message).
 */
function holdsEvery(members: FlatMember[], names: readonly string[]): boolean {
  for (const name of names) {
    let held = false;
    for (let index = 0; index < members.length && !held; index++) held = members[index][0] === name;
    if (!held) return false;
  }
  return true;
}

/** The first millisecond of the year 10000 (10000-01-01T00:00:00Z). */
const YEAR_10000_MS = 253_402_300_800_000;

/**
 * ThingsBoard (quirk timestampsFromYear10000Dropped) stores no telemetry from the year 10000 on.
 */
export function withoutLateRecords<T extends { ts: number }>(records: T[], quirks: Quirks): T[] {
  return quirks.timestampsFromYear10000Dropped
    ? records.filter((record) => record.ts < YEAR_10000_MS)
    : records;
}

type Entries = Array<[string, TypedValue]>;

/** The named steps of the payload parser. */
const PAYLOAD_STEPS = {
  /** The deepest JSON nesting the platform parses: the mode's limit. */
  nestingLimit: (quirks: Quirks): number => quirks.jsonMaxNestingDepth,
  /**
   * Whether null members of key-value objects are dropped before the schema check (the mode's
   * choice).
   */
  dropNullValues: (quirks: Quirks): boolean => quirks.dropNullValues,
  /** A key as stored. */
  key: (key: string): string => key,
  /** A typed value as stored. */
  value: (typed: TypedValue): TypedValue => typed,
  /** The elements of a telemetry document that are stored (`array`: the array form). */
  elements: (elements: unknown[], _array: boolean): unknown[] => elements,
  /** The record of an element without ts: the server's time `ts`. */
  plainRecord: (record: { ts: number; values: Entries }, _array: boolean) => record,
  /** The ts of the timestamped form. */
  timestamp: (ts: unknown, _now: number): number => Number(String(ts)),
};

type ValueStep = (typed: TypedValue) => TypedValue;

/**
 * A fault of the values of one type: `change` gives the value stored instead, or undefined for the
 * step's.
 */
function ofType<Type extends TypedValue['type']>(
  type: Type,
  change: (typed: Extract<TypedValue, { type: Type }>) => TypedValue | undefined,
): { value: (step: ValueStep) => ValueStep } {
  return {
    value: (step) => (typed) =>
      (typed.type === type ? change(typed as Extract<TypedValue, { type: Type }>) : undefined) ??
      step(typed),
  };
}

/**
 * A plain element's record changed in one form only (`array`: the array form, else the object
 * form).
 */
function plainRecordIn(
  array: boolean,
  change: (record: { ts: number; values: Entries }) => { ts: number; values: Entries },
) {
  return {
    plainRecord:
      (step: (typeof PAYLOAD_STEPS)['plainRecord']) =>
      (record: { ts: number; values: Entries }, isArray: boolean) =>
        step(isArray === array ? change(record) : record, isArray),
  };
}

/** The planted faults of the payload parser, wrappers of its steps. */
const PAYLOAD_FAULTS: StepFaults<typeof PAYLOAD_STEPS> = {
  'ROB-NEST-01:no-depth-limit': { nestingLimit: () => () => Number.POSITIVE_INFINITY },
  'ROB-NEST-01:limit-off-by-one': { nestingLimit: (step) => (quirks) => step(quirks) - 1 },
  'HTTP-ERR-01:nulls-dropped': { dropNullValues: () => () => true },
  'KV-01:keys-lowercased': { key: (step) => (key) => step(key).toLowerCase() },
  'KV-01:keys-trimmed': { key: (step) => (key) => step(key).trim() },
  'KV-02:numeric-strings-cast': ofType('STRING', (typed) =>
    PARSABLE_NUMBER.test(typed.value) ? numberFromLexeme(typed.value) : undefined,
  ),
  'KV-03:booleans-as-strings': ofType('BOOLEAN', (typed) => ({
    type: 'STRING',
    value: String(typed.value),
  })),
  'KV-04:integral-doubles-as-longs': ofType('DOUBLE', (typed) =>
    Number.isInteger(typed.value) ? { type: 'LONG', value: BigInt(typed.value) } : undefined,
  ),
  'KV-04:single-precision': ofType('DOUBLE', (typed) => ({
    type: 'DOUBLE',
    value: Math.fround(typed.value),
  })),
  'KV-05:longs-rounded': ofType('LONG', (typed) => ({
    type: 'LONG',
    value: BigInt(Number(typed.value)),
  })),
  'KV-05:negative-longs-as-doubles': ofType('LONG', (typed) =>
    typed.value < 0n ? { type: 'DOUBLE', value: Number(typed.value) } : undefined,
  ),
  'KV-06:json-arrays-refused': ofType('JSON', (typed) => {
    if (Array.isArray(typed.value))
      throw new BadRequestError('Invalid value: a JSON array is not a value');
    return undefined;
  }),
  'KV-06:nested-nulls-dropped': ofType('JSON', (typed) => ({
    type: 'JSON',
    value: withoutNulls(typed.value),
  })),
  'HTTP-TEL-02:first-element-only': {
    elements: (step) => (elements, array) => step(array ? elements.slice(0, 1) : elements, array),
  },
  'HTTP-TEL-01:epoch-timestamp': plainRecordIn(false, (record) => ({ ...record, ts: 0 })),
  'HTTP-TEL-02:epoch-timestamp': plainRecordIn(true, (record) => ({ ...record, ts: 0 })),
  'HTTP-TEL-01:last-key-dropped': plainRecordIn(false, (record) => ({
    ...record,
    values: record.values.slice(0, -1),
  })),
  'HTTP-TEL-03:device-ts-ignored': { timestamp: () => (_ts, now) => now },
  'HTTP-TEL-03:ts-as-seconds': { timestamp: (step) => (ts, now) => step(ts, now) * 1000 },
};
