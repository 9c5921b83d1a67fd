/** POST /api/v1/{token}/telemetry: object, array or timestamped form; validated whole, then stored. 200, empty body. */
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { readBody, sendEmpty } from './exchange';
import { runPayloadJobSoon } from '../core/off-thread';
import type { TelemetryRecord } from '../core/time-series';

export const postTelemetry: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const body = await readBody(request, MAX_BODY);
  try {
    const records = await runPayloadJobSoon({
      kind: 'telemetry',
      text: body.toString('utf8'),
      now: Date.now(),
      quirks: api.quirks,
    });
    api.core.saveTelemetry(device, records as TelemetryRecord[]);
  } catch (error) {
    if (payloadFailure(error, response, api)) return;
    throw error;
  }
  sendEmpty(response, 200);
};
