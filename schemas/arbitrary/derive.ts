/**
 * The deriver: a fast-check arbitrary from a JSON Schema (the subset schemas/ uses; anything else
 * throws).
 */
import fc from 'fast-check';
import { isValid } from '../validate';
import { IotcError } from '../../lib/errors';

/** A JSON Schema as this folder writes them (`as const` objects). */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface DeriveOptions {
  /**
   * Arbitraries that replace a sub-schema, matched by object identity (e.g. `keyValueSchema` →
   * typed values).
   */
  overrides?: ReadonlyMap<object, fc.Arbitrary<unknown>>;
  /** Keys of generated object members beyond `properties` (default: short unicode strings). */
  keys?: fc.Arbitrary<string>;
  /** Upper bound of extra object members and array items when the schema gives none (default 5). */
  maxEntries?: number;
  /** Nesting depth of `{}` (any JSON) documents (default 3). */
  maxDepth?: number;
}

/** A JSON Schema keyword the fuzzing arbitraries cannot derive values for. */
export class UnsupportedSchemaError extends IotcError {
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

/**
 * An arbitrary of plain JS values (numbers as JS numbers) that satisfy `schema`, or an override's
 * values.
 */
export function arbitraryFromSchema(
  schema: JsonSchema,
  options: DeriveOptions = {},
): fc.Arbitrary<unknown> {
  return new Deriver(options).derive(schema);
}

export class Deriver {
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
      // Exactly one branch must hold: generate from any branch, keep the values no other branch
      // accepts.
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
   * Names of extra object members: an override of the `propertyNames` schema (matched by identity,
   * e.g. device names chosen by the caller), else the configured keys that the `propertyNames`
   * schema accepts.
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
 * A branch of anyOf / oneOf together with the keywords beside the anyOf (`{type, properties, anyOf:
 * [{required}]}`): an instance must satisfy both, so the branch is generated with the siblings'
 * keywords, `required` and `properties` united. A branch that is just a sub-schema (no siblings) is
 * derived as it is.
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

/**
 * `^[class]{m,n}$`, `^[class]+$` or `^[class]*$` are generated directly; other patterns filter
 * random strings.
 */
const SIMPLE_PATTERN = /^\^\[((?:\\.|[^\]\\])+)\](\+|\*|\{(\d+)(?:,(\d*))?\})\$$/;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength = numberKeyword(schema, 'minLength') ?? 0;
  const maxLength = numberKeyword(schema, 'maxLength') ?? Math.max(minLength, 16);
  const pattern = schema.pattern as string | undefined;
  // ajv counts code points; a grapheme may hold several, so a bounded length is generated in code
  // points.
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

/**
 * Own data property even for keys such as `__proto__`, so a generated object never changes its
 * prototype.
 */
export function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
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
