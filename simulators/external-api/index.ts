/**
 * The external-API simulator: the HTTP(S) service a REST connector calls for attribute updates and
 * server-side RPC. It records every request (method, path, query, headers, body) and answers by
 * script: a status, body and headers, a delay, a number of failures (503 or a dropped connection)
 * before succeeding, a redirect. Steps control it over HTTP under /__iotc/
 * (simulators/external-api/control.ts), so the simulator may run on another machine next to a real
 * gateway. Listens on 127.0.0.1 unless told otherwise.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { withHandshakeTimeout } from '../../lib/tls/handshake';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  receivedAt: number;
  /**
   * When the simulator answered it (or dropped its connection); absent while the answer is pending.
   */
  answeredAt?: number;
  /** The status it was answered with; absent while pending, or when its connection was dropped. */
  status?: number;
}

/** How requests whose path starts with `pathPrefix` are answered. */
export interface Script {
  pathPrefix: string;
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (ms). */
  delayMs?: number;
  /**
   * The first `failures` requests fail: with `failWith` 'status' a 503, with 'drop' a closed
   * connection.
   */
  failures?: number;
  failWith?: 'status' | 'drop';
  /** Answer 302 to this location instead (only the first time for the same path). */
  redirectTo?: string;
}

export const CONTROL_PREFIX = '/__iotc';
const MAX_RECORDED = 10_000;

export class ExternalApiSimulator {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts: Script[] = [];
  private readonly failuresLeft = new Map<Script, number>();

  private constructor(
    private readonly servers: Server[],
    /** http://host:port (also the control URL). */
    readonly url: string,
    /** https://host:port of the same service, when started with a certificate (for SSLVerify). */
    readonly httpsUrl?: string,
  ) {}

  static async start(
    options: {
      host?: string;
      port?: number;
      tls?: { cert: string; key: string };
      httpsPort?: number;
    } = {},
  ): Promise<ExternalApiSimulator> {
    let simulator: ExternalApiSimulator | undefined;
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      void simulator?.handle(request, response);
    };
    const host = options.host ?? '127.0.0.1';
    const listen = async (server: Server, port: number) => {
      server.keepAliveTimeout = 2_000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    };
    const http = createServer(handler);
    const port = await listen(http, options.port ?? 0);
    const servers: Server[] = [http];
    let httpsUrl: string | undefined;
    if (options.tls) {
      const https = createHttpsServer(withHandshakeTimeout(options.tls), handler);
      servers.push(https);
      httpsUrl = `https://${host}:${await listen(https, options.httpsPort ?? 0)}`;
    }
    simulator = new ExternalApiSimulator(servers, `http://${host}:${port}`, httpsUrl);
    return simulator;
  }

  script(script: Script): void {
    this.scripts.unshift(script); // the newest script of a prefix wins
    if (script.failures) this.failuresLeft.set(script, script.failures);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // when the request arrived, not when its body was read: on a busy machine reading the body
    // takes event-loop turns, and scenarios compare the arrival times of attempts with the
    // connector's timeouts
    const receivedAt = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://external-api');
    if (url.pathname.startsWith(`${CONTROL_PREFIX}/`))
      return this.control(request.method ?? 'GET', url, body, response);
    if (this.requests.length >= MAX_RECORDED) this.requests.shift();
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      headers: request.headers,
      body,
      receivedAt,
    };
    this.requests.push(recorded);
    response.once('close', () => {
      recorded.answeredAt = Date.now();
    });
    const script = this.scripts.find((candidate) => url.pathname.startsWith(candidate.pathPrefix));
    if (script?.delayMs) await new Promise((resolve) => setTimeout(resolve, script.delayMs));
    const left = script ? (this.failuresLeft.get(script) ?? 0) : 0;
    if (script && left > 0) {
      this.failuresLeft.set(script, left - 1);
      if (script.failWith === 'drop') {
        request.socket.destroy();
        return;
      }
      recorded.status = 503;
      return reply(response, 503, '{"error":"scripted failure"}', {
        'content-type': 'application/json',
      });
    }
    if (script?.redirectTo && !url.searchParams.has('redirected')) {
      recorded.status = 302;
      return reply(response, 302, '', { location: script.redirectTo });
    }
    recorded.status = script?.status ?? 200;
    reply(
      response,
      script?.status ?? 200,
      script?.body ?? '{"status":"ok"}',
      script?.headers ?? { 'content-type': 'application/json' },
    );
  }

  /**
   * POST /__iotc/scripts (a Script), GET /__iotc/requests?pathPrefix=... (recorded requests as
   * JSON), GET /__iotc/info (its URLs: url, and httpsUrl when it serves HTTPS).
   */
  private control(method: string, url: URL, body: string, response: ServerResponse): void {
    if (method === 'POST' && url.pathname === `${CONTROL_PREFIX}/scripts`) {
      try {
        this.script(JSON.parse(body) as Script);
        return reply(response, 204, '');
      } catch (error) {
        return reply(response, 400, (error as Error).message);
      }
    }
    if (method === 'GET' && url.pathname === `${CONTROL_PREFIX}/info`) {
      return reply(response, 200, JSON.stringify({ url: this.url, httpsUrl: this.httpsUrl }), {
        'content-type': 'application/json',
      });
    }
    if (method === 'GET' && url.pathname === `${CONTROL_PREFIX}/requests`) {
      const prefix = url.searchParams.get('pathPrefix') ?? '';
      return reply(
        response,
        200,
        JSON.stringify(this.requests.filter((recorded) => recorded.path.startsWith(prefix))),
        { 'content-type': 'application/json' },
      );
    }
    reply(response, 404, 'unknown control request');
  }
}

function reply(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
