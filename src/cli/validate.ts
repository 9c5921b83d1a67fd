/**
 * `iotc validate rest.json`: the schema and semantic checks of a REST connector configuration (unknown members,
 * wrong types, regular expressions that do not compile, malformed ${...} expressions, a custom converter that
 * cannot be found), one line per problem naming its JSON path. Exit code 1 when there is any.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkConnectorConfig, DEFAULT_EXTENSIONS_FOLDER } from '../../simulators/connector/checks';
import { describeJsonSyntaxError } from '../../schemas/validate';

export interface ValidateOptions {
  /** Folder of custom converters (default: the shipped extensions). */
  extensions?: string;
}

/** The problems of one rest.json file (empty when it is valid). */
export function validateRestFile(path: string, options: ValidateOptions = {}): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return [`$: cannot read ${path}: ${(error as Error).message}`];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return [`$: not JSON: ${describeJsonSyntaxError(text, error as Error)}`];
  }
  return [
    ...checkConnectorConfig(parsed),
    ...missingExtensions(parsed, options.extensions ?? DEFAULT_EXTENSIONS_FOLDER),
  ];
}

export function validateCommand(
  path: string,
  options: ValidateOptions = {},
  log: (line: string) => void = console.log,
): number {
  const problems = validateRestFile(path, options);
  if (problems.length === 0) {
    log(`${path}: valid REST connector configuration`);
    return 0;
  }
  log(`${path}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  for (const problem of problems) log(`  ${problem}`);
  return 1;
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
