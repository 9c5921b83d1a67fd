/**
 * Reading the target's answers through their schemas (schemas/target-answers.ts): the typed value
 * when the answer has the members a step reads, else a TargetAnswerShapeError that names the
 * request, the member and what the target sent instead, so the scenario FAILs with the real
 * difference on the requirement it checks.
 */
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from 'json-schema-to-ts';
import { IotcError } from '../../lib/errors';
import { toPlain } from '../../lib/kv/values';
import type { DocumentOf } from '../../schemas/document-types';
import { validationErrors } from '../../schemas/validate';
import { redactForMessage } from '../../src/admin-client/errors';

/** The target answered a shape without a member a step reads (or with one of another type). */
export class TargetAnswerShapeError extends IotcError {
  readonly code = 'IOTC_TARGET_ANSWER_SHAPE';
}

/**
 * The body of the target's answer to `request` (e.g. 'POST /api/auth/login'), numbers as JS
 * numbers, typed by `schema`; TargetAnswerShapeError when it lacks a member the schema requires or
 * holds one of another type.
 */
export function answerOf<const Schema extends JSONSchema & object, Document = DocumentOf<Schema>>(
  schema: Schema,
  answer: { json?: unknown; text?: string },
  request: string,
): Document {
  const plain = toPlain(answer.json);
  const body = answer.text ?? (answer.json === undefined ? '' : JSON.stringify(plain));
  checkShape(schema, plain, `the target's answer to ${request}`, body);
  return plain as Document; // checked just above
}

/**
 * Like answerOf, for a record the admin client already read as plain JS (a device record's raw
 * JSON, a tenant profile): `what` names it. It returns the record itself, typed, so a change to it
 * is a change to the record.
 */
export function recordOf<const Schema extends JSONSchema & object, Document = DocumentOf<Schema>>(
  schema: Schema,
  record: unknown,
  what: string,
): Document {
  checkShape(schema, record, `the target's ${what}`, JSON.stringify(record) ?? '');
  return record as Document; // checked just above
}

/**
 * Throws TargetAnswerShapeError naming every difference between `plain` and `schema`; `subject`
 * names the answer.
 */
function checkShape(schema: object, plain: unknown, subject: string, body: string): void {
  const errors = validationErrors(schema, plain);
  if (errors.length === 0) return;
  const differences = [...new Set(errors.map((error) => difference(schema, plain, error)))];
  throw new TargetAnswerShapeError(
    redactForMessage(
      `${subject} ${differences.join(', ')}: ${body.slice(0, 300) || '(empty body)'}`,
    ),
  );
}

/** One ajv error as "has no token (a string)" or "has id.id = 42 instead of a string". */
function difference(schema: object, value: unknown, error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const missing = String(params.missingProperty);
    const expected = describe(propertySchema(schemaAt(schema, segments), missing));
    return `has no ${memberName([...segments, missing])} (${expected})`;
  }
  const found = valueAt(value, segments);
  const shown = found === undefined ? 'no JSON body' : JSON.stringify(found).slice(0, 80);
  const where = segments.length === 0 ? 'a body' : memberName(segments);
  if (error.keyword === 'type' || error.keyword === 'enum' || error.keyword === 'const')
    return `has ${where} = ${shown} instead of ${describe(schemaAt(schema, segments))}`;
  return `has ${where} = ${shown}, which ${error.message ?? 'is invalid'}`;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `data[0].id.id` from the JSON pointer segments data/0/id/id. */
function memberName(segments: string[]): string {
  return segments
    .map((segment, index) =>
      /^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join('');
}

type SchemaNode = {
  type?: string | readonly string[];
  enum?: readonly unknown[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
};

function propertySchema(node: SchemaNode | undefined, name: string): SchemaNode | undefined {
  if (!node) return undefined;
  const additional = node.additionalProperties;
  return node.properties?.[name] ?? (typeof additional === 'object' ? additional : undefined);
}

/**
 * The subschema that describes the member at `segments` (properties, additionalProperties, items).
 */
function schemaAt(schema: object, segments: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema;
  for (const segment of segments)
    node = /^\d+$/.test(segment) && node?.items ? node.items : propertySchema(node, segment);
  return node;
}

function valueAt(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments)
    current =
      current !== null && typeof current === 'object'
        ? (current as Record<string, unknown>)[segment] // arrays index by string keys too
        : undefined;
  return current;
}

const ARTICLES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** What a schema accepts, in words: "a string", "one of \"A\", \"B\"", "any value". */
function describe(node: SchemaNode | undefined): string {
  if (!node) return 'any value';
  if (node.enum) return `one of ${node.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  if (node.const !== undefined) return JSON.stringify(node.const);
  const types = typeof node.type === 'string' ? [node.type] : (node.type ?? []);
  if (types.length === 0) return 'any value';
  return types.map((type) => ARTICLES[type] ?? type).join(' or ');
}
