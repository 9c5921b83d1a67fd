/**
 * fast-check arbitraries derived from the JSON Schemas of this folder: schemas/ is the single source of truth,
 * so the shapes the fuzzers produce are the shapes the validators accept, and a schema change moves both.
 *
 * Why hand-written: the npm registry has no maintained JSON-Schema → fast-check 4 deriver. The only candidate,
 * `json-schema-fast-check` 0.0.6, pins fast-check ^1 and faker 4; `json-schema-faker` draws from its own random
 * source, so its samples neither shrink nor replay from a fast-check seed. Our schemas use a small subset of JSON
 * Schema, and the deriver below covers exactly that subset (and throws on anything else rather than guessing):
 *   type (one or an array of types), enum, const, object (properties / required / additionalProperties /
 *   propertyNames / minProperties / maxProperties), array (items / minItems / maxItems), anyOf, oneOf, `not` (any schema, applied
 *   as a filter; `not: {required: [...]}` is the case our telemetry schema needs), integer and number with
 *   minimum / maximum / exclusive bounds, string with minLength / maxLength / simple patterns, and `{}` = any JSON.
 *
 * Key-value values need more than the shape: the TYPE of a value (LONG `42` versus DOUBLE `42.0`) is invisible in
 * plain JS numbers. So the payload arbitraries replace the value schema (`keyValueSchema`, matched by identity)
 * with a generator of explicit `TypedValue`s and serialize through `typedValueToLossless` + `stringifyLossless`:
 * `21.5` goes on the wire as a DOUBLE, `9223372036854775807` as a LONG, and each payload carries the entries the
 * platform must store (key, typed value, and `ts` for the timestamped form).
 *
 * Every arbitrary is deterministic for a given fast-check seed and shrinks like any fast-check arbitrary.
 */
import fc from 'fast-check';
import { keyValueSchema } from './kv';
import { clientAttributesSchema } from './attributes';
import { plainTelemetrySchema, telemetrySchema, timestampedTelemetrySchema } from './telemetry';
import {
  gatewayAttributesSchema,
  gatewayTelemetryEntrySchema,
  gatewayTelemetrySchema,
} from './gateway';
import { isValid } from './validate';
import {
  parseLossless,
  stringifyLossless,
  toPlain,
  typedValueToLossless,
  type TypedValue,
} from '../src/kv/values';

// ---------------------------------------------------------------------------------------------------------------
// The deriver

/** A JSON Schema as this folder writes them (`as const` objects). */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface DeriveOptions {
  /** Arbitraries that replace a sub-schema, matched by object identity (e.g. `keyValueSchema` → typed values). */
  overrides?: ReadonlyMap<object, fc.Arbitrary<unknown>>;
  /** Keys of generated object members beyond `properties` (default: short unicode strings). */
  keys?: fc.Arbitrary<string>;
  /** Upper bound of extra object members and array items when the schema gives none (default 5). */
  maxEntries?: number;
  /** Nesting depth of `{}` (any JSON) documents (default 3). */
  maxDepth?: number;
}

export class UnsupportedSchemaError extends Error {
  readonly code = 'IOTC_UNSUPPORTED_SCHEMA';
}

const SUPPORTED_KEYWORDS = new Set([
  '$id',
  '$schema',
  'description',
  'title',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
  'not',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
]);

const JSON_TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'] as const;
type JsonType = (typeof JSON_TYPES)[number];

/** An arbitrary of plain JS values (numbers as JS numbers) that satisfy `schema`, or an override's values. */
export function arbitraryFromSchema(
  schema: JsonSchema,
  options: DeriveOptions = {},
): fc.Arbitrary<unknown> {
  return new Deriver(options).derive(schema);
}

class Deriver {
  private readonly keys: fc.Arbitrary<string>;
  private readonly maxEntries: number;
  private readonly maxDepth: number;
  private anyJsonArbitrary: fc.Arbitrary<unknown> | undefined;

  constructor(private readonly options: DeriveOptions) {
    this.keys =
      options.keys ??
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
        .filter((key) => key !== '__proto__');
    this.maxEntries = options.maxEntries ?? 5;
    this.maxDepth = options.maxDepth ?? 3;
  }

  derive(schema: JsonSchema): fc.Arbitrary<unknown> {
    const override = this.options.overrides?.get(schema);
    if (override) return override;
    const unsupported = Object.keys(schema).filter((keyword) => !SUPPORTED_KEYWORDS.has(keyword));
    if (unsupported.length)
      throw new UnsupportedSchemaError(
        `cannot derive an arbitrary for keyword(s) ${unsupported.join(', ')}`,
      );

    if (schema.not !== undefined) {
      const { not, ...rest } = schema;
      const excluded = not as JsonSchema;
      return this.derive(rest).filter((value) => !isValid(excluded, value));
    }
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    if (Array.isArray(schema.anyOf)) {
      const { anyOf, ...rest } = schema;
      return fc.oneof(
        ...(anyOf as JsonSchema[]).map((branch) => this.derive(withSiblings(branch, rest))),
      );
    }
    if (Array.isArray(schema.oneOf)) {
      // Exactly one branch must hold: generate from any branch, keep the values no other branch accepts.
      const { oneOf, ...rest } = schema;
      const branches = oneOf as JsonSchema[];
      return fc
        .oneof(...branches.map((branch) => this.derive(withSiblings(branch, rest))))
        .filter((value) => branches.filter((branch) => isValid(branch, value)).length === 1);
    }

    const types = typesOf(schema);
    if (!types) return this.anyJson();
    return fc.oneof(...types.map((type) => this.ofType(type, schema)));
  }

  private ofType(type: JsonType, schema: JsonSchema): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integerArbitrary(schema);
      case 'number':
        return numberArbitrary(schema);
      case 'string':
        return stringArbitrary(schema);
      case 'array':
        return this.arrayOf(schema);
      case 'object':
        return this.objectOf(schema);
    }
  }

  private arrayOf(schema: JsonSchema): fc.Arbitrary<unknown[]> {
    const items =
      schema.items === undefined ? this.anyJson() : this.derive(schema.items as JsonSchema);
    const minLength = numberKeyword(schema, 'minItems') ?? 0;
    const maxLength = numberKeyword(schema, 'maxItems') ?? Math.max(minLength, this.maxEntries);
    if (schema.uniqueItems === true)
      return fc.uniqueArray(items, {
        minLength,
        maxLength,
        comparator: (a, b) => JSON.stringify(a) === JSON.stringify(b),
      });
    return fc.array(items, { minLength, maxLength });
  }

  private objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, propertySchema] of Object.entries(properties))
      model[name] = this.derive(propertySchema);
    for (const name of required) if (!(name in model)) model[name] = this.anyJson();
    const named = fc.record(model, { requiredKeys: [...required] });

    const additional = schema.additionalProperties;
    const minProperties = numberKeyword(schema, 'minProperties') ?? 0;
    const maxProperties = numberKeyword(schema, 'maxProperties');
    if (additional === false) {
      return named.filter((value) =>
        withinBounds(Object.keys(value).length, minProperties, maxProperties),
      );
    }
    const extraValues =
      additional === undefined || additional === true
        ? this.anyJson()
        : this.derive(additional as JsonSchema);
    const extraKeys = this.memberNames(schema.propertyNames as JsonSchema | undefined).filter(
      (key) => !(key in properties),
    );
    const extras = fc.uniqueArray(fc.tuple(extraKeys, extraValues), {
      selector: ([key]) => key,
      minLength: minProperties,
      maxLength: Math.max(minProperties, maxProperties ?? this.maxEntries),
    });
    return fc
      .tuple(named, extras)
      .map(([namedPart, extraPart]) => {
        const out: Record<string, unknown> = {};
        for (const [key, value] of extraPart) defineMember(out, key, value);
        for (const [key, value] of Object.entries(namedPart)) defineMember(out, key, value);
        return out;
      })
      .filter((value) => withinBounds(Object.keys(value).length, minProperties, maxProperties));
  }

  /**
   * Names of extra object members: an override of the `propertyNames` schema (matched by identity, e.g. device
   * names chosen by the caller), else the configured keys that the `propertyNames` schema accepts.
   */
  private memberNames(propertyNames: JsonSchema | undefined): fc.Arbitrary<string> {
    if (propertyNames === undefined) return this.keys;
    const override = this.options.overrides?.get(propertyNames);
    if (override) return override as fc.Arbitrary<string>;
    return this.keys.filter((key) => isValid(propertyNames, key));
  }

  /** `{}`: any JSON document, nested at most maxDepth levels. */
  anyJson(): fc.Arbitrary<unknown> {
    if (!this.anyJsonArbitrary) {
      const keys = this.keys;
      const maxLength = this.maxEntries;
      const { json } = fc.letrec<{ json: unknown }>((tie) => ({
        json: fc.oneof(
          { maxDepth: this.maxDepth, depthIdentifier: 'any-json' },
          fc.constant(null),
          fc.boolean(),
          fc.integer(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.string({ unit: 'grapheme', maxLength: 12 }),
          fc.array(tie('json'), { maxLength, depthIdentifier: 'any-json' }),
          fc
            .uniqueArray(fc.tuple(keys, tie('json')), {
              selector: ([key]) => key,
              maxLength,
              depthIdentifier: 'any-json',
            })
            .map(entriesToObject),
        ),
      }));
      this.anyJsonArbitrary = json;
    }
    return this.anyJsonArbitrary;
  }
}

/**
 * A branch of anyOf / oneOf together with the keywords beside the anyOf (`{type, properties, anyOf: [{required}]}`):
 * an instance must satisfy both, so the branch is generated with the siblings' keywords, `required` and
 * `properties` united. A branch that is just a sub-schema (no siblings) is derived as it is.
 */
function withSiblings(branch: JsonSchema, siblings: JsonSchema): JsonSchema {
  if (
    Object.keys(siblings).every(
      (keyword) => keyword === '$id' || keyword === 'description' || keyword === 'title',
    )
  )
    return branch;
  const merged: Record<string, unknown> = { ...siblings, ...branch };
  if (siblings.required || branch.required)
    merged.required = [
      ...new Set([
        ...((siblings.required ?? []) as string[]),
        ...((branch.required ?? []) as string[]),
      ]),
    ];
  if (siblings.properties || branch.properties)
    merged.properties = { ...(siblings.properties as object), ...(branch.properties as object) };
  delete merged.$id;
  return merged;
}

function typesOf(schema: JsonSchema): JsonType[] | undefined {
  if (schema.type === undefined) {
    // Type implied by the other keywords (e.g. `{properties: ...}`), else any JSON.
    if (
      schema.properties !== undefined ||
      schema.required !== undefined ||
      schema.additionalProperties !== undefined
    )
      return ['object'];
    if (schema.items !== undefined) return ['array'];
    return undefined;
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
  for (const type of types)
    if (!(JSON_TYPES as readonly string[]).includes(type))
      throw new UnsupportedSchemaError(`unknown type ${type}`);
  return types as JsonType[];
}

function numberKeyword(schema: JsonSchema, keyword: string): number | undefined {
  const value = schema[keyword];
  return typeof value === 'number' ? value : undefined;
}

function withinBounds(count: number, min: number, max: number | undefined): boolean {
  return count >= min && (max === undefined || count <= max);
}

function integerArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  let min = numberKeyword(schema, 'minimum') ?? -Number.MAX_SAFE_INTEGER;
  let max = numberKeyword(schema, 'maximum') ?? Number.MAX_SAFE_INTEGER;
  const exclusiveMin = numberKeyword(schema, 'exclusiveMinimum');
  const exclusiveMax = numberKeyword(schema, 'exclusiveMaximum');
  if (exclusiveMin !== undefined) min = Math.max(min, Math.floor(exclusiveMin) + 1);
  if (exclusiveMax !== undefined) max = Math.min(max, Math.ceil(exclusiveMax) - 1);
  min = Math.max(Math.ceil(min), -Number.MAX_SAFE_INTEGER);
  max = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

function numberArbitrary(schema: JsonSchema): fc.Arbitrary<number> {
  const min = numberKeyword(schema, 'minimum') ?? numberKeyword(schema, 'exclusiveMinimum');
  const max = numberKeyword(schema, 'maximum') ?? numberKeyword(schema, 'exclusiveMaximum');
  return fc.double({
    min,
    max,
    minExcluded: schema.exclusiveMinimum !== undefined,
    maxExcluded: schema.exclusiveMaximum !== undefined,
    noNaN: true,
    noDefaultInfinity: true,
  });
}

/** `^[class]{m,n}$`, `^[class]+$` or `^[class]*$` are generated directly; other patterns filter random strings. */
const SIMPLE_PATTERN = /^\^\[((?:\\.|[^\]\\])+)\](\+|\*|\{(\d+)(?:,(\d*))?\})\$$/;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  const maxLength = numberKeyword(schema, 'maxLength') ?? Math.max(minLength, 16);
  const pattern = schema.pattern as string | undefined;
  // ajv counts code points; a grapheme may hold several, so a bounded length is generated in code points.
  const unit = schema.maxLength === undefined ? 'grapheme' : 'binary';
  if (pattern === undefined) return fc.string({ unit, minLength, maxLength });
  const simple = SIMPLE_PATTERN.exec(pattern);
  if (simple) {
    const characters = expandCharacterClass(simple[1]);
    let [low, high] =
      simple[2] === '+'
        ? [1, maxLength]
        : simple[2] === '*'
          ? [0, maxLength]
          : [
              Number(simple[3]),
              simple[4] === undefined
                ? Number(simple[3])
                : simple[4] === ''
                  ? maxLength
                  : Number(simple[4]),
            ];
    low = Math.max(low, minLength);
    high = Math.min(high, Math.max(low, maxLength));
    return fc.string({ unit: fc.constantFrom(...characters), minLength: low, maxLength: high });
  }
  const regex = new RegExp(pattern, 'u');
  return fc
    .string({ unit: 'grapheme-ascii', minLength, maxLength })
    .filter((text) => regex.test(text));
}

function expandCharacterClass(body: string): string[] {
  if (body.startsWith('^'))
    throw new UnsupportedSchemaError(`negated character class [${body}] is not a simple pattern`);
  const characters: string[] = [];
  const chars = [...body.replace(/\\(.)/g, '$1')];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      for (let code = chars[i].codePointAt(0)!; code <= chars[i + 2].codePointAt(0)!; code++)
        characters.push(String.fromCodePoint(code));
      i += 2;
    } else {
      characters.push(chars[i]);
    }
  }
  return characters;
}

/** Own data property even for keys such as `__proto__`, so a generated object never changes its prototype. */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function entriesToObject(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) defineMember(out, key, value);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Keys and typed values

/** Words of real device payloads; combined with separators and unicode they make realistic but tricky keys. */
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
 * Telemetry and attribute keys: realistic names with spaces, dots and unicode. Never a comma (the read-back APIs
 * take comma-separated key lists, so such a key cannot be read back on any platform), never blank, never with
 * leading or trailing spaces, never `__proto__`, and never `ts` or `values` (the platform treats them specially;
 * the schemas' `not: {required: [ts, values]}` keeps generated plain objects apart from the timestamped form).
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

/** STRING: realistic words, unicode, empty, JSON-looking and number-looking text (a string stays a STRING). */
export function stringValueArbitrary(): fc.Arbitrary<TypedValue> {
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

export function booleanValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc.boolean().map((value): TypedValue => ({ type: 'BOOLEAN', value }));
}

/** DOUBLE: finite and not an integer, so its lexeme always carries `.` or an exponent (21.5, 1e-7, ...). */
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
export function longValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc
    .bigInt({ min: LONG_MIN, max: LONG_MAX })
    .map((value): TypedValue => ({ type: 'LONG', value }));
}

/** JSON: a nested object or array (null allowed inside, not at the top: null is not a value). */
export function jsonValueArbitrary(): fc.Arbitrary<TypedValue> {
  const deriver = new Deriver({ keys: keyArbitrary(), maxEntries: 3, maxDepth: 2 });
  const document = fc.oneof(
    deriver.derive({ type: 'object', additionalProperties: {} }),
    deriver.derive({ type: 'array', items: {} }),
  );
  return document.map((value): TypedValue => ({ type: 'JSON', value }));
}

/** One of the five value types of interfaces.md, with its type explicit. */
export function typedValueArbitrary(): fc.Arbitrary<TypedValue> {
  return fc.oneof(
    stringValueArbitrary(),
    booleanValueArbitrary(),
    doubleValueArbitrary(),
    longValueArbitrary(),
    jsonValueArbitrary(),
  );
}

/** Marks a generated key-value value inside a document until serialization, so its type is never guessed. */
class GeneratedValue {
  constructor(readonly typed: TypedValue) {}
}

const keyValueOverrides = (): ReadonlyMap<object, fc.Arbitrary<unknown>> =>
  new Map<object, fc.Arbitrary<unknown>>([
    [keyValueSchema, typedValueArbitrary().map((typed) => new GeneratedValue(typed))],
  ]);

const payloadDeriveOptions = (): DeriveOptions => ({
  overrides: keyValueOverrides(),
  keys: keyArbitrary(),
  maxEntries: 5,
});

/** A document with GeneratedValue markers → the lossless tree that stringifies with the right lexemes. */
function toWireTree(document: unknown): unknown {
  if (document instanceof GeneratedValue) return typedValueToLossless(document.typed);
  if (Array.isArray(document)) return document.map(toWireTree);
  if (document !== null && typeof document === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(document)) defineMember(out, key, toWireTree(value));
    return out;
  }
  return document;
}

// ---------------------------------------------------------------------------------------------------------------
// Payloads

/** One entry the platform must store: the key, the value with its type, and the device's ts when one was sent. */
export interface ExpectedEntry {
  key: string;
  value: TypedValue;
  /** Present for the timestamped form; absent when the server assigns the timestamp. */
  ts?: number;
}

export type TelemetryForm = 'object' | 'array' | 'timestamped';

export interface ValidPayload<Form extends string = string> {
  form: Form;
  /** The request body, exactly as sent (lossless lexemes: 21.5 is a DOUBLE, 9223372036854775807 a LONG). */
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
export function validTelemetry(form?: TelemetryForm): fc.Arbitrary<ValidPayload<TelemetryForm>> {
  if (form === undefined)
    return fc.oneof(
      validTelemetry('object'),
      validTelemetry('array'),
      validTelemetry('timestamped'),
    );
  const options = { ...payloadDeriveOptions(), maxEntries: form === 'array' ? 3 : 5 };
  return arbitraryFromSchema(TELEMETRY_FORM_SCHEMAS[form], options)
    .map(makeKeysUnique)
    .map((document) => toValidPayload(form, document, telemetryEntries(document)));
}

/** Valid client attributes (a JSON object of key to value). */
export function validClientAttributes(): fc.Arbitrary<ValidPayload<'attributes'>> {
  return arbitraryFromSchema(clientAttributesSchema, payloadDeriveOptions()).map((document) =>
    toValidPayload('attributes', document, objectEntries(document as Record<string, unknown>)),
  );
}

function toValidPayload<Form extends string>(
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

function objectEntries(object: Record<string, unknown>, ts?: number): ExpectedEntry[] {
  return Object.entries(object).map(([key, value]) => {
    if (!(value instanceof GeneratedValue))
      throw new Error(`key ${JSON.stringify(key)} holds no generated value`);
    return ts === undefined ? { key, value: value.typed } : { key, value: value.typed, ts };
  });
}

/**
 * Keys are unique within one object by construction; across the elements of the array form a repeated key is
 * renamed (`key~2`), so that every key of a payload names exactly one expected entry.
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

/** JSON documents that are never key-value objects or telemetry (as plain JS; parsed by every JSON parser). */
const primitive = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 8 }),
  );

/** A valid key-value object as plain JS (what a malformed document is built around). */
const plainKeyValues = (): fc.Arbitrary<Record<string, unknown>> =>
  validClientAttributes().map((payload) => payload.document as Record<string, unknown>);

/** Broken JSON text made from valid text: cut short, garbage after the end, or a key without quotes. */
function brokenText(validBody: fc.Arbitrary<string>): fc.Arbitrary<MalformedPayload> {
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

const structural = (
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
const withNullValue = (): fc.Arbitrary<Record<string, unknown>> =>
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
          .tuple(
            fc.oneof(
              fc.string({ maxLength: 8 }),
              fc.boolean(),
              fc.constant(null),
              doubleValueArbitrary().map((typed) => typed.value),
              fc.constant({}),
            ),
            plainKeyValues(),
          )
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

/** Client attributes that must be rejected: anything but a key-value object, null values, broken JSON text. */
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

// ---------------------------------------------------------------------------------------------------------------
// Gateway payloads (MQTT gateway API, schemas/gateway.ts): device name → telemetry entries or attributes

export type GatewayResource = 'telemetry' | 'attributes';

/** An entry the platform must store for one device behind the gateway. */
export interface GatewayExpectedEntry extends ExpectedEntry {
  device: string;
}

export interface ValidGatewayPayload extends ValidPayload<GatewayResource> {
  expected: GatewayExpectedEntry[];
  /** Every device the payload names (also those without entries: the platform creates them all). */
  devices: string[];
}

export interface GatewayMalformedPayload extends MalformedPayload {
  /** The devices the body names (as far as it can be read), for proving that none of them got anything stored. */
  devices: string[];
}

export interface GatewayPayloadOptions {
  /**
   * Device names (the schemas' `propertyNames`). Default: keys the schema accepts. Steps pass a few placeholder
   * names and substitute the run's prefixed names into the body.
   */
  deviceNames?: fc.Arbitrary<string>;
}

/** The derive options of a gateway payload: typed values, and the caller's device names for `propertyNames`. */
function gatewayDeriveOptions(
  schema: JsonSchema,
  options: GatewayPayloadOptions,
  maxEntries: number,
): DeriveOptions {
  const overrides = new Map(keyValueOverrides());
  if (options.deviceNames) overrides.set(schema.propertyNames as object, options.deviceNames);
  return { overrides, keys: keyArbitrary(), maxEntries };
}

/**
 * Valid v1/gateway/telemetry: device → [{ts?, values}], derived from gatewayTelemetrySchema. Within one device
 * every key is unique across its entries (renamed `key~2`), so each key names exactly one expected entry; an
 * entry without ts is stored at server time (interfaces.md), so its expected entries carry no ts.
 */
export function validGatewayTelemetry(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<ValidGatewayPayload> {
  return arbitraryFromSchema(
    gatewayTelemetrySchema,
    gatewayDeriveOptions(gatewayTelemetrySchema, options, 3),
  ).map((generated) => {
    const document: Record<string, unknown> = {};
    const expected: GatewayExpectedEntry[] = [];
    for (const [device, entries] of Object.entries(
      generated as Record<string, Array<Record<string, unknown>>>,
    )) {
      const unique = uniqueKeys();
      const renamed = entries.map((entry) => {
        const copy: Record<string, unknown> = {};
        for (const [member, value] of Object.entries(entry)) defineMember(copy, member, value);
        copy.values = renameMembers(entry.values as Record<string, unknown>, unique);
        return copy;
      });
      defineMember(document, device, renamed);
      for (const entry of renamed) {
        const ts = entry.ts as number | undefined;
        for (const item of objectEntries(entry.values as Record<string, unknown>, ts))
          expected.push({ device, ...item });
      }
    }
    return {
      ...toValidPayload<GatewayResource>('telemetry', document, expected),
      expected,
      devices: Object.keys(document),
    };
  });
}

/** Valid v1/gateway/attributes: device → {key: value}, derived from gatewayAttributesSchema. */
export function validGatewayAttributes(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<ValidGatewayPayload> {
  return arbitraryFromSchema(
    gatewayAttributesSchema,
    gatewayDeriveOptions(gatewayAttributesSchema, options, 3),
  ).map((generated) => {
    const document = generated as Record<string, Record<string, unknown>>;
    const expected = Object.entries(document).flatMap(([device, attributes]) =>
      objectEntries(attributes).map((entry) => ({ device, ...entry })),
    );
    return {
      ...toValidPayload<GatewayResource>('attributes', document, expected),
      expected,
      devices: Object.keys(document),
    };
  });
}

function uniqueKeys(): (key: string) => string {
  const seen = new Set<string>();
  return (key) => {
    let candidate = key;
    for (let n = 2; seen.has(candidate); n++) candidate = `${key}~${n}`;
    seen.add(candidate);
    return candidate;
  };
}

function renameMembers(
  object: Record<string, unknown>,
  unique: (key: string) => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) defineMember(out, unique(key), value);
  return out;
}

/** A document with one member added (a device holding a defect), as plain JS. */
function withMember(
  document: Record<string, unknown>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const out = { ...document };
  defineMember(out, name, value);
  return out;
}

/** Device names the body names at its top level, when it is a JSON object. */
function namedDevices(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? Object.keys(parsed).filter((name) => name !== '')
      : [];
  } catch {
    return [];
  }
}

/**
 * Gateway payloads with one defect, next to valid data of other devices when the defect allows it (the whole
 * message must be refused, not just the broken device). Built from the valid arbitrary; each keeps only the bodies
 * its schema (or JSON.parse) rejects.
 */
function malformedGateway(
  schema: JsonSchema,
  valid: fc.Arbitrary<ValidGatewayPayload>,
  defects: Array<[defect: string, document: fc.Arbitrary<unknown>]>,
): fc.Arbitrary<GatewayMalformedPayload> {
  const documents = defects.map(([defect, document]) => structural(defect, document));
  return fc
    .oneof(...documents, brokenText(valid.map((payload) => payload.body)))
    .map(
      (payload): GatewayMalformedPayload => ({ ...payload, devices: namedDevices(payload.body) }),
    )
    .filter((payload) => isMalformedFor(schema, payload.body));
}

/** Malformed v1/gateway/telemetry: not JSON, wrong top level, device value not an array, bad entries, null values. */
export function malformedGatewayTelemetry(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<GatewayMalformedPayload> {
  const names = options.deviceNames ?? keyArbitrary();
  const valid = validGatewayTelemetry({ deviceNames: names });
  const neighbours = fc.option(
    valid.map((payload) => payload.document as Record<string, unknown>),
    { nil: {} },
  );
  const entry = arbitraryFromSchema(gatewayTelemetryEntrySchema, {
    ...payloadDeriveOptions(),
    maxEntries: 3,
  }).map((generated) => JSON.parse(stringifyLossless(toWireTree(generated))) as unknown);
  const timestamp = arbitraryFromSchema(gatewayTelemetryEntrySchema.properties.ts);
  const badDevice = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(neighbours, names, value).map(([others, name, bad]) => withMember(others, name, bad));
  return malformedGateway(gatewayTelemetrySchema, valid, [
    [
      'top level is not an object',
      fc.oneof(
        primitive(),
        fc.array(
          valid.map((payload) => payload.document),
          { maxLength: 2 },
        ),
      ),
    ],
    ['no device', fc.constant({})],
    [
      'empty device name',
      fc
        .tuple(neighbours, fc.array(entry, { minLength: 1, maxLength: 2 }))
        .map(([others, entries]) => withMember(others, '', entries)),
    ],
    [
      'device value is not an array',
      badDevice(
        fc.oneof(primitive(), entry, fc.dictionary(keyArbitrary(), primitive(), { maxKeys: 2 })),
      ),
    ],
    [
      'entry is not an object',
      badDevice(
        fc
          .tuple(
            fc.array(entry, { maxLength: 2 }),
            fc.oneof(primitive(), fc.array(primitive(), { maxLength: 2 })),
          )
          .map(([good, bad]) => [...good, bad]),
      ),
    ],
    [
      'values is not an object',
      badDevice(
        fc
          .tuple(
            fc.option(timestamp, { nil: undefined }),
            fc.oneof(primitive(), fc.array(primitive(), { maxLength: 3 })),
          )
          .map(([ts, values]) => [ts === undefined ? { values } : { ts, values }]),
      ),
    ],
    ['entry without values', badDevice(timestamp.map((ts) => [{ ts }]))],
    [
      'ts is not an integer',
      badDevice(
        fc
          .tuple(
            fc.oneof(
              fc.string({ maxLength: 8 }),
              fc.boolean(),
              fc.constant(null),
              doubleValueArbitrary().map((typed) => typed.value),
            ),
            plainKeyValues(),
          )
          .map(([ts, values]) => [{ ts, values }]),
      ),
    ],
    [
      'null value',
      badDevice(
        fc
          .tuple(fc.option(timestamp, { nil: undefined }), withNullValue())
          .map(([ts, values]) => [ts === undefined ? { values } : { ts, values }]),
      ),
    ],
  ]);
}

/** Malformed v1/gateway/attributes: not JSON, wrong top level, device value not an object, null values. */
export function malformedGatewayAttributes(
  options: GatewayPayloadOptions = {},
): fc.Arbitrary<GatewayMalformedPayload> {
  const names = options.deviceNames ?? keyArbitrary();
  const valid = validGatewayAttributes({ deviceNames: names });
  const neighbours = fc.option(
    valid.map((payload) => payload.document as Record<string, unknown>),
    { nil: {} },
  );
  const badDevice = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(neighbours, names, value).map(([others, name, bad]) => withMember(others, name, bad));
  return malformedGateway(gatewayAttributesSchema, valid, [
    [
      'top level is not an object',
      fc.oneof(
        primitive(),
        fc.array(
          valid.map((payload) => payload.document),
          { maxLength: 2 },
        ),
      ),
    ],
    ['no device', fc.constant({})],
    [
      'empty device name',
      fc
        .tuple(neighbours, plainKeyValues())
        .map(([others, attributes]) => withMember(others, '', attributes)),
    ],
    [
      'device value is not an object',
      badDevice(
        fc.oneof(primitive(), fc.array(fc.oneof(primitive(), plainKeyValues()), { maxLength: 2 })),
      ),
    ],
    ['null value', badDevice(withNullValue())],
  ]);
}
