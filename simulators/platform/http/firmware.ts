/**
 * GET /api/v1/{token}/firmware?title=&version=[&size=&chunk=]: the assigned package's bytes. Missing or invalid
 * parameters 400; no package assigned (or a URL package) 404; a title or version other than the assigned
 * package's 400 (as the platform). size=0 or absent = the whole file; a chunk is bytes [size*chunk,
 * size*(chunk+1)); past the end 200 with an empty body.
 */
import { firmwareQuerySchema } from '../../../schemas';
import { validate } from '../../../schemas/validate';
import { BadRequestError, PlatformError } from '../core/errors';
import { faultActive } from '../../../faults';
import { firmwareChunk } from '../core/firmware';
import { authenticate, type DeviceHandler } from './context';
import { queryOf, sendEmpty } from './exchange';

export const getFirmware: DeviceHandler = (request, response, params, api) => {
  const query = Object.fromEntries(queryOf(request.url));
  const check = validate(firmwareQuerySchema, query);
  if (!check.ok) {
    const message = `Invalid firmware request: ${check.errors.join('; ')}`;
    if (faultActive('HTTP-ERR-02:invalid-parameter-500')) throw new PlatformError(message, 500, 2);
    throw new BadRequestError(message);
  }
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const ota = api.core.firmwareOf(device);
  if (!ota?.data)
    return sendEmpty(response, faultActive('HTTP-ERR-05:no-package-empty-200') ? 200 : 404);
  if (ota.title !== query.title || ota.version !== query.version) {
    throw new BadRequestError(
      `Firmware ${query.title} ${query.version} is not the package assigned to the device`,
    );
  }
  const size = Number(query.size ?? 0);
  const chunk = Number(query.chunk ?? 0) + (faultActive('HTTP-FW-01:chunks-off-by-one') ? 1 : 0);
  const data = faultActive('HTTP-FW-01:last-byte-missing')
    ? ota.data.subarray(0, ota.data.length - 1)
    : ota.data;
  const part = firmwareChunk(data, size, chunk);
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
};
