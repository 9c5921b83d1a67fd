/**
 * ajv validators compiled once per schema; the one way payloads are checked on both sides of the
 * socket.
 *
 * Compiling is the costly part (the target profile's schema alone took 0.56 s, all of them 1.8 s),
 * and every process of a parallel run compiled the same ones again: about a sixth of a worker's
 * CPU. A validator is therefore kept on disk as ajv's standalone code, keyed by a hash of the
 * schema and of ajv's version, and later processes load it instead of compiling: the same generated
 * code, so the same verdicts and errors. The folder is node_modules/.cache/iotc-validators of the
 * package (IOTC_VALIDATOR_CACHE=<folder> elsewhere, =off none); where it cannot be written,
 * validators are compiled in memory as before.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// types only: ajv itself (the compiler, its formats, its standalone code) is loaded on the first
// validator that is not on disk, so a process whose validators are all cached never loads it (about
// 60 ms of a worker's start, issue 29); the cached ones require only ajv's small runtime helpers
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { PACKAGE_ROOT } from '../lib/package-root';

const AJV_OPTIONS = {
  allErrors: true,
  strict: false,
  // code.optimize off: ajv's second pass over the generated code (merging names, dropping dead
  // branches) took ~40% of the compile time of our schemas (150 -> 90 ms for all of them); the
  // validators it would tidy up run no measurably slower (200,000 telemetry checks: 8-16 ms either
  // way)
  code: { optimize: false },
} as const;

let ajvInstance: Ajv | undefined;
/** The compiler, made on the first validator that is not on disk (most processes never need it). */
function ajv(): Ajv {
  if (!ajvInstance) {
    const { default: AjvCompiler, _ } = require('ajv') as typeof import('ajv');
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    // source: the standalone code to keep on disk; its formats are ajv-formats' full set, as
    // addFormats gives
    ajvInstance = new AjvCompiler({
      ...AJV_OPTIONS,
      code: {
        ...AJV_OPTIONS.code,
        source: true,
        formats: _`require("ajv-formats/dist/formats").fullFormats`,
      },
    });
    addFormats(ajvInstance);
  }
  return ajvInstance;
}

interface Validation {
  ok: boolean;
  /** Human-readable reasons, empty when ok. */
  errors: string[];
}

type Schema = { $id?: string } & object;
const compiled = new WeakMap<object, ValidateFunction>();

/** Bump when the cached form changes for another reason than the schema or ajv's version. */
const CACHE_FORMAT = '1';

function cacheDirectory(): string | undefined {
  const chosen = process.env.IOTC_VALIDATOR_CACHE;
  if (chosen === 'off') return undefined;
  return chosen || join(PACKAGE_ROOT, 'node_modules', '.cache', 'iotc-validators');
}

let cacheSalt: string | undefined;
function salt(): string {
  cacheSalt ??= `${CACHE_FORMAT}:${(require('ajv/package.json') as { version: string }).version}:${JSON.stringify(AJV_OPTIONS)}`;
  return cacheSalt;
}

function compile(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = compileOrLoad(stripIds(schema) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

/** The validator from the cache on disk, else compiled (and its standalone code put there). */
function compileOrLoad(schema: object): ValidateFunction {
  const directory = cacheDirectory();
  if (!directory) return ajv().compile(schema);
  const text = JSON.stringify(schema);
  const file = join(
    directory,
    `${createHash('sha256').update(salt()).update('\0').update(text).digest('hex').slice(0, 40)}.js`,
  );
  try {
    return require(file) as ValidateFunction;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
  }
  const validate = ajv().compile(schema);
  try {
    mkdirSync(directory, { recursive: true });
    // written aside and renamed: the workers of a parallel run may write the same validator at once
    const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    const { default: standaloneCode } =
      require('ajv/dist/standalone') as typeof import('ajv/dist/standalone');
    writeFileSync(aside, standaloneCode(ajv(), validate));
    renameSync(aside, file);
  } catch {
    // a read-only installation: no cache, the same validator
  }
  return validate;
}

/**
 * Composed schemas repeat the `$id`s of their parts and ajv refuses duplicates; validators are
 * cached by identity.
 */
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

/**
 * One ajv error in words a user can act on: the offending member named, the allowed values listed.
 */
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

/**
 * JSON.parse's "... at position 42" with the line and column of that position, so an editor can
 * jump to it.
 */
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

/**
 * JSON.parse of a file's text whose syntax error names the file, line and column (what: "thresholds
 * file x").
 */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `${what} is not valid JSON: ${describeJsonSyntaxError(text, error as Error)}`,
    );
  }
}
