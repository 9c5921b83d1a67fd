/**
 * GET /api/v1/{token}/firmware?title=&version=[&size=&chunk=]: the assigned package's bytes.
 * Missing or invalid parameters 400; no package assigned (or a URL package) 404; a title or version
 * other than the assigned package's 400 (as the platform). size=0 or absent = the whole file; a
 * chunk is bytes [size*chunk, size*(chunk+1)); past the end 200 with an empty body.
 */
import { firmwareQuerySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError } from '../core/errors';
import { firmwareChunk } from '../core/firmware';
import { authenticate, endpoint } from './context';
import { queryOf, sendEmpty } from './exchange';

export const GET_FIRMWARE = endpoint({
  steps: {
    /** The status when the device has no package to download: 404. */
    noPackageStatus: (): number => 404,
    /** The package's bytes as downloaded: the whole file. */
    packageData: (data: Buffer): Buffer => data,
    /** Bytes [size*chunk, size*(chunk+1)) of the package (size 0: the whole file). */
    chunk: (data: Buffer, size: number, chunk: number): Buffer => firmwareChunk(data, size, chunk),
  },
  handle: (exchange, steps) => {
    const { request, response, api } = exchange;
    const query = Object.fromEntries(queryOf(request.url));
    const check = validate(firmwareQuerySchema, query);
    if (!check.ok)
      throw steps.invalidParameter(`Invalid firmware request: ${check.errors.join('; ')}`);
    const device = authenticate(exchange, steps);
    if (!device) return;
    const ota = api.core.firmwareOf(device);
    if (!ota?.data) return sendEmpty(response, steps.noPackageStatus());
    if (ota.title !== query.title || ota.version !== query.version) {
      throw new BadRequestError(
        `Firmware ${query.title} ${query.version} is not the package assigned to the device`,
      );
    }
    const part = steps.chunk(
      steps.packageData(ota.data),
      Number(query.size ?? 0),
      Number(query.chunk ?? 0),
    );
    // a header value is ASCII: other characters of an uploaded file name are replaced
    const fileName = (ota.fileName ?? `${ota.title}-${ota.version}.bin`).replace(
      /[^\x20-\x7e]/g,
      '_',
    );
    response.writeHead(200, {
      'content-type': ota.contentType || 'application/octet-stream',
      'content-length': String(part.length),
      'content-disposition': `attachment;filename=${fileName}`,
      'x-filename': fileName,
    });
    response.end(part);
  },
});
