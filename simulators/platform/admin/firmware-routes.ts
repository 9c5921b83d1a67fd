/**
 * Firmware (OTA) packages: record, upload of the data (multipart part `file`), read, delete
 * (docs/reference/platform-facts.md §12).
 */
import { randomUUID } from 'node:crypto';
import busboy from 'busboy';
import { BadRequestError } from '../core/errors';
import { PayloadTooLargeError } from '../http/exchange';
import { checksum } from '../core/platform-core';
import type { AdminRoute, AdminContext } from './route';
import { otaPackageView, page } from './views';

interface PackageBody {
  title?: unknown;
  version?: unknown;
  type?: unknown;
  url?: unknown;
  deviceProfileId?: { id?: string } | null;
}

/**
 * Reads the `file` part of a multipart upload with busboy; other parts are ignored. The admin body
 * limit applies here too: a declared length over it is 413 before anything is read, and a file that
 * grows past it (busboy cuts it at `fileSize` and says so with 'limit') is 413, never a truncated
 * package with a checksum over the cut.
 */
function readFilePart(
  context: AdminContext,
): Promise<{ data: Buffer; fileName: string; contentType: string }> {
  const limit = context.maxBodyBytes;
  if (Number(context.request.headers['content-length']) > limit)
    return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: context.request.headers,
        limits: { fileSize: limit, files: 1 },
      });
    } catch (error) {
      reject(new BadRequestError(`Expected multipart/form-data: ${(error as Error).message}`));
      return;
    }
    let found: { data: Buffer; fileName: string; contentType: string } | undefined;
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        context.request.unpipe(parser);
        context.request.resume(); // the rest is read and dropped, so the 413 can be answered
        reject(new PayloadTooLargeError(limit));
      });
      stream.on('end', () => {
        if (name === 'file' && !stream.truncated)
          found = {
            data: Buffer.concat(chunks),
            fileName: info.filename,
            contentType: info.mimeType,
          };
      });
    });
    parser.on('error', (error: Error) =>
      reject(new BadRequestError(`Invalid multipart body: ${error.message}`)),
    );
    parser.on('close', () =>
      found
        ? resolve(found)
        : reject(new BadRequestError('The multipart body has no part named file')),
    );
    context.request.pipe(parser);
  });
}

export const firmwareRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/api/otaPackage',
    summary:
      'Create a firmware or software package record (title, version, type, deviceProfileId, optional url)',
    async handler({ core, bodyJson }) {
      const body = (await bodyJson()) as PackageBody | null;
      if (
        !body ||
        typeof body.title !== 'string' ||
        !body.title ||
        typeof body.version !== 'string' ||
        !body.version
      ) {
        throw new BadRequestError('OTA package title and version should be specified!');
      }
      const type = body.type === 'SOFTWARE' ? 'SOFTWARE' : 'FIRMWARE';
      for (const existing of core.otaPackages.values()) {
        if (
          existing.title === body.title &&
          existing.version === body.version &&
          existing.type === type
        ) {
          throw new BadRequestError('OtaPackage with such title and version already exists!');
        }
      }
      const ota = {
        id: randomUUID(),
        title: body.title,
        version: body.version,
        type,
        deviceProfileId: body.deviceProfileId?.id ?? null,
        createdTime: Date.now(),
        url: typeof body.url === 'string' ? body.url : null,
        data: null,
        fileName: null,
        contentType: null,
        checksumAlgorithm: null,
        checksum: null,
      } as const;
      core.otaPackages.set(ota.id, { ...ota });
      return { json: otaPackageView(core.package(ota.id)) };
    },
  },
  {
    method: 'POST',
    path: '/api/otaPackage/:packageId',
    summary: 'Upload the package data (multipart part file); checksumAlgorithm, optional checksum',
    async handler(context) {
      const ota = context.core.package(context.params.packageId);
      const algorithm = (context.query.get('checksumAlgorithm') ?? 'SHA256').toUpperCase();
      const file = await readFilePart(context);
      const computed = checksum(algorithm, file.data);
      const given = context.query.get('checksum');
      if (given && given.toLowerCase() !== computed)
        throw new BadRequestError('Wrong otaPackage file checksum!');
      Object.assign(ota, {
        data: file.data,
        fileName: file.fileName,
        contentType: file.contentType,
        checksumAlgorithm: algorithm,
        checksum: computed,
      });
      return { json: otaPackageView(ota) };
    },
  },
  {
    method: 'GET',
    path: '/api/otaPackage/info/:packageId',
    summary: 'A package record',
    handler: ({ core, params }) => ({ json: otaPackageView(core.package(params.packageId)) }),
  },
  {
    method: 'GET',
    path: '/api/otaPackages',
    summary: 'Package records, paged',
    handler: ({ core, query }) => ({
      json: page([...core.otaPackages.values()].map(otaPackageView), query),
    }),
  },
  {
    method: 'DELETE',
    path: '/api/otaPackage/:packageId',
    summary: 'Delete a package no device or profile uses',
    handler({ core, params }) {
      const ota = core.package(params.packageId);
      for (const device of core.devices.values()) {
        if (device.firmwareId === ota.id)
          throw new BadRequestError('The otaPackage referenced by the devices cannot be deleted!');
      }
      for (const profile of core.profiles.values()) {
        if (profile.firmwareId === ota.id)
          throw new BadRequestError(
            'The otaPackage referenced by the device profile cannot be deleted!',
          );
      }
      core.otaPackages.delete(ota.id);
    },
  },
];
