/**
 * POST /api/v1/{token}/telemetry: object, array or timestamped form; validated whole, then stored.
 * 200, empty body.
 */
import type { ServerResponse } from 'node:http';
import { MAX_BODY, authenticate, type DeviceApi, endpoint, payloadFailure } from './context';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody, sendEmptyOk } from './exchange';
import type { Device } from '../core/model';
import { runPayloadJobHereOrSoon } from '../core/off-thread';
import type { TelemetryRecord } from '../core/time-series';

/** Telemetry `[]`: the array form with no element. */
const EMPTY_ARRAY = /^\s*\[\s*\]\s*$/;

export const POST_TELEMETRY = endpoint({
  steps: {
    /**
     * The body as the text that is parsed: UTF-8 (a payload that is not, is refused by its parser).
     */
    text: (body: Buffer): string => body.toString('utf8'),
    /** Stores the records, after the 200 (core/scheduler.ts), as ThingsBoard's rule engine does. */
    save: (api: DeviceApi, device: Device, records: TelemetryRecord[]): void =>
      api.core.scheduler.later('save', () => api.core.saveTelemetry(device, records)),
    /**
     * Answers a refused body as the mode does (payloadFailure), or throws the error to be answered
     * 400.
     */
    refused: (
      response: ServerResponse,
      api: DeviceApi,
      error: unknown,
      _refusal: { device: Device; body: Buffer },
    ): void => {
      if (!payloadFailure(error, response, api)) throw error;
    },
  },
  handle: async (exchange, steps) => {
    const { request, response, api } = exchange;
    const device = authenticate(exchange, steps);
    if (!device) return;
    const body = await readBody(request, MAX_BODY);
    try {
      const job = runPayloadJobHereOrSoon({
        kind: 'telemetry',
        text: steps.text(body),
        now: Date.now(),
        quirks: api.quirks,
      });
      // a small body's records at once (nearly every request), a large one's from the worker
      const records = job instanceof Promise ? await job : job;
      // applied after the 200 (core/scheduler.ts); at once without asynchrony
      steps.save(api, device, records as TelemetryRecord[]);
      // an array with no element: no entry at all (a quirk's dropped records do not count,
      // ThingsBoard drops them later)
      if (api.quirks.emptyTelemetryUnansweredMs > 0 && EMPTY_ARRAY.test(`${body}`))
        return answerAfterAsyncTimeout(response, api.quirks.emptyTelemetryUnansweredMs);
    } catch (error) {
      return steps.refused(response, api, error, { device, body });
    }
    sendEmptyOk(response);
  },
});

/**
 * Quirk emptyTelemetryUnansweredMs (ThingsBoard): nothing answers the request, until the servlet
 * container's async timeout ends it with Spring's 503 in ThingsBoard's error shape.
 */
async function answerAfterAsyncTimeout(response: ServerResponse, ms: number): Promise<void> {
  await sleep(ms);
  if (response.destroyed || response.writableEnded) return;
  const body = JSON.stringify({ message: null, errorCode: 2, status: 503, timestamp: Date.now() });
  response.writeHead(503, { 'content-type': 'application/json' }).end(body);
}
