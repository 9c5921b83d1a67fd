/** POST /api/v1/{token}/telemetry: object, array or timestamped form; validated whole, then stored. 200, empty body. */
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { readBody, sendEmpty } from './exchange';
import { telemetryEntries } from '../core/payloads';

export const postTelemetry: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const body = await readBody(request, MAX_BODY);
  try {
    api.core.saveTelemetry(device, telemetryEntries(body.toString('utf8'), Date.now(), api.quirks));
  } catch (error) {
    if (payloadFailure(error, response, api)) return;
    throw error;
  }
  sendEmpty(response, 200);
};
