/**
 * The REST connector client: what a device or a third-party system does against a connector
 * endpoint. JSON bodies, multipart forms (fields and files, through undici FormData and Blob),
 * query parameters, basic credentials, any method. Every call answers {status, headers, text} and
 * never throws on a status.
 */
import { Agent, FormData, request, type Dispatcher } from 'undici';
import type { ExchangeRecorder } from '../../lib/exchange';

export interface ConnectorResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  elapsedMs: number;
}

export type ConnectorBody =
  | { json: unknown }
  | { raw: string; contentType?: string }
  | { bytes: Buffer; contentType?: string }
  | {
      multipart: {
        fields: Record<string, string>;
        files?: Array<{ field: string; filename: string; content: string; type?: string }>;
      };
    };

export interface ConnectorCall {
  method?: string;
  path: string;
  query?: Record<string, string>;
  body?: ConnectorBody;
  /** Basic credentials; `authorization` sends that header as it is (malformed headers). */
  basic?: { username: string; password: string };
  authorization?: string;
  timeoutMs?: number;
}

export class ConnectorClient {
  private readonly dispatcher: Agent;

  private readonly recorder?: ExchangeRecorder;

  constructor(
    readonly baseUrl: string,
    /**
     * Trust for an https connector; `recorder` is told every request and its answer (scenario
     * evidence).
     */
    options: { ca?: string; insecureSkipVerify?: boolean; recorder?: ExchangeRecorder } = {},
  ) {
    this.recorder = options.recorder;
    this.dispatcher = new Agent({
      keepAliveTimeout: 5_000,
      connect: { ca: options.ca, rejectUnauthorized: !options.insecureSkipVerify },
    });
  }

  async send(call: ConnectorCall): Promise<ConnectorResponse> {
    const url = new URL(this.baseUrl.replace(/\/+$/, '') + call.path);
    for (const [name, value] of Object.entries(call.query ?? {}))
      url.searchParams.append(name, value);
    const headers: Record<string, string> = {};
    if (call.basic)
      headers.authorization = `Basic ${Buffer.from(`${call.basic.username}:${call.basic.password}`).toString('base64')}`;
    if (call.authorization !== undefined) headers.authorization = call.authorization;
    let body: string | Buffer | FormData | undefined;
    if (call.body && 'json' in call.body) {
      body = JSON.stringify(call.body.json);
      headers['content-type'] = 'application/json';
    } else if (call.body && 'raw' in call.body) {
      body = call.body.raw;
      if (call.body.contentType) headers['content-type'] = call.body.contentType;
    } else if (call.body && 'bytes' in call.body) {
      body = call.body.bytes;
      if (call.body.contentType) headers['content-type'] = call.body.contentType;
    } else if (call.body && 'multipart' in call.body) {
      const form = new FormData();
      for (const [name, value] of Object.entries(call.body.multipart.fields))
        form.append(name, value);
      for (const file of call.body.multipart.files ?? [])
        form.append(
          file.field,
          new Blob([file.content], { type: file.type ?? 'application/octet-stream' }),
          file.filename,
        );
      body = form;
    }
    const started = performance.now();
    const response = await request(url, {
      method: (call.method ?? (body === undefined ? 'GET' : 'POST')) as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: this.dispatcher,
      headersTimeout: call.timeoutMs ?? 10_000,
      bodyTimeout: call.timeoutMs ?? 10_000,
    });
    const text = await response.body.text();
    const elapsedMs = performance.now() - started;
    this.recorder?.({
      protocol: 'http',
      via: 'connector client',
      request: {
        method: call.method ?? (body === undefined ? 'GET' : 'POST'),
        url: url.toString(),
        headers,
        body: shownBody(call.body),
      },
      response: { status: response.statusCode, body: text },
      elapsedMs,
    });
    return { status: response.statusCode, headers: response.headers, text, elapsedMs };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** A body as evidence shows it: JSON and text as sent, bytes in hex, multipart as its parts. */
function shownBody(body: ConnectorBody | undefined): string | undefined {
  if (!body) return undefined;
  if ('json' in body) return JSON.stringify(body.json);
  if ('raw' in body) return body.raw;
  if ('bytes' in body) return `bytes ${body.bytes.toString('hex')}`;
  const files = (body.multipart.files ?? []).map((file) => `${file.field}=<file ${file.filename}>`);
  return `multipart ${[...Object.entries(body.multipart.fields).map(([name, value]) => `${name}=${value}`), ...files].join('; ')}`;
}
