/**
 * Checksums of firmware packages (docs/reference/platform-facts.md §12): MD5, SHA256 (default),
 * SHA384, SHA512, CRC32.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { BadRequestError } from './errors';

const HASHES: Record<string, string> = {
  MD5: 'md5',
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
};

/**
 * Lower-case hex. CRC32 is written as ThingsBoard's Guava HashCode prints it: the 4 bytes
 * little-endian.
 */
export function checksum(algorithm: string, data: Buffer): string {
  const name = algorithm.toUpperCase();
  if (name === 'CRC32') {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32LE(crc32(data) >>> 0);
    return bytes.toString('hex');
  }
  const hash = HASHES[name];
  if (!hash) throw new BadRequestError(`Unsupported checksum algorithm: ${algorithm}`);
  return createHash(hash).update(data).digest('hex');
}
