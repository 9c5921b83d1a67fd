/**
 * The tenant's API keys (ApiKey <value> in X-Authorization): by id for the admin API, by value for
 * authentication.
 */
import { randomUUID } from 'node:crypto';
import { NotFoundError } from './errors';
import type { ApiKey } from './model';
import { randomApiKeyValue } from './tokens';

export class ApiKeys {
  private readonly byId = new Map<string, ApiKey>();
  private readonly byValue = new Map<string, ApiKey>();

  get(id: string): ApiKey | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<ApiKey> {
    return this.byId.values();
  }

  /** The key whose value this is, if any (enabled or not, expired or not: the caller decides). */
  withValue(value: string): ApiKey | undefined {
    return this.byValue.get(value);
  }

  create(userId: string, description: string, expirationTime: number, enabled: boolean): ApiKey {
    const key: ApiKey = {
      id: randomUUID(),
      userId,
      value: randomApiKeyValue(),
      description,
      expirationTime,
      enabled,
      createdTime: Date.now(),
    };
    this.byId.set(key.id, key);
    this.byValue.set(key.value, key);
    return key;
  }

  delete(id: string): void {
    const key = this.byId.get(id);
    if (!key) throw new NotFoundError();
    this.byId.delete(id);
    this.byValue.delete(key.value);
  }
}
