/** Command-line value parsers shared by the command registrations (main.ts, load-commands.ts, certify-command.ts). */
import { InvalidArgumentError } from 'commander';

export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive number');
  return parsed;
}

/** A port option (`--port`, `--http-port`, `--console-port`, ...): 0 lets the OS choose a free one. */
export function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}

/** A positive number of milliseconds. */
export function milliseconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer of milliseconds');
  return parsed;
}
