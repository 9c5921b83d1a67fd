/** The parser of a port option (`--port`, `--http-port`, `--console-port`, ...): 0 lets the OS choose a free one. */
import { InvalidArgumentError } from 'commander';

export function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}
