/**
 * Thresholds from a file (`--thresholds <file.json>`, schema schemas/load-thresholds.ts): read into
 * the same expressions `--threshold` gives, so they are parsed, checked against the profile's
 * metrics and evaluated alike.
 */
import { readFileSync } from 'node:fs';
import { IotcError } from '../lib/errors';
import { loadThresholdsFileSchema } from '../schemas';
import { describeJsonSyntaxError, validate } from '../schemas/validate';

/** A `--thresholds` file that cannot be read or does not satisfy schemas/load-thresholds.ts. */
export class ThresholdsFileError extends IotcError {
  readonly code = 'IOTC_THRESHOLDS_FILE';
}

/**
 * The file's threshold expressions, in the file's order; throws ThresholdsFileError saying what is
 * wrong.
 */
export function readThresholdsFile(path: string): string[] {
  let document: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new ThresholdsFileError(
        `thresholds file ${path} is not valid JSON: ${describeJsonSyntaxError(text, error as Error)}`,
      );
    }
  } catch (error) {
    if (error instanceof ThresholdsFileError) throw error;
    throw new ThresholdsFileError(
      `thresholds file ${path} is not readable: ${(error as Error).message}`,
    );
  }
  const check = validate(loadThresholdsFileSchema, document);
  if (!check.ok)
    throw new ThresholdsFileError(
      `thresholds file ${path} does not match its schema (a "thresholds" list of expressions, or lists by metric):\n  ${check.errors.join('\n  ')}`,
    );
  const { thresholds } = document as { thresholds: string[] | Record<string, string[]> };
  return Array.isArray(thresholds)
    ? thresholds
    : Object.entries(thresholds).flatMap(([metric, conditions]) =>
        conditions.map((condition) => `${metric}${condition.trim()}`),
      );
}
