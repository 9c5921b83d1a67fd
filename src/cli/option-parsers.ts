/**
 * Parsers of command-line option values: each refuses a bad value with commander's
 * InvalidArgumentError.
 */
import { InvalidArgumentError } from 'commander';

export function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
    throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return parsed;
}

export function runIdOption(value: string): string {
  if (!/^[a-z0-9]{4,16}$/.test(value))
    throw new InvalidArgumentError('a run id is 4 to 16 lowercase letters or digits');
  return value;
}

export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer');
  return parsed;
}

export function idList(value: string): string[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (!ids.length) throw new InvalidArgumentError('expected a comma-separated list of ids');
  return ids;
}

export function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive number');
  return parsed;
}

export function qos(value: string): 0 | 1 {
  if (value !== '0' && value !== '1') throw new InvalidArgumentError('QoS is 0 or 1');
  return value === '1' ? 1 : 0;
}

export function mqttVersion(value: string): 4 | 5 {
  if (value === '5') return 5;
  if (value === '3.1.1' || value === '4') return 4;
  throw new InvalidArgumentError('MQTT version is 3.1.1 or 5');
}

export function duration(value: string): number {
  const parsed = positiveNumber(value);
  if (parsed > 3600)
    throw new InvalidArgumentError('at most 3600 seconds: a load run stops by itself');
  return parsed;
}

/** A positive number of milliseconds. */
export function milliseconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('expected a positive integer of milliseconds');
  return parsed;
}
