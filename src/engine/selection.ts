/**
 * The scenarios a run selects, checked before anything starts: a malformed tag expression or a
 * selection that matches no scenario is an error with a clear message (a run of nothing must never
 * look green), like pytest's exit 5 for "no tests collected".
 */
import type { IRunConfiguration } from '@cucumber/cucumber/api';
import { loadSources } from '@cucumber/cucumber/api';
import { IotcError } from '../../lib/errors';

/** Exit code of a run whose selection is malformed or empty (pytest's "no tests collected"). */
export const EMPTY_SELECTION_EXIT = 5;

/**
 * The selection of `iotc run` (tags, paths) is malformed (IOTC_TAG_EXPRESSION), names no feature
 * files (IOTC_FEATURE_SOURCES) or matches no scenario (IOTC_EMPTY_SELECTION): exit 5.
 */
export class SelectionError extends IotcError {
  readonly code: 'IOTC_TAG_EXPRESSION' | 'IOTC_EMPTY_SELECTION' | 'IOTC_FEATURE_SOURCES';
  constructor(code: SelectionError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * How many scenarios the selection holds; throws SelectionError when it is malformed or holds none.
 */
export async function checkSelection(
  sources: IRunConfiguration['sources'],
  cwd: string,
): Promise<number> {
  let loaded: Awaited<ReturnType<typeof loadSources>>;
  try {
    loaded = await loadSources(sources, { cwd });
  } catch (error) {
    // cucumber wraps the tag expression parser's own message ("... unexpected end of input") as the
    // cause
    const cause = (error as Error).cause as Error | undefined;
    throw new SelectionError(
      'IOTC_TAG_EXPRESSION',
      `the tag expression "${sources.tagExpression}" is malformed: ${cause?.message ?? (error as Error).message}${bareTagHint(sources.tagExpression)}`,
    );
  }
  if (loaded.errors.length)
    throw new SelectionError(
      'IOTC_FEATURE_SOURCES',
      `feature files do not parse: ${loaded.errors.map((error) => `${error.uri}: ${error.message}`).join('; ')}`,
    );
  if (loaded.plan.length === 0)
    throw new SelectionError(
      'IOTC_EMPTY_SELECTION',
      `the selection matches no scenario (tags "${sources.tagExpression || '(none)'}", paths ${sources.paths.join(', ')}): nothing would be tested${bareTagHint(sources.tagExpression)}`,
    );
  return loaded.plan.length;
}

/**
 * A tag written without its @ (`--tags http-device-api`) is a name cucumber's expressions accept
 * and no scenario carries: "; tags start with @: did you mean "@http-device-api"?".
 */
export function bareTagHint(expression: string): string {
  const words = expression
    .replace(/[()]/g, ' ')
    .split(/\s+/)
    .filter((word) => word && !word.startsWith('@') && !['and', 'or', 'not'].includes(word));
  if (words.length === 0) return '';
  const meant = expression.replace(/(^|[\s(])(?!(?:and|or|not)(?=[\s)]|$))([^\s()@]+)/g, '$1@$2');
  return `; tags start with @: ${words.map((word) => `"${word}"`).join(', ')} ${words.length === 1 ? 'is' : 'are'} no tag (did you mean --tags '${meant}'?)`;
}
