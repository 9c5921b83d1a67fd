/**
 * Stored values rendered as JSON documents, the same for every transport (HTTP bodies, MQTT
 * payloads): each value in its JSON type, numbers with their lexeme (lossless), so 42.0 stays 42.0
 * and a long stays exact.
 */
import { typedValueToLossless } from '../../../lib/kv/values';
import type { SharedAttributesChange } from './event-hub';
import type { AttributeScope, Device } from './model';

/** Sets a member without going through the prototype chain: a key named __proto__ is data here. */
export function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * A shared-attribute change as {"k":v,...,"deleted":[...]} (deleted only when keys were deleted).
 */
export function sharedChangeDocument(change: SharedAttributesChange): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, attribute] of change.updated)
    setMember(body, key, typedValueToLossless(attribute.value));
  if (change.deleted.length) body.deleted = change.deleted;
  return body;
}

/** The scope's attributes among `keys` (all when undefined); undefined when none matches. */
export function pickAttributes(
  device: Device,
  scope: AttributeScope,
  keys: Iterable<string> | undefined,
): Record<string, unknown> | undefined {
  const found: Record<string, unknown> = {};
  let any = false;
  const attributes = device.attributes[scope];
  for (const key of keys ?? attributes.keys()) {
    const attribute = attributes.get(key);
    if (!attribute) continue;
    setMember(found, key, typedValueToLossless(attribute.value));
    any = true;
  }
  return any ? found : undefined;
}

/**
 * The device API's attribute answer {"client":{...},"shared":{...}} (HTTP GET /attributes and the
 * MQTT device attribute request): with neither key list every client and shared attribute, with one
 * of them only that scope; a member is present only when it has matches.
 */
export function attributesAnswer(
  device: Device,
  clientKeys: string[] | undefined,
  sharedKeys: string[] | undefined,
): Record<string, unknown> {
  const both = clientKeys === undefined && sharedKeys === undefined;
  const answer: Record<string, unknown> = {};
  const client =
    both || clientKeys ? pickAttributes(device, 'CLIENT_SCOPE', clientKeys) : undefined;
  const shared =
    both || sharedKeys ? pickAttributes(device, 'SHARED_SCOPE', sharedKeys) : undefined;
  if (client) answer.client = client;
  if (shared) answer.shared = shared;
  return answer;
}
