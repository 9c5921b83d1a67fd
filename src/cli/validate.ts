/**
 * `iotc validate rest.json...`: the schema and semantic checks of REST connector configurations
 * (unknown members with a did-you-mean, wrong types, regular expressions that do not compile,
 * malformed ${...} expressions, a custom converter that cannot be found) and what would fail only
 * at run time (basic security without credentials, a timeouts in seconds that look like
 * milliseconds), one line per problem naming its JSON path; a certificate file that is not there on
 * this machine is a warning. `--json` for programs. Exit code 1 when any file has a problem.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { checkConnectorConfig, DEFAULT_EXTENSIONS_FOLDER } from '../../simulators/connector/checks';
import { describeJsonSyntaxError } from '../../schemas/validate';

interface ValidateOptions {
  /** Folder of custom converters (default: the shipped extensions). */
  extensions?: string;
}

/** The problems of one rest.json file (empty when it is valid). */
export function validateRestFile(path: string, options: ValidateOptions = {}): string[] {
  return checkRestFile(path, options).problems;
}

/**
 * The problems of one rest.json file, and its warnings: a certificate file that is not where the
 * path says on this machine. The configuration is valid without it (the files belong to the machine
 * the connector runs on, and the project's own src/target/embedded-rest.json names certificates
 * generated at its start); the gateway would fail to start where they are missing, so it is said,
 * without failing the check.
 */
export function checkRestFile(
  path: string,
  options: ValidateOptions = {},
): { problems: string[]; warnings: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problems: [`$: cannot read ${path}: ${(error as Error).message}`], warnings: [] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      problems: [`$: not JSON: ${describeJsonSyntaxError(text, error as Error)}`],
      warnings: [],
    };
  }
  const runTime = runTimeProblems(parsed, dirname(resolve(path)));
  return {
    problems: [
      ...checkConnectorConfig(parsed),
      ...missingExtensions(parsed, options.extensions ?? DEFAULT_EXTENSIONS_FOLDER),
      ...runTime.problems,
    ],
    warnings: runTime.warnings,
  };
}

/**
 * Every connector timeout is in seconds (as in the real gateway); above this a value was surely
 * meant as ms.
 */
const LONGEST_PLAUSIBLE_TIMEOUT_S = 600;

/** What the schema lets through but a running connector would trip over. */
function runTimeProblems(
  parsed: unknown,
  folder: string,
): { problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  const file = asRecord(parsed);
  const server = asRecord(file.server);
  const security = asRecord(server.security);
  if (server.SSL === true) {
    for (const member of ['cert', 'key'] as const) {
      const given = security[member];
      if (typeof given !== 'string') {
        problems.push(`$.server.security.${member}: SSL is on but no ${member} file is given`);
        continue;
      }
      const path = isAbsolute(given) ? given : join(folder, given);
      if (!existsSync(path))
        warnings.push(
          `$.server.security.${member}: ${given} does not exist (relative paths are read from ${folder}; gateway 3.8.3 needs absolute ones)`,
        );
    }
  }
  const requests = asRecord(file.requestsMapping);
  const sections: Array<[string, unknown]> = [
    ['mapping', file.mapping],
    ['requestsMapping.attributeRequests', requests.attributeRequests],
    ['requestsMapping.attributeUpdates', requests.attributeUpdates],
    ['requestsMapping.serverSideRpc', requests.serverSideRpc],
  ];
  for (const [section, list] of sections) {
    (Array.isArray(list) ? list : []).forEach((item, index) => {
      const at = `$.${section}[${index}]`;
      const entry = asRecord(item);
      const auth = asRecord(entry.security);
      if (auth.type === 'basic')
        for (const member of ['username', 'password'])
          if (typeof auth[member] !== 'string' || auth[member] === '')
            problems.push(
              `${at}.security.${member}: basic security without a ${member} (the default is the placeholder <${member.toUpperCase()}>)`,
            );
      const timeouts: Array<[string, unknown]> = [
        ['timeout', entry.timeout],
        ['responseTimeout', entry.responseTimeout],
        ['response.timeout', asRecord(entry.response).timeout],
      ];
      for (const [member, value] of timeouts)
        if (typeof value === 'number' && value > LONGEST_PLAUSIBLE_TIMEOUT_S)
          problems.push(
            `${at}.${member}: ${value} seconds (${Math.round(value / 60)} minutes); connector timeouts are in seconds: did you mean ${value / 1000}?`,
          );
    });
  }
  return { problems, warnings };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

interface ValidateCommandOptions extends ValidateOptions {
  /** One JSON document on stdout: [{ file, valid, problems }]. */
  json?: boolean;
}

/** Checks every file; exit code 1 when any has a problem. */
export function validateCommand(
  paths: string[],
  options: ValidateCommandOptions = {},
  log: (line: string) => void = console.log,
): number {
  const results = paths.map((file) => {
    const { problems, warnings } = checkRestFile(file, options);
    return { file, valid: problems.length === 0, problems, warnings };
  });
  if (options.json) log(JSON.stringify(results, null, 2));
  else
    for (const { file, problems, warnings } of results) {
      const warned = warnings.length
        ? ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'})`
        : '';
      if (problems.length === 0) log(`${file}: valid REST connector configuration${warned}`);
      else log(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}${warned}`);
      for (const problem of problems) log(`  ${problem}`);
      for (const warning of warnings) log(`  warning: ${warning}`);
    }
  return results.every((result) => result.valid) ? 0 : 1;
}

function missingExtensions(parsed: unknown, folder: string): string[] {
  const mapping = (parsed as { mapping?: unknown } | null)?.mapping;
  if (!Array.isArray(mapping)) return [];
  return mapping.flatMap(
    (item: { converter?: { type?: unknown; extension?: unknown } } | null, index) => {
      const converter = item?.converter;
      if (converter?.type !== 'custom' || typeof converter.extension !== 'string') return [];
      const found = ['.ts', '.js'].some((suffix) =>
        existsSync(join(folder, `${converter.extension}${suffix}`)),
      );
      return found
        ? []
        : [
            `$.mapping[${index}].converter.extension: no custom converter ${converter.extension} in ${folder}`,
          ];
    },
  );
}
