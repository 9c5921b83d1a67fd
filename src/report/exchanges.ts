/**
 * Evidence of a scenario: the requests and responses (HTTP) and publish outcomes (MQTT) that
 * decided it.
 *
 * Drivers take an optional `recorder` and hand it one Exchange per request they made; a scenario
 * keeps them in an ExchangeLog (bounded: the last few, bodies cut to a few hundred characters,
 * secrets redacted as they are recorded, so a JWT is never cut in half before redaction could see
 * it whole). The After hook attaches the log to the scenario under EXCHANGES_MEDIA_TYPE and the
 * report reads it back from the cucumber messages as the requirement's evidence.
 */

import type { Exchange, ExchangeRecorder } from '../../lib/exchange';

/** The media type of the scenario attachment that carries its exchanges. */
export const EXCHANGES_MEDIA_TYPE = 'application/vnd.iotc.exchanges+json';

export type { Exchange, ExchangeRecorder, HttpExchange, MqttExchange } from '../../lib/exchange';

interface ExchangeLogOptions {
  /** How many exchanges a scenario keeps (the last ones). */
  limit?: number;
  /** How many characters of a body are kept. */
  bodyChars?: number;
  /** Blanks secrets; applied to every URL, header value and body before it is cut. */
  redact?: (text: string) => string;
}

/**
 * Longest text handed to the redactor (bodies are cut far shorter afterwards; a firmware download
 * is not read whole).
 */
const REDACT_WINDOW = 65_536;
/** Header names whose values are credentials: only the scheme (Bearer, ApiKey) is kept. */
const SECRET_HEADER = /authorization|token|jwt|key|cookie|secret|password/i;

export class ExchangeLog {
  /**
   * The kept exchanges as the drivers gave them: redacted and cut only when they are read
   * (`exchanges`, the attachment). A scenario records hundreds of exchanges and keeps six;
   * redacting each as it came cost a run 22 million characters through the redactor's patterns
   * (about 1 s of CPU of the suite's 35), for evidence that was dropped. Redacting late is as
   * strict: the redactor then knows every secret the scenario registered, a superset of what it
   * knew when the exchange came.
   */
  private readonly entries: { exchange: Exchange; repeated?: number }[] = [];
  private readonly limit: number;
  private readonly bodyChars: number;
  private readonly redact: (text: string) => string;
  /** How many exchanges were recorded in all (older ones beyond the limit are dropped). */
  total = 0;

  constructor(options: ExchangeLogOptions = {}) {
    this.limit = options.limit ?? 6;
    this.bodyChars = options.bodyChars ?? 300;
    this.redact = options.redact ?? ((text) => text);
  }

  /** Records one exchange (a recorder: pass `log.record` to a driver). */
  readonly record: ExchangeRecorder = (exchange) => {
    this.total += 1;
    const kept = detached(exchange);
    const last = this.entries.at(-1);
    if (last && this.sameRequest(last.exchange, kept)) {
      this.entries[this.entries.length - 1] = {
        exchange: kept,
        repeated: (last.repeated ?? 1) + 1,
      };
      return;
    }
    this.entries.push({ exchange: kept });
    if (this.entries.length > this.limit) this.entries.shift();
  };

  /**
   * The kept exchanges, redacted and cut (each call redacts them anew, with every secret known by
   * then).
   */
  get exchanges(): readonly Exchange[] {
    return this.entries.map(({ exchange, repeated }) => {
      const safe = this.sanitize(exchange);
      return repeated === undefined ? safe : { ...safe, repeated };
    });
  }

  /**
   * The same request as the one before with the same outcome (an `eventually` polling, a device
   * repeating itself): folded into one entry with a count. Addresses are compared as the evidence
   * shows them (redacted: two devices' tokens in a path are the same request), bodies as sent.
   */
  private sameRequest(a: Exchange, b: Exchange): boolean {
    if (a.protocol === 'http' && b.protocol === 'http') {
      // the same request with the same status; a new status is news and gets its own entry
      return (
        a.via === b.via &&
        a.request.method === b.request.method &&
        a.request.body === b.request.body &&
        a.response.status === b.response.status &&
        (a.request.url === b.request.url ||
          this.redact(pathOf(a.request.url)) === this.redact(pathOf(b.request.url)))
      );
    }
    if (a.protocol === 'mqtt' && b.protocol === 'mqtt') {
      // the same publish with the same outcome; a different outcome is news
      return (
        a.request.packet === b.request.packet &&
        a.request.qos === b.request.qos &&
        a.request.payload === b.request.payload &&
        a.response.result === b.response.result &&
        a.response.reasonCode === b.response.reasonCode &&
        (a.request.topic === b.request.topic ||
          (a.request.topic !== undefined &&
            b.request.topic !== undefined &&
            this.redact(a.request.topic) === this.redact(b.request.topic)))
      );
    }
    return false;
  }

  /** The attachment body: JSON, already redacted. */
  toJSON(): { total: number; exchanges: Exchange[] } {
    return { total: this.total, exchanges: [...this.exchanges] };
  }

  private text(value: string | undefined): string | undefined {
    if (value === undefined || value === '') return undefined;
    const redacted = this.redact(value.slice(0, REDACT_WINDOW));
    return redacted.length > this.bodyChars
      ? `${redacted.slice(0, this.bodyChars)}… (${value.length} characters)`
      : redacted;
  }

  private sanitize(exchange: Exchange): Exchange {
    if (exchange.protocol === 'mqtt') {
      const { request } = exchange;
      return {
        ...exchange,
        request: {
          ...request,
          url: request.url && this.redact(request.url),
          topic: request.topic && this.redact(request.topic),
          payload: this.text(request.payload),
        },
        elapsedMs: Math.round(exchange.elapsedMs),
      };
    }
    const { request, response } = exchange;
    const headers =
      request.headers && Object.keys(request.headers).length
        ? sanitizeHeaders(request.headers, this.redact)
        : undefined;
    return {
      ...exchange,
      request: {
        method: request.method,
        url: this.redact(pathOf(request.url)),
        ...(headers ? { headers } : {}),
        body: this.text(request.body),
      },
      response: { status: response.status, body: this.text(response.body) },
      elapsedMs: Math.round(exchange.elapsedMs),
    };
  }
}

/** Path and query of a URL (the target's origin is in the report's header). */
function pathOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]+(\/.*)?$/i.exec(url);
  return match ? (match[1] ?? '/') : url;
}

function sanitizeHeaders(
  headers: Record<string, string>,
  redact: (text: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (SECRET_HEADER.test(name)) {
      const scheme = /^(Bearer|ApiKey|Basic)\s+/i.exec(value)?.[1];
      out[name] = value === '' ? '' : `${scheme ? `${scheme} ` : ''}<redacted>`;
    } else out[name] = redact(value);
  }
  return out;
}

/** A copy of what a driver may still change (its headers object); strings are kept as they are. */
function detached(exchange: Exchange): Exchange {
  if (exchange.protocol === 'mqtt') return { ...exchange };
  const { headers } = exchange.request;
  return {
    ...exchange,
    request: { ...exchange.request, ...(headers ? { headers: { ...headers } } : {}) },
  };
}

/**
 * One line for people: `POST /api/v1/<redacted>/telemetry → 200`, `PUBLISH v1/devices/me/telemetry
 * qos 1 → acked 0x00`, `RECEIVED v1/gateway/rpc qos 1` (the payload is shown under it).
 */
export function describeExchange(exchange: Exchange): string {
  const times = exchange.repeated ? ` (×${exchange.repeated})` : '';
  if (exchange.protocol === 'http')
    return `${exchange.request.method} ${exchange.request.url} → ${exchange.response.status}${times}`;
  const { request, response } = exchange;
  if (request.packet === 'RECEIVED')
    return `RECEIVED ${request.topic ?? ''} qos ${request.qos ?? 0}${times}`;
  const what =
    request.packet === 'PUBLISH'
      ? `PUBLISH ${request.topic ?? ''} qos ${request.qos ?? 0}`
      : request.packet === 'CONNECT'
        ? `CONNECT ${request.url ?? ''}`
        : request.packet; // SUBSCRIBE, OTHER: a client under test's packet, shown by its payload
  const code =
    response.reasonCode === undefined
      ? ''
      : ` 0x${response.reasonCode.toString(16).padStart(2, '0')}`;
  return `${what} → ${response.result}${code}${response.reasonString ? ` ${response.reasonString}` : ''}${times}`;
}

/** Reads an exchanges attachment back; anything not of that shape gives an empty list. */
export function parseExchanges(body: string): Exchange[] {
  try {
    const parsed = JSON.parse(body) as { exchanges?: unknown };
    return Array.isArray(parsed.exchanges) ? (parsed.exchanges as Exchange[]) : [];
  } catch {
    return [];
  }
}

/** A word for a POSIX shell, in single quotes. */
function quoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The command line that repeats an exchange by hand: curl for HTTP, mosquitto_pub for an MQTT
 * publish (undefined for what a client cannot repeat alone, a CONNECT or a message the platform
 * sent). Redacted secrets become shell variables to fill in ($TOKEN in a device path, $IOTC_TOKEN
 * for an admin JWT, from POST /api/auth/login, $SECRET elsewhere), never the secret; a body cut in
 * the evidence is marked. An MQTT publish goes to the broker its session used (an embedded target's
 * is gone: `iotc simulate` on its default port stands in).
 */
export function reproduceExchange(
  exchange: Exchange,
  baseUrl: string,
  options: { embedded?: boolean } = {},
): string | undefined {
  const fill = (text: string) =>
    text
      .replace(/\/api\/v1\/<redacted>/g, '/api/v1/$TOKEN')
      .replace(/^(x-authorization: Bearer )<redacted>$/i, '$1$IOTC_TOKEN')
      .replaceAll('<redacted>', '$SECRET');
  if (exchange.protocol === 'http') {
    const { method, url, headers = {}, body } = exchange.request;
    const parts = ['curl', '-sS', '-X', method];
    for (const [name, value] of Object.entries(headers))
      parts.push('-H', `"${fill(`${name}: ${value}`)}"`);

    if (body !== undefined) parts.push('--data-raw', quoted(body));
    parts.push(`"${fill(`${baseUrl.replace(/\/$/, '')}${url}`)}"`);
    const cut = body !== undefined && /… \(\d+ characters\)$/.test(body);
    return `${parts.join(' ')}${cut ? '   # the body was cut in the evidence' : ''}`;
  }
  const { packet, topic, qos, payload } = exchange.request;
  if (packet !== 'PUBLISH' || topic === undefined) return undefined;
  // the broker the session published to (an embedded one is gone: `iotc simulate` on its default
  // port stands in)
  const recorded = !options.embedded && exchange.request.url ? exchange.request.url : undefined;
  const broker = new URL(
    recorded ?? (baseUrl.startsWith('mqtt') ? baseUrl : 'mqtt://127.0.0.1:1883'),
  );
  const tls = broker.protocol === 'mqtts:';
  return [
    'mosquitto_pub',
    '-h',
    broker.hostname,
    '-p',
    broker.port || (tls ? '8883' : '1883'),
    ...(tls ? ['--cafile', '"$IOTC_CA_FILE"'] : []),
    '-u',
    '"$TOKEN"',
    '-t',
    quoted(topic),
    '-q',
    String(qos ?? 0),
    '-m',
    quoted(payload ?? ''),
  ].join(' ');
}
