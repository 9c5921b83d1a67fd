/**
 * Attributes through the admin API (docs/reference/platform-facts.md §8): read typed, save
 * SHARED/SERVER scope, delete.
 */
import { typedValueOf, type TypedValue } from '../../lib/kv/values';
import type { AdminSession } from './auth';
import { keysQuery } from './records';
import { TELEMETRY_API } from './telemetry';

export type AttributeScope = 'CLIENT_SCOPE' | 'SHARED_SCOPE' | 'SERVER_SCOPE';

export interface StoredAttribute {
  value: TypedValue | undefined;
  lastUpdateTs: number;
}

/** The attributes of one scope (all keys when none are named), typed. */
export async function attributes(
  session: AdminSession,
  deviceId: string,
  scope: AttributeScope,
  keys?: readonly string[],
): Promise<Map<string, StoredAttribute>> {
  const query = keys?.length ? `?${keysQuery(keys)}` : '';
  const answer = await session.call(
    'GET',
    `${TELEMETRY_API}/${deviceId}/values/attributes/${scope}${query}`,
  );
  const out = new Map<string, StoredAttribute>();
  for (const item of (answer.json ?? []) as Array<{
    key: string;
    value: unknown;
    lastUpdateTs: unknown;
  }>) {
    out.set(item.key, {
      value: typedValueOf(item.value),
      lastUpdateTs: Number(String(item.lastUpdateTs)),
    });
  }
  return out;
}

/**
 * Saves SHARED_SCOPE or SERVER_SCOPE attributes: an object, or JSON text sent exactly as given (to
 * keep number lexemes such as 42.0). Saving SHARED_SCOPE notifies the device
 * (docs/reference/interfaces.md "Events").
 */
export async function saveAttributes(
  session: AdminSession,
  deviceId: string,
  scope: 'SHARED_SCOPE' | 'SERVER_SCOPE',
  values: Record<string, unknown> | string,
): Promise<void> {
  await session.call('POST', `${TELEMETRY_API}/${deviceId}/${scope}`, values);
}

export async function deleteAttributes(
  session: AdminSession,
  deviceId: string,
  scope: AttributeScope,
  keys: readonly string[],
): Promise<void> {
  await session.call('DELETE', `${TELEMETRY_API}/${deviceId}/${scope}?${keysQuery(keys)}`);
}
