/**
 * Random identifiers and credentials: entity ids (UUIDs), device access tokens (20 characters, as
 * ThingsBoard) and API key values.
 *
 * Ids and tokens are built as flat strings. A string grown by `+=` (and Node's randomUUID, built
 * from pieces) is a tree of V8 cons strings: 300 to 500 bytes for 20 to 36 characters, kept for as
 * long as the device lives (bench: resident memory per sub-device). A latin1 Buffer decoded once is
 * one 40 to 60-byte string.
 */
import { randomBytes, randomUUID } from 'node:crypto';

const TOKEN_ALPHABET = Buffer.from(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  'latin1',
);

export function randomToken(length = 20): string {
  const bytes = randomBytes(length);
  for (let i = 0; i < length; i++) bytes[i] = TOKEN_ALPHABET[bytes[i] % TOKEN_ALPHABET.length];
  return bytes.toString('latin1');
}

/**
 * The string as a fresh flat copy, retaining nothing: V8 makes a slice of a longer string (13
 * characters or more) a view that keeps the whole original alive.
 */
export function flatCopy(text: string): string {
  // through bytes that hold every UTF-16 code unit as it is (a lone surrogate included)
  const encoding = ONE_BYTE.test(text) ? 'latin1' : 'utf16le';
  return Buffer.from(text, encoding).toString(encoding);
}
// biome-ignore lint/suspicious/noControlCharactersInRegex: every one-byte code unit, controls included
const ONE_BYTE = /^[\u0000-\u00ff]*$/;

/** A random (v4) UUID as one flat string. */
export function randomId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/** An API key value: `tb_` and 64 random bytes (SECURITY_API_KEY_VALUE_PREFIX), url-safe. */
export function randomApiKeyValue(): string {
  return `tb_${randomBytes(64).toString('base64url')}`;
}
