/**
 * What the reference platform receives and answers, one event per HTTP exchange and per MQTT
 * packet, for people watching their firmware talk to it (`iotc simulate --log`). Off unless a
 * listener is given: no cost otherwise. Access tokens in paths and MQTT user names are shortened to
 * their first four characters in what is shown (`path`, `body`); `exchange` is the exchange as it
 * was, for programs that judge a client's requests (`iotc certify`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Packet } from 'mqtt-packet';

export type TrafficEvent =
  | {
      protocol: 'http';
      method: string;
      path: string;
      status: number;
      ms: number;
      /** The start of the request body, as the handler read it. */
      body?: string;
      /** Unmasked, for programs: never print it (it carries the access token). */
      exchange: ObservedExchange;
    }
  | {
      protocol: 'mqtt';
      /** in: from the client; out: from the platform. */
      direction: 'in' | 'out';
      client: string;
      /**
       * Which connection (a number per accepted socket, from 1): `client` changes once the CONNECT
       * names it.
       */
      connection: number;
      /** Epoch milliseconds of the event. */
      at: number;
      packet: Packet;
    };

/** One HTTP exchange as the platform saw it, bodies kept up to KEPT_BODY_BYTES. */
export interface ObservedExchange {
  /** Epoch milliseconds when the request arrived. */
  receivedAt: number;
  method: string;
  /** The request target as sent: path with the access token, and query. */
  url: string;
  contentType?: string;
  requestBody: string;
  status: number;
  responseBody: string;
}

export type TrafficListener = (event: TrafficEvent) => void;

const SHOWN_BODY_BYTES = 500;
/**
 * What is kept of each body for programs (a device API payload is far smaller; a firmware download
 * is cut).
 */
const KEPT_BODY_BYTES = 65_536;

/** Masks an access token: its first four characters and an ellipsis. */
function maskToken(token: string): string {
  return token.length <= 4 ? '…' : `${token.slice(0, 4)}…`;
}

/** The device token in /api/v1/{token}/... masked. */
function maskPath(url: string): string {
  return url.replace(
    /^\/api\/v1\/(?!provision\b)([^/?]+)/,
    (_match, token: string) => `/api/v1/${maskToken(token)}`,
  );
}

/**
 * Observes one HTTP exchange: the body chunks as its handler consumes them (by watching the 'data'
 * events the stream emits anyway, so the handler's reading is untouched) and the status once the
 * answer is sent.
 */
export function observeHttp(
  request: IncomingMessage,
  response: ServerResponse,
  listener: TrafficListener,
): void {
  const started = performance.now();
  const receivedAt = Date.now();
  const chunks: Buffer[] = [];
  let kept = 0;
  const answer = captureResponseBody(response);
  const emit = request.emit;
  request.emit = function observed(
    this: IncomingMessage,
    event: string | symbol,
    ...args: unknown[]
  ) {
    if (event === 'data' && kept < KEPT_BODY_BYTES) {
      const chunk = Buffer.from(args[0] as Buffer);
      chunks.push(chunk);
      kept += chunk.length;
    }
    return emit.call(this, event, ...args);
  } as typeof request.emit;
  response.once('finish', () => {
    const requestBody = Buffer.concat(chunks).toString('utf8').slice(0, KEPT_BODY_BYTES);
    const body = requestBody.slice(0, SHOWN_BODY_BYTES + 1);
    listener({
      protocol: 'http',
      method: request.method ?? '?',
      path: maskPath(request.url ?? ''),
      status: response.statusCode,
      ms: Math.round(performance.now() - started),
      body: body
        ? body.length > SHOWN_BODY_BYTES
          ? `${body.slice(0, SHOWN_BODY_BYTES)}…`
          : body
        : undefined,
      exchange: {
        receivedAt,
        method: request.method ?? '?',
        url: request.url ?? '',
        contentType: request.headers['content-type'],
        requestBody,
        status: response.statusCode,
        responseBody: answer(),
      },
    });
  });
}

/**
 * Keeps the body the handler hands to `response.end` (the reference answers with one end call,
 * never write).
 */
function captureResponseBody(response: ServerResponse): () => string {
  let captured = '';
  const end = response.end;
  response.end = function observedEnd(this: ServerResponse, ...args: unknown[]) {
    const chunk = args[0];
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk))
      captured = chunk.toString('utf8').slice(0, KEPT_BODY_BYTES);
    return (end as (...rest: unknown[]) => ServerResponse).apply(this, args);
  } as typeof response.end;
  return () => captured;
}

/** One line for a person: time, protocol, what happened. */
export function formatTraffic(event: TrafficEvent, now = new Date()): string {
  const time = now.toISOString().slice(11, 23);
  if (event.protocol === 'http')
    return `${time} HTTP ${event.method} ${event.path} → ${event.status} (${event.ms} ms)${event.body ? ` ${event.body}` : ''}`;
  const arrow = event.direction === 'in' ? '→' : '←';
  return `${time} MQTT ${event.client} ${arrow} ${describePacket(event.packet)}`;
}

function describePacket(packet: Packet): string {
  const reason = (code: number | undefined) =>
    code === undefined ? '' : ` 0x${code.toString(16).padStart(2, '0')}`;
  switch (packet.cmd) {
    case 'connect':
      return `CONNECT v${packet.protocolVersion} client id "${packet.clientId}" user ${packet.username ? maskToken(packet.username) : '(none)'}`;
    case 'connack':
      return `CONNACK${reason(packet.reasonCode ?? packet.returnCode)}`;
    case 'publish': {
      const payload = packet.payload.toString();
      return `PUBLISH ${packet.topic} qos ${packet.qos} ${payload.length > SHOWN_BODY_BYTES ? `${payload.slice(0, SHOWN_BODY_BYTES)}…` : payload}`;
    }
    case 'puback':
      return `PUBACK ${packet.messageId}${reason(packet.reasonCode)}`;
    case 'subscribe':
      return `SUBSCRIBE ${packet.subscriptions.map((subscription) => `${subscription.topic} qos ${subscription.qos}`).join(', ')}`;
    case 'suback':
      return `SUBACK ${packet.granted.map((granted) => (typeof granted === 'number' ? granted : (granted as { qos: number }).qos)).join(', ')}`;
    case 'disconnect':
      return `DISCONNECT${reason(packet.reasonCode)}`;
    default:
      return packet.cmd.toUpperCase();
  }
}
