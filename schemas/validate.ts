/** ajv validators compiled once per schema; the one way payloads are checked on both sides of the socket. */
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

// code.optimize off: ajv's second pass over the generated code (merging names, dropping dead branches) took ~40% of
// the compile time of our schemas (150 -> 90 ms for all of them), and every process of a parallel run compiles its
// own; the validators it would tidy up run no measurably slower (200,000 telemetry checks: 8-16 ms either way)
const ajv = new Ajv({ allErrors: true, strict: false, code: { optimize: false } });
addFormats(ajv);

interface Validation {
  ok: boolean;
  /** Human-readable reasons, empty when ok. */
  errors: string[];
}

type Schema = { $id?: string } & object;
const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

function compile(schema: Schema) {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(stripIds(schema) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Composed schemas repeat the `$id`s of their parts and ajv refuses duplicates; validators are cached by identity. */
function stripIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripIds);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== '$id')
      .map(([key, value]) => [key, stripIds(value)]),
  );
}

/** True when `value` (plain JS, numbers as numbers) satisfies `schema`. */
export function isValid(schema: Schema, value: unknown): boolean {
  return compile(schema)(value) as boolean;
}

export function validate(schema: Schema, value: unknown): Validation {
  const check = compile(schema);
  if (check(value)) return { ok: true, errors: [] };
  return { ok: false, errors: (check.errors ?? []).map(describeError) };
}

/** The raw ajv errors (JSON pointer, keyword, params), for callers that word their own messages. */
export function validationErrors(schema: Schema, value: unknown): ErrorObject[] {
  const check = compile(schema);
  return check(value) ? [] : [...(check.errors ?? [])];
}

/** One ajv error in words a user can act on: the offending member named, the allowed values listed. */
function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${where} has an unknown member "${String(params.additionalProperty)}"`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    case 'required':
      return `${where} lacks the required member "${String(params.missingProperty)}"`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

/** JSON.parse's "... at position 42" with the line and column of that position, so an editor can jump to it. */
export function describeJsonSyntaxError(text: string, error: Error): string {
  const position = /position (\d+)/.exec(error.message);
  // "Unexpected end of JSON input" names no position: the end of the text is where it stopped
  const at = position
    ? Number(position[1])
    : /end of JSON input/.test(error.message)
      ? text.length
      : undefined;
  if (at === undefined) return error.message;
  if (/\(line \d+ column \d+\)/.test(error.message)) return error.message; // newer V8 says it already
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${error.message} (line ${line}, column ${column})`;
}

/** JSON.parse of a file's text whose syntax error names the file, line and column (what: "thresholds file x"). */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `${what} is not valid JSON: ${describeJsonSyntaxError(text, error as Error)}`,
    );
  }
}
