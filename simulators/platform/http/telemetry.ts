/**
 * POST /api/v1/{token}/telemetry: object, array or timestamped form; validated whole, then stored.
 * 200, empty body.
 */
import type { ServerResponse } from 'node:http';
import {
  MAX_BODY,
  answeringErrors,
  authenticate,
  type DeviceApi,
  type DeviceExchange,
  type EndpointSteps,
  endpoint,
  payloadFailure,
} from './context';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBodyThen, sendEmptyOk } from './exchange';
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
  handle: (exchange, steps) => {
    const device = authenticate(exchange, steps);
    if (!device) return;
    // the body by callback: a small one is stored and answered without a promise or a microtask
    // turn of its own, and without a closure (this endpoint is the reference's hottest path)
    readBodyThen(exchange.request, MAX_BODY, bodyRead, {
      exchange,
      steps,
      device,
      body: EMPTY_BODY,
    });
  },
});

/** A telemetry request of a known device: its body once read. */
interface Received {
  exchange: DeviceExchange;
  steps: EndpointSteps<typeof POST_TELEMETRY>;
  device: Device;
  body: Buffer;
}

const EMPTY_BODY = Buffer.alloc(0);

/** The body is read (or its read failed): handled, what it throws answered. */
function bodyRead(error: Error | undefined, body: Buffer | undefined, received: Received): void {
  const { exchange, steps } = received;
  if (error) return steps.failed(exchange, error);
  received.body = body as Buffer;
  answeringErrors(exchange, steps, receive, received);
}

/** Reads the records of the body, then stores them and answers; or answers the body's refusal. */
function receive(exchange: DeviceExchange, received: Received): void | Promise<void> {
  const { response, api } = exchange;
  const { steps, device, body } = received;
  try {
    const job = runPayloadJobHereOrSoon({
      kind: 'telemetry',
      text: steps.text(body),
      now: Date.now(),
      quirks: api.quirks,
    });
    // a small body's records at once (nearly every request), a large one's from the worker
    if (job instanceof Promise)
      return job.then(
        (records) => store(exchange, received, records as TelemetryRecord[]),
        (error: unknown) => steps.refused(response, api, error, { device, body }),
      );
    return store(exchange, received, job as TelemetryRecord[]);
  } catch (error) {
    return steps.refused(response, api, error, { device, body });
  }
}

/** Stores the records and answers 200 (after the quirk's wait for `[]`), or answers the refusal. */
function store(
  exchange: DeviceExchange,
  { steps, device, body }: Received,
  records: TelemetryRecord[],
): void | Promise<void> {
  const { response, api } = exchange;
  try {
    // applied after the 200 (core/scheduler.ts); at once without asynchrony
    steps.save(api, device, records);
    // an array with no element: no entry at all (a quirk's dropped records do not count,
    // ThingsBoard drops them later)
    if (api.quirks.emptyTelemetryUnansweredMs > 0 && EMPTY_ARRAY.test(`${body}`))
      return answerAfterAsyncTimeout(response, api.quirks.emptyTelemetryUnansweredMs);
  } catch (error) {
    return steps.refused(response, api, error, { device, body });
  }
  sendEmptyOk(response);
}

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
