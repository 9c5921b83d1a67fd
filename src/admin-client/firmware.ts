/**
 * Firmware packages (docs/reference/platform-facts.md §12): `POST /api/otaPackage` creates the
 * record, then the data is uploaded as multipart/form-data (part `file`) to `POST
 * /api/otaPackage/{id}?checksumAlgorithm=...`; the platform computes the checksum. Assigning a
 * package to a device (saveDevice with firmwareId) starts the update.
 */
import { FormData } from 'undici';
import type { AdminSession } from './auth';
import { entityRef, idOf } from './records';
import { toPlain } from '../../lib/kv/values';

export interface NewFirmware {
  title: string;
  version: string;
  deviceProfileId: string;
  data: Uint8Array;
  /** MD5, SHA256 (default), SHA384, SHA512, CRC32, MURMUR3_32, MURMUR3_128. */
  checksumAlgorithm?: string;
  fileName?: string;
}

export interface FirmwarePackage {
  id: string;
  checksum: string;
  checksumAlgorithm: string;
}

export async function createFirmware(
  session: AdminSession,
  input: NewFirmware,
): Promise<FirmwarePackage> {
  const info = (
    await session.call('POST', '/api/otaPackage', {
      title: input.title,
      version: input.version,
      type: 'FIRMWARE',
      deviceProfileId: entityRef('DEVICE_PROFILE', input.deviceProfileId),
    })
  ).json;
  const id = idOf(info, 'firmware package');
  const form = new FormData();
  const fileName = input.fileName ?? `${input.title}-${input.version}.bin`;
  form.append(
    'file',
    new Blob([new Uint8Array(input.data)], { type: 'application/octet-stream' }),
    fileName,
  );
  const algorithm = input.checksumAlgorithm ?? 'SHA256';
  try {
    const uploaded = toPlain(
      (
        await session.call(
          'POST',
          `/api/otaPackage/${id}?checksumAlgorithm=${encodeURIComponent(algorithm)}`,
          form,
        )
      ).json,
    ) as {
      checksum?: unknown;
      checksumAlgorithm?: unknown;
    };
    return {
      id,
      checksum: String(uploaded.checksum),
      checksumAlgorithm: String(uploaded.checksumAlgorithm),
    };
  } catch (error) {
    await deleteFirmware(session, id).catch(() => undefined); // no half-made package left behind
    throw error;
  }
}

export async function deleteFirmware(session: AdminSession, id: string): Promise<void> {
  await session.call('DELETE', `/api/otaPackage/${id}`);
}
