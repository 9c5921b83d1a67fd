/**
 * The one `${...}` expression engine (DESIGN.md): the REST connector's converter (device names,
 * keys, values, tsField), its URL and body templates and its attribute-request expressions all go
 * through here.
 *
 * A template is text with placeholders. `${name}` reads the member `name` of the data;
 * `${params.field}` and `${list[0].x}` read inside nested objects and arrays. A member whose name
 * is the whole placeholder text (a key with a dot in it, say) wins over the path reading. A
 * template that is exactly one placeholder yields the value itself with its type; a composite
 * (`${a}:${b}`, `Device ${name}`) yields text.
 */
import { IotcError } from '../errors';

type TemplatePart = { literal: string } | { path: string; segments: PathSegment[] };
type PathSegment = string | number;

interface Template {
  source: string;
  parts: TemplatePart[];
}

/** A template that cannot be parsed: unclosed `${`, an empty placeholder, a malformed path. */
export class ExpressionSyntaxError extends IotcError {
  readonly code = 'IOTC_EXPRESSION_SYNTAX';
  constructor(
    readonly expression: string,
    readonly position: number,
    reason: string,
  ) {
    super(
      `malformed expression ${JSON.stringify(expression)} at character ${position + 1}: ${reason}`,
    );
  }
}

const cache = new Map<string, Template>();

/** Parses (and caches) a template; throws ExpressionSyntaxError. */
export function parseTemplate(source: string): Template {
  const cached = cache.get(source);
  if (cached) return cached;
  const parts: TemplatePart[] = [];
  let literal = '';
  let index = 0;
  while (index < source.length) {
    const start = source.indexOf('${', index);
    if (start < 0) {
      literal += source.slice(index);
      break;
    }
    literal += source.slice(index, start);
    const end = source.indexOf('}', start + 2);
    if (end < 0)
      throw new ExpressionSyntaxError(source, start, 'the placeholder is not closed with }');
    const path = source.slice(start + 2, end);
    if (path.includes('${'))
      throw new ExpressionSyntaxError(source, start, 'placeholders cannot be nested');
    if (path.trim() === '')
      throw new ExpressionSyntaxError(source, start, 'the placeholder is empty');
    if (literal) parts.push({ literal });
    literal = '';
    parts.push({ path, segments: parsePath(source, start, path) });
    index = end + 1;
  }
  if (literal) parts.push({ literal });
  const template = { source, parts };
  if (cache.size > 10_000) cache.clear();
  cache.set(source, template);
  return template;
}

/** `a.b[0].c` into ['a', 'b', 0, 'c']. */
function parsePath(source: string, position: number, path: string): PathSegment[] {
  const segments: PathSegment[] = [];
  const pattern = /([^.[\]]+)|\[(\d+)\]|(\.)/gy;
  let expectName = true;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(path))) {
    if (match[1] !== undefined) {
      if (!expectName)
        throw new ExpressionSyntaxError(
          source,
          position,
          `a "." is missing before "${match[1]}" in ${path}`,
        );
      segments.push(match[1]);
      expectName = false;
    } else if (match[2] !== undefined) {
      if (expectName)
        throw new ExpressionSyntaxError(
          source,
          position,
          `an index needs something to index in ${path}`,
        );
      segments.push(Number(match[2]));
    } else {
      if (expectName) throw new ExpressionSyntaxError(source, position, `an empty name in ${path}`);
      expectName = true;
    }
    if (pattern.lastIndex === path.length) break;
  }
  if (pattern.lastIndex !== path.length || expectName)
    throw new ExpressionSyntaxError(
      source,
      position,
      `${JSON.stringify(path)} is not a name or a path such as params.field or list[0]`,
    );
  return segments;
}

/** True when the text contains at least one placeholder. */
export function hasPlaceholders(source: string): boolean {
  return parseTemplate(source).parts.some((part) => 'path' in part);
}

/** Reads a placeholder path in the data; undefined when any step is missing. */
function resolvePath(
  data: unknown,
  path: string,
  segments: PathSegment[] = parsePathOf(path),
): unknown {
  if (isRecord(data) && Object.hasOwn(data, path)) return data[path];
  return walk(data, segments);
}

function walk(data: unknown, segments: PathSegment[]): unknown {
  let current: unknown = data;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current) || segment >= current.length) return undefined;
      current = current[segment];
    } else {
      if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
      current = current[segment];
    }
  }
  return current;
}

function parsePathOf(path: string): PathSegment[] {
  const part = parseTemplate(`\${${path}}`).parts[0];
  return part && 'segments' in part ? part.segments : [path];
}

export interface EvaluateOptions {
  /** How a value is written into a composite result; default textOf. */
  render?: (value: unknown, path: string) => string;
  /**
   * What a missing (undefined or null) value does: 'none' (default) makes the whole result
   * undefined, the None of docs/reference/interfaces.md that is not passed on; 'keep' leaves the
   * placeholder text as it is.
   */
  missing?: 'none' | 'keep';
  /**
   * Overrides `missing` inside a composite: a missing value is written as this text (a Python
   * gateway's None).
   */
  missingText?: string;
  /**
   * Values known besides the data (${deviceName}, ${attributeKey}, ...); they win over data
   * members.
   */
  variables?: Readonly<Record<string, unknown>>;
}

/**
 * Evaluates a template against data. A template that is one placeholder gives the value itself
 * (typed); one without placeholders gives its text; a composite gives text. undefined means None.
 */
export function evaluate(source: string, data: unknown, options: EvaluateOptions = {}): unknown {
  const template = parseTemplate(source);
  const lookup = (part: { path: string; segments: PathSegment[] }): unknown => {
    const variables = options.variables;
    if (variables) {
      const [head, ...rest] = part.segments;
      if (typeof head === 'string' && Object.hasOwn(variables, head))
        return walk(variables[head], rest);
    }
    return resolvePath(data, part.path, part.segments);
  };
  const only = template.parts.length === 1 ? template.parts[0] : undefined;
  if (only && 'path' in only && !options.render) {
    const value = lookup(only);
    if (value === undefined || value === null)
      return options.missing === 'keep' ? source : undefined;
    return value;
  }
  const render = options.render ?? textOf;
  let text = '';
  for (const part of template.parts) {
    if ('literal' in part) {
      text += part.literal;
      continue;
    }
    const value = lookup(part);
    if (value === undefined || value === null) {
      if (options.missingText !== undefined) {
        text += options.missingText;
        continue;
      }
      if (options.missing === 'keep') {
        text += `\${${part.path}}`;
        continue;
      }
      return undefined;
    }
    text += render(value, part.path);
  }
  return text;
}

/** Evaluates to text (undefined for None). */
export function evaluateText(
  source: string,
  data: unknown,
  options: EvaluateOptions = {},
): string | undefined {
  const value = evaluate(source, data, options);
  return value === undefined ? undefined : textOf(value);
}

/**
 * A value as text: strings as they are, numbers and booleans as JSON writes them, documents as
 * JSON.
 */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value) ?? '';
}

/** Renders into a URL: every value percent-encoded as one path segment or query value. */
export function urlComponent(value: unknown): string {
  return encodeURIComponent(textOf(value));
}

/**
 * Renders into a JSON text template: a string is written escaped (the template puts the quotes
 * around it, as in `{"${attributeKey}": "${attributeValue}"}`), anything else as JSON, so an
 * unquoted `${attributeValue}` keeps its type.
 */
export function jsonFragment(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value).slice(1, -1)
    : (JSON.stringify(value) ?? 'null');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
