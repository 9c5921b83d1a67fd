/**
 * Typed key-value data: the five value types of docs/reference/interfaces.md (string, boolean,
 * double, long, JSON) and the one place that decides which type a JSON value has.
 *
 * JSON.parse forgets whether a number was written `42` or `42.0`, and rounds longs past 2^53. The
 * type rule needs the lexeme, so numbers are read with lossless-json. The rule follows the platform
 * (docs/reference/platform-facts.md §2): an integer lexeme that fits a signed 64-bit long is LONG,
 * an exponent form without `.` whose value is a long is LONG, anything else numeric is DOUBLE,
 * except integers beyond the long range, which become STRING. Strings are never cast to numbers
 * here (the real platform does: a declared deviation of its profiles).
 *
 * Used on both sides of the socket (reference platform and drivers), so it lives in src/, not in a
 * simulator.
 */
import {
  isLosslessNumber,
  LosslessNumber,
  parse as losslessParse,
  stringify as losslessStringify,
} from 'lossless-json';

export type ValueType = 'STRING' | 'BOOLEAN' | 'DOUBLE' | 'LONG' | 'JSON';

/**
 * A stored value. LONG keeps a bigint so that 2^63-1 survives; JSON keeps the document as parsed
 * (plain JS).
 */
export type TypedValue =
  | { type: 'STRING'; value: string }
  | { type: 'BOOLEAN'; value: boolean }
  | { type: 'DOUBLE'; value: number }
  | { type: 'LONG'; value: bigint }
  | { type: 'JSON'; value: unknown };

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const INTEGER_LEXEME = /^-?\d+$/;
/**
 * Integer lexemes this short always fit a LONG (18 digits stay below 2^63, about 9.22e18): no
 * BigInt range comparison for them (the telemetry path's numbers, once per message each).
 */
const ALWAYS_LONG_LENGTH = 18;
const EXPONENT_WITHOUT_POINT = /^-?\d+[eE][+-]?\d+$/;

/**
 * Deepest nesting of arrays and objects accepted in JSON text: Jackson's StreamReadConstraints
 * default, which ThingsBoard's parser applies. The lossless parser recurses, so a deeper document
 * would overflow the stack.
 */
export const MAX_JSON_DEPTH = 1000;

/** JSON nested deeper than the limit (1000 levels): refused before it is parsed. */
export class JsonTooDeepError extends SyntaxError {
  override readonly name = 'JsonTooDeepError';
  readonly code = 'IOTC_JSON_TOO_DEEP';
  constructor(readonly limit: number) {
    super(`JSON nesting depth exceeds the limit of ${limit}`);
  }
}

/**
 * Throws JsonTooDeepError when arrays and objects in `text` nest deeper than `limit`: one pass over
 * the text that skips string contents, so it costs little next to the parse it protects
 * (hand-written: no parser exposes a depth limit, and this must run before the parser does).
 * `limit` Infinity checks nothing.
 */
export function checkJsonDepth(text: string, limit = MAX_JSON_DEPTH): void {
  // each level opens with its own `[` or `{`: a text no longer than the limit cannot pass it (most
  // payloads; the scan was a tenth of the reference's JSON handling per QoS 1 publish)
  if (text.length <= limit) return;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      // a backslash escapes the next character
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) throw new JsonTooDeepError(limit);
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
}

/**
 * A JSON document of type T as parseLossless reads it: the same shape, every number a
 * LosslessNumber (its lexeme kept). Members typed `unknown` stay unknown (they may hold
 * LosslessNumbers at any depth).
 */
export type Lossless<T> = T extends number
  ? LosslessNumber
  : T extends ReadonlyArray<infer Element>
    ? Array<Lossless<Element>>
    : T extends object
      ? { [Key in keyof T]: Lossless<T[Key]> }
      : T;

/**
 * Parses JSON text keeping every number's lexeme. Throws SyntaxError on malformed text or text
 * nested deeper than `maxDepth` (checkJsonDepth; the platform passes its mode's limit, or none
 * under a planted fault).
 */
export function parseLossless(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  checkJsonDepth(text, maxDepth);
  return losslessParse(text);
}

/**
 * parseLossless for text JSON.parse has already accepted (the platform's payloads: parsed plain,
 * checked against their schema, then read again here): the same tree as lossless-json's, read
 * without its per-character string building (about three times faster; the reference's payload
 * parsing is its hottest path). A string with escapes is decoded by JSON.parse (the same decoding);
 * a duplicate key, whose outcome lossless-json decides (equal values kept, different ones refused),
 * is left to lossless-json for the whole text. Text JSON.parse refuses must go to parseLossless.
 * The caller holds the text's nesting depth to its own limit first (checkJsonDepth, or JSON.parse's
 * own bound): this reader checks no depth.
 */
export function parseLosslessValid(text: string): unknown {
  const reader = new ValidJsonReader(text);
  const value = reader.value();
  return reader.duplicateKey ? losslessParse(text) : value;
}

/**
 * A member as readFlatMembers reads it: its key, its value typed as typedValueOf types the full
 * way's (a STRING, a BOOLEAN, or a number as numberFromLexeme types its lexeme), and a DOUBLE's
 * lexeme (a quirk reads it: ThingsBoard keeps a decimal of many places as its text).
 */
export type FlatMember = [key: string, typed: TypedValue, doubleLexeme?: string];

/**
 * Longest number lexeme readFlatMembers takes: without an exponent, 300 characters hold at most
 * 300 integer digits, so JSON.parse reads the same number finite (a double overflows past 309).
 */
const FLAT_NUMBER_MAX = 300;
/** Most members readFlatMembers takes: it finds a repeated key by comparing it with each before. */
const FLAT_MEMBERS_MAX = 32;

/**
 * The members of `text`, in order, as parseLosslessValid's tree holds them (Object.entries of it,
 * each value typed by typedValueOf: FlatMember), when the text is one JSON object of at most FLAT_MEMBERS_MAX members whose values are strings
 * without escapes, booleans or numbers without exponent (of at most FLAT_NUMBER_MAX characters),
 * each key written once, none named `__proto__` or starting with a digit (an object lists keys
 * that are array indexes first); undefined for any other text, valid JSON or not, which the caller
 * reads the full way. One pass over the text that checks JSON's grammar as it goes, so JSON.parse
 * accepts every text it reads, and no object is built (hand-written: a flat object is nearly every
 * telemetry message, and setting members of new names on an object cost more than reading them;
 * its caller proves it equal to the full way by a property test,
 * test/platform/flat-telemetry.test.ts). A number is typed from its lexeme here, which this pass
 * has already checked, without a LosslessNumber and the lexeme checks of its constructor and of
 * numberFromLexeme (flatNumber).
 */
export function readFlatMembers(text: string): FlatMember[] | undefined {
  const end = text.length;
  let at = skipJsonSpace(text, 0);
  if (text.charCodeAt(at) !== 0x7b) return undefined; // {
  at = skipJsonSpace(text, at + 1);
  const members: FlatMember[] = [];
  if (text.charCodeAt(at) === 0x7d)
    return skipJsonSpace(text, at + 1) === end ? members : undefined;
  for (;;) {
    if (text.charCodeAt(at) !== 0x22 || members.length === FLAT_MEMBERS_MAX) return undefined;
    const keyEnd = plainStringEnd(text, at + 1);
    const first = text.charCodeAt(at + 1);
    if (keyEnd < 0 || (first >= 0x30 && first <= 0x39)) return undefined;
    const key = text.slice(at + 1, keyEnd);
    if (key === '__proto__') return undefined;
    for (let index = 0; index < members.length; index++)
      if (members[index][0] === key) return undefined;
    at = skipJsonSpace(text, keyEnd + 1);
    if (text.charCodeAt(at) !== 0x3a) return undefined; // :
    at = skipJsonSpace(text, at + 1);
    const code = text.charCodeAt(at);
    let valueEnd: number;
    if (code === 0x22) {
      valueEnd = plainStringEnd(text, at + 1);
      if (valueEnd < 0) return undefined;
      members.push([key, { type: 'STRING', value: text.slice(at + 1, valueEnd) }]);
      valueEnd++;
    } else if (code === 0x74 && text.startsWith('true', at)) {
      members.push([key, { type: 'BOOLEAN', value: true }]);
      valueEnd = at + 4;
    } else if (code === 0x66 && text.startsWith('false', at)) {
      members.push([key, { type: 'BOOLEAN', value: false }]);
      valueEnd = at + 5;
    } else {
      valueEnd = plainNumberEnd(text, at);
      if (valueEnd < 0 || valueEnd - at > FLAT_NUMBER_MAX) return undefined;
      members.push(flatNumber(key, text.slice(at, valueEnd)));
    }
    at = skipJsonSpace(text, valueEnd);
    const next = text.charCodeAt(at);
    if (next === 0x7d) return skipJsonSpace(text, at + 1) === end ? members : undefined; // }
    if (next !== 0x2c) return undefined; // ,
    at = skipJsonSpace(text, at + 1);
  }
}

/**
 * The member of a number lexeme plainNumberEnd accepted (`-?(0|[1-9][0-9]*)(.[0-9]+)?`): typed as
 * numberFromLexeme types it (with a point a DOUBLE, else an integer), without its regular
 * expressions.
 */
function flatNumber(key: string, lexeme: string): FlatMember {
  return lexeme.includes('.')
    ? [key, { type: 'DOUBLE', value: Number(lexeme) }, lexeme]
    : [key, integerFromLexeme(lexeme)];
}

/** The index of the first character at or after `at` that is not JSON whitespace. */
function skipJsonSpace(text: string, at: number): number {
  let code = text.charCodeAt(at);
  while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09)
    code = text.charCodeAt(++at);
  return at;
}

/**
 * The index of the closing quote of a string whose contents start at `at`, or -1 when it holds an
 * escape or a control character (JSON.parse refuses the latter) or never closes.
 */
function plainStringEnd(text: string, at: number): number {
  for (let index = at; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index;
    if (code === 0x5c || code < 0x20) return -1;
  }
  return -1;
}

/**
 * The index after a JSON number without exponent starting at `at` (`-?(0|[1-9][0-9]*)(.[0-9]+)?`),
 * or -1 when none starts there or an exponent follows it.
 */
function plainNumberEnd(text: string, at: number): number {
  let index = at;
  if (text.charCodeAt(index) === 0x2d) index++; // -
  const first = text.charCodeAt(index);
  if (first === 0x30) index++;
  else if (first >= 0x31 && first <= 0x39) index = digitsEnd(text, index + 1);
  else return -1;
  if (text.charCodeAt(index) === 0x2e) {
    const fraction = index + 1;
    index = digitsEnd(text, fraction);
    if (index === fraction) return -1;
  }
  const after = text.charCodeAt(index);
  return after === 0x65 || after === 0x45 ? -1 : index;
}

function digitsEnd(text: string, at: number): number {
  let index = at;
  for (let code = text.charCodeAt(index); code >= 0x30 && code <= 0x39; )
    code = text.charCodeAt(++index);
  return index;
}

const NUMBER_CHARS = new Uint8Array(128);
for (const char of '-+.eE0123456789') NUMBER_CHARS[char.charCodeAt(0)] = 1;

class ValidJsonReader {
  at = 0;
  duplicateKey = false;
  constructor(private readonly text: string) {}

  private skipSpace(): void {
    const { text } = this;
    let code = text.charCodeAt(this.at);
    while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09)
      code = text.charCodeAt(++this.at);
  }

  value(): unknown {
    this.skipSpace();
    const { text } = this;
    const code = text.charCodeAt(this.at);
    let value: unknown;
    if (code === 0x22) value = this.string();
    else if (code === 0x7b) value = this.object();
    else if (code === 0x5b) value = this.array();
    else if (code === 0x74) {
      this.at += 4;
      value = true;
    } else if (code === 0x66) {
      this.at += 5;
      value = false;
    } else if (code === 0x6e) {
      this.at += 4;
      value = null;
    } else {
      const start = this.at;
      while (NUMBER_CHARS[text.charCodeAt(this.at)] === 1) this.at++;
      value = new LosslessNumber(text.slice(start, this.at));
    }
    this.skipSpace();
    return value;
  }

  private string(): string {
    const { text } = this;
    const start = this.at; // the opening quote
    let escaped = false;
    let index = start + 1;
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 0x22) break;
      if (code === 0x5c) {
        escaped = true;
        index++;
      }
      index++;
    }
    this.at = index + 1;
    return escaped
      ? (JSON.parse(text.slice(start, index + 1)) as string)
      : text.slice(start + 1, index);
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    this.at++; // {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return object;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      this.skipSpace();
      this.at++; // :
      const value = this.value();
      if (Object.hasOwn(object, key)) this.duplicateKey = true;
      // a member named __proto__ is data, as lossless-json and JSON.parse keep it
      else if (key === '__proto__')
        Object.defineProperty(object, key, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      else object[key] = value;
      if (this.text.charCodeAt(this.at++) === 0x7d) return object; // } (else ,)
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    this.at++; // [
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return array;
    }
    for (;;) {
      array.push(this.value());
      if (this.text.charCodeAt(this.at++) === 0x5d) return array; // ] (else ,)
    }
  }
}

/**
 * Converts a lossless tree into plain JS values (numbers as JS numbers), e.g. for schema
 * validation.
 */
export function toPlain(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number((value as LosslessNumber).value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty, not assignment: a member named __proto__ is data here, not the object's
    // prototype
    for (const [key, inner] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: toPlain(inner),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** The type of one number lexeme, per the rule in the header comment. */
export function numberFromLexeme(lexeme: string): TypedValue {
  if (INTEGER_LEXEME.test(lexeme)) return integerFromLexeme(lexeme);
  if (EXPONENT_WITHOUT_POINT.test(lexeme)) {
    const asNumber = Number(lexeme);
    if (Number.isSafeInteger(asNumber)) return { type: 'LONG', value: BigInt(asNumber) };
  }
  return { type: 'DOUBLE', value: Number(lexeme) };
}

/** The type of an integer lexeme (`-?\d+`): a LONG when it fits one, else a STRING. */
function integerFromLexeme(lexeme: string): TypedValue {
  if (lexeme.length <= ALWAYS_LONG_LENGTH) return { type: 'LONG', value: BigInt(lexeme) };
  const asBig = BigInt(lexeme);
  if (asBig >= LONG_MIN && asBig <= LONG_MAX) return { type: 'LONG', value: asBig };
  return { type: 'STRING', value: lexeme };
}

/**
 * The typed value of one top-level value of a key-value object (as parsed by parseLossless).
 * Returns undefined for null: null is not one of the five value types.
 */
export function typedValueOf(value: unknown): TypedValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return { type: 'STRING', value };
  if (typeof value === 'boolean') return { type: 'BOOLEAN', value };
  if (isLosslessNumber(value)) return numberFromLexeme((value as LosslessNumber).value);
  if (typeof value === 'number')
    return numberFromLexeme(Number.isInteger(value) ? value.toFixed(0) : String(value));
  if (typeof value === 'bigint') return numberFromLexeme(value.toString());
  return { type: 'JSON', value: toPlain(value) };
}

/**
 * JSON text of a typed value that reads back as the same type (a DOUBLE always carries a `.` or
 * exponent).
 */
export function typedValueToJson(typed: TypedValue): string {
  switch (typed.type) {
    case 'DOUBLE':
      return doubleLexeme(typed.value);
    case 'LONG':
      return typed.value.toString();
    default:
      return JSON.stringify(typed.value);
  }
}

/**
 * The value as the real platform shows it in non-strict reads: a string (JSON documents as their
 * text).
 */
export function typedValueToString(typed: TypedValue): string {
  switch (typed.type) {
    case 'STRING':
      return typed.value;
    case 'DOUBLE':
      return doubleLexeme(typed.value);
    case 'JSON':
      return JSON.stringify(typed.value);
    default:
      return String(typed.value);
  }
}

/** A plain-JS stand-in that serializes with the right lexeme through stringifyLossless. */
export function typedValueToLossless(typed: TypedValue): unknown {
  switch (typed.type) {
    case 'DOUBLE':
    case 'LONG':
      return new LosslessNumber(typedValueToJson(typed));
    default:
      return typed.value;
  }
}

/** Serializes a tree that may hold LosslessNumber values (e.g. from typedValueToLossless). */
export function stringifyLossless(value: unknown): string {
  return losslessStringify(value) ?? 'null';
}

function doubleLexeme(value: number): string {
  if (!Number.isFinite(value)) return JSON.stringify(String(value));
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/** Deep equality of two typed values (JSON documents compared structurally, key order ignored). */
export function typedValuesEqual(left: TypedValue, right: TypedValue): boolean {
  if (left.type !== right.type) return false;
  if (left.type === 'JSON') return jsonEqual(left.value, right.value);
  return left.value === right.value;
}

export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== typeof right || left === null || right === null) return false;
  if (Array.isArray(left)) {
    return (
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, i) => jsonEqual(item, right[i]))
    );
  }
  if (typeof left === 'object') {
    const leftKeys = Object.keys(left as object);
    const rightRecord = right as Record<string, unknown>;
    return (
      leftKeys.length === Object.keys(rightRecord).length &&
      leftKeys.every(
        (key) =>
          key in rightRecord && jsonEqual((left as Record<string, unknown>)[key], rightRecord[key]),
      )
    );
  }
  return false;
}

/** Renders a typed value for people (step tables, error messages). */
export function describeTypedValue(typed: TypedValue): string {
  return `${typedValueToJson(typed)} (${typed.type})`;
}
