/**
 * Reading the platform's entity records: `{"id":{"entityType":..,"id":uuid}, ...}` into small typed
 * shapes.
 */
import { toPlain } from '../../lib/kv/values';
import { AdminResponseShapeError } from './errors';

export interface DeviceRecord {
  id: string;
  name: string;
  /** The device profile name (ThingsBoard resets `type` to it). */
  type: string;
  /** The device JSON as the platform sent it, numbers as JS numbers (for saving it back). */
  raw: Record<string, unknown>;
}

/** An entity reference as the platform writes it. */
export function entityRef(entityType: string, id: string): { entityType: string; id: string } {
  return { entityType, id };
}

/** The uuid of an entity record's `id` member. */
export function idOf(json: unknown, what: string): string {
  const id = (toPlain(json) as { id?: { id?: unknown } } | undefined)?.id?.id;
  if (typeof id !== 'string')
    throw new AdminResponseShapeError(`${what} has no id`, JSON.stringify(toPlain(json)) ?? '');
  return id;
}

export function deviceRecord(json: unknown): DeviceRecord {
  const raw = toPlain(json) as Record<string, unknown>;
  return { id: idOf(raw, 'device'), name: String(raw.name), type: String(raw.type), raw };
}

/**
 * `keys=a,b` with every key URL-encoded (keys may hold commas' neighbours: spaces, dots, unicode).
 */
export function keysQuery(keys: readonly string[]): string {
  return `keys=${keys.map(encodeURIComponent).join(',')}`;
}
