/**
 * Every load profile by name, for what needs one (iotc load <profile>, iotc load merge): the
 * profiles are those of LOAD_OPTIONS_SCHEMAS (schemas/index.ts), each exported by load/<name>.ts
 * and loaded only when asked for.
 */
import { LOAD_OPTIONS_SCHEMAS } from '../schemas';
import type { LoadProfile } from './contract';

export function loadProfileNamed(name: string): LoadProfile<unknown> | undefined {
  const schema = LOAD_OPTIONS_SCHEMAS.find((candidate) => candidate.cli.command === name);
  if (!schema) return undefined;
  const exports = require(`./${name}`) as Record<string, unknown>;
  return Object.values(exports).find(
    (value): value is LoadProfile<unknown> =>
      typeof value === 'object' &&
      value !== null &&
      (value as LoadProfile<unknown>).name === name &&
      (value as LoadProfile<unknown>).optionsSchema === schema,
  );
}
