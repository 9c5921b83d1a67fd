/** Random credentials: device access tokens (20 characters, as ThingsBoard) and API key values. */
import { randomBytes } from 'node:crypto';

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomToken(length = 20): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += TOKEN_ALPHABET[bytes[i] % TOKEN_ALPHABET.length];
  return out;
}

/** An API key value: `tb_` and 64 random bytes (SECURITY_API_KEY_VALUE_PREFIX), url-safe. */
export function randomApiKeyValue(): string {
  return `tb_${randomBytes(64).toString('base64url')}`;
}
