/** POST /api/v1/{token}/telemetry: object, array or timestamped form; validated whole, then stored. 200, empty body. */
import { MAX_BODY, authenticate, payloadFailure, type DeviceHandler } from './context';
import { isUtf8 } from 'node:buffer';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody, sendEmpty } from './exchange';
import { telemetryEntries } from '../core/payloads';
import { BadRequestError } from '../core/errors';
import { faultActive } from '../../../faults';
import type { Device } from '../core/model';
import { runPayloadJobSoon } from '../core/off-thread';
import type { TelemetryRecord } from '../core/time-series';

/** Telemetry `[]`: the array form with no element. */
const EMPTY_ARRAY = /^\s*\[\s*\]\s*$/;

export const postTelemetry: DeviceHandler = async (request, response, params, api) => {
  const device = authenticate(api, params, request, response);
  if (!device) return;
  const body = await readBody(request, MAX_BODY);
  if (faultActive('ROB-UTF8-01:accepted-not-stored') && !isUtf8(body))
    return sendEmpty(response, 200);
  try {
    if (faultActive('HTTP-TEL-02-EMPTY:empty-array-refused') && EMPTY_ARRAY.test(`${body}`))
      throw new BadRequestError('telemetry holds no entry');
    const records = await runPayloadJobSoon({
      kind: 'telemetry',
      text: body.toString(faultActive('ROB-UTF8-01:latin1-decoding') ? 'latin1' : 'utf8'),
      now: Date.now(),
      quirks: api.quirks,
    });
    // applied after the 200 (core/scheduler.ts), as ThingsBoard's rule engine does; at once without asynchrony
    api.core.scheduler.later('save', () =>
      api.core.saveTelemetry(device, records as TelemetryRecord[]),
    );
    // an array with no element: no entry at all (a quirk's dropped records do not count, ThingsBoard drops them later)
    if (api.quirks.emptyTelemetryUnansweredMs > 0 && EMPTY_ARRAY.test(`${body}`))
      return answerAfterAsyncTimeout(response, api.quirks.emptyTelemetryUnansweredMs);
  } catch (error) {
    if (faultActive('HTTP-ERR-01:valid-elements-stored')) storeValidElements(api, device, body);
    if (payloadFailure(error, response, api)) return;
    throw error;
  }
  sendEmpty(response, 200);
};

/**
 * Quirk emptyTelemetryUnansweredMs (ThingsBoard): nothing answers the request, until the servlet container's async
 * timeout ends it with Spring's 503 in ThingsBoard's error shape.
 */
async function answerAfterAsyncTimeout(
  response: Parameters<DeviceHandler>[1],
  ms: number,
): Promise<void> {
  await sleep(ms);
  if (response.destroyed || response.writableEnded) return;
  const body = JSON.stringify({ message: null, errorCode: 2, status: 503, timestamp: Date.now() });
  response.writeHead(503, { 'content-type': 'application/json' }).end(body);
}

/** Planted fault HTTP-ERR-01:valid-elements-stored: the valid elements of a refused array are stored one by one. */
function storeValidElements(api: Parameters<DeviceHandler>[3], device: Device, body: Buffer): void {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  if (!Array.isArray(document)) return;
  for (const element of document) {
    try {
      api.core.saveTelemetry(device, telemetryEntries(JSON.stringify(element), Date.now()));
    } catch {
      // an invalid element is skipped
    }
  }
}
