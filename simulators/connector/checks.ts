/**
 * The checks of a rest.json, shared by the connector (at load) and `iotc validate`: the schema
 * (schemas/rest-connector.ts), then semantic rules (regular expressions compile, ${...} expressions
 * parse, converter sections match their type, no endpoint served twice). Every message names its
 * JSON path ($.mapping[0].endpoint).
 */
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import {
  customConverterSectionSchema,
  jsonConverterSectionSchema,
  restConnectorConfigSchema,
} from '../../schemas';
import { validationErrors } from '../../schemas/validate';
import { ExpressionSyntaxError, parseTemplate } from '../../lib/expressions';
import { SCHEMA_DEFAULTS, type ConnectorDefaults } from './defaults';

/** Where shipped custom converters live (converter.extension names a module here). */
export const DEFAULT_EXTENSIONS_FOLDER = join(__dirname, 'extensions');

/**
 * Every problem of a parsed rest.json, each naming its JSON path; empty when it is valid.
 * `defaults` are the ones the file is completed with (the connector passes its effective defaults;
 * `iotc validate` the schema's).
 */
export function checkConnectorConfig(
  value: unknown,
  defaults: ConnectorDefaults = SCHEMA_DEFAULTS,
): string[] {
  const problems = schemaProblems(restConnectorConfigSchema, value, '$');
  // the semantic rules run on whatever shape is there, so one pass reports everything
  const file = record(value);
  const mappings = records(file.mapping);
  mappings.forEach((mapping, index) => {
    const at = `$.mapping[${index}]`;
    const converter = record(mapping.converter);
    const schema =
      converter.type === 'custom' ? customConverterSectionSchema : jsonConverterSectionSchema;
    if (mapping.converter !== undefined)
      problems.push(...schemaProblems(schema, converter, `${at}.converter`));
    const deviceInfo = record(converter.deviceInfo);
    for (const member of ['deviceNameExpression', 'deviceProfileExpression'])
      checkExpression(deviceInfo[member], `${at}.converter.deviceInfo.${member}`, problems);
    for (const list of ['attributes', 'timeseries'] as const) {
      records(converter[list]).forEach((entry, entryIndex) => {
        for (const member of ['key', 'value', 'tsField'])
          checkExpression(
            entry[member],
            `${at}.converter.${list}[${entryIndex}].${member}`,
            problems,
          );
      });
    }
  });
  const requests = record(file.requestsMapping);
  const attributeRequests = records(requests.attributeRequests);
  attributeRequests.forEach((rule, index) => {
    const at = `$.requestsMapping.attributeRequests[${index}]`;
    checkExpression(rule.deviceNameExpression, `${at}.deviceNameExpression`, problems);
    checkExpression(rule.attributeNameExpression, `${at}.attributeNameExpression`, problems);
  });
  const outgoing = [
    ...records(requests.attributeUpdates).map((rule, index) => ({
      rule,
      at: `$.requestsMapping.attributeUpdates[${index}]`,
    })),
    ...records(requests.serverSideRpc).map((rule, index) => ({
      rule,
      at: `$.requestsMapping.serverSideRpc[${index}]`,
    })),
  ];
  for (const { rule, at } of outgoing) {
    for (const member of ['deviceNameFilter', 'attributeFilter', 'methodFilter'])
      checkRegularExpression(rule[member], `${at}.${member}`, problems);
    checkExpression(rule.requestUrlExpression, `${at}.requestUrlExpression`, problems);
    checkExpression(rule.valueExpression, `${at}.valueExpression`, problems);
    if (rule.httpMethod && rule.HTTPMethod && rule.httpMethod !== rule.HTTPMethod)
      problems.push(
        `${at}: httpMethod and HTTPMethod disagree (${String(rule.httpMethod)} / ${String(rule.HTTPMethod)})`,
      );
  }
  const paths = new Map<string, string>();
  const endpoints = [
    ...mappings.map((mapping, index) => ({
      endpoint: mapping.endpoint ?? defaults['mapping[].endpoint'],
      at: `$.mapping[${index}].endpoint`,
    })),
    ...attributeRequests.map((rule, index) => ({
      endpoint: rule.endpoint ?? defaults['requestsMapping.attributeRequests[].endpoint'],
      at: `$.requestsMapping.attributeRequests[${index}].endpoint`,
    })),
  ];
  for (const { endpoint, at } of endpoints) {
    if (typeof endpoint !== 'string') continue;
    const first = paths.get(endpoint);
    if (first) problems.push(`${at}: the endpoint ${endpoint} is already served by ${first}`);
    else paths.set(endpoint, at);
  }
  if (file.server === undefined && ('host' in file || 'port' in file)) {
    problems.push(
      '$: an old-format file (host, port and mapping at the root): docs/reference/interfaces.md puts host, port, SSL and security in server, and requestsMapping beside mapping',
    );
  }
  const server = record(file.server);
  const port = Number(server.port);
  if (typeof server.port === 'string' && /^\d+$/.test(server.port) && port > 65535)
    problems.push(`$.server.port: ${server.port} is above 65535`);
  if (server.SSL === false && server.security)
    problems.push('$.server.security: certificate files are given but SSL is false');
  return problems;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function records(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.map(record) : [];
}

/** ajv's errors in words; the alternatives of an anyOf are one problem, not one per alternative. */
function schemaProblems(schema: object, value: unknown, base: string): string[] {
  const errors = validationErrors(schema, value);
  const anyOfPaths = new Set(
    errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath),
  );
  return errors
    .filter((error) => error.keyword === 'anyOf' || !anyOfPaths.has(error.instancePath))
    .map((error) => describe(error, base, schema, errors, value));
}

function checkExpression(value: unknown, at: string, problems: string[]): void {
  if (typeof value !== 'string') return;
  try {
    parseTemplate(value);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) problems.push(`${at}: ${error.message}`);
    else throw error;
  }
}

function checkRegularExpression(value: unknown, at: string, problems: string[]): void {
  if (typeof value !== 'string') return;
  try {
    new RegExp(value);
  } catch (error) {
    problems.push(`${at}: not a valid regular expression: ${(error as Error).message}`);
  }
}

/** An ajv error as `$.path.to[0].member: reason`. */
function describe(
  error: ErrorObject,
  base: string,
  schema: object,
  all: ErrorObject[],
  value: unknown,
): string {
  const path =
    base +
    error.instancePath
      .split('/')
      .slice(1)
      .map((segment) =>
        /^\d+$/.test(segment)
          ? `[${segment}]`
          : `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`,
      )
      .join('');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const member = String(params.additionalProperty);
      const known = Object.keys(
        record(record(schemaAt(schema, error.schemaPath.split('/').slice(1, -1))).properties),
      );
      const suggestion = closest(member, known);
      return `${path}.${member}: unknown member${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
    }
    case 'required':
      return `${path}.${String(params.missingProperty)}: required member is missing`;
    case 'type':
      return `${path}: must be of type ${String(params.type)}`;
    case 'enum':
      return `${path}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'anyOf': {
      // the alternatives' own complaints about this very value, e.g. "must be <= 65535, or must be
      // string"
      const alternatives = all
        .filter(
          (other) =>
            other !== error &&
            other.instancePath === error.instancePath &&
            other.schemaPath.startsWith(error.schemaPath.replace(/\/anyOf$/, '/anyOf/')),
        )
        .map((other) => other.message ?? 'is invalid');
      const given = JSON.stringify(valueAt(value, error.instancePath));
      return `${path}: ${[...new Set(alternatives)].join(', or ') || 'has none of the allowed forms'} (${given} given)`;
    }
    case 'const':
      return `${path}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

/** The part of a schema a JSON-pointer path (already split, `#` dropped) leads to. */
function schemaAt(schema: object, segments: string[]): unknown {
  return segments.reduce<unknown>(
    (node, segment) =>
      node && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined,
    schema,
  );
}

function valueAt(value: unknown, instancePath: string): unknown {
  return schemaAt(value as object, instancePath.split('/').slice(1));
}

/** The known name nearest to a typo (at most a third of its letters off), for "did you mean". */
function closest(typo: string, known: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typo.toLowerCase(), name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

/**
 * Levenshtein distance, written out because it is ten lines and the only string metric the project
 * needs; a dependency for it would weigh more than the code.
 */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}
