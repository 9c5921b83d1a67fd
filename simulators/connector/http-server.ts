/**
 * The connector's HTTP(S) server: exact, case-sensitive paths; 404 for an unknown path, 405 with Allow for a
 * method the endpoint does not list (HEAD is not added to GET), as the real gateway's aiohttp router answers.
 */
import { faultActive } from '../../faults';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { withHandshakeTimeout } from '../../lib/tls/handshake';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { send } from './responses';

type RouteHandler = (request: IncomingMessage, url: URL, response: ServerResponse) => Promise<void>;

export class Routes {
  private readonly byPath = new Map<string, Map<string, RouteHandler>>();

  add(path: string, methods: string[], handler: RouteHandler): void {
    const methodsOfPath = this.byPath.get(path) ?? new Map<string, RouteHandler>();
    for (const method of methods) methodsOfPath.set(method.toUpperCase(), handler);
    this.byPath.set(path, methodsOfPath);
  }

  async dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://connector');
    const methods =
      this.byPath.get(url.pathname) ??
      (faultActive('RC-MAP-02:unknown-path-served')
        ? this.byPath.values().next().value
        : undefined);
    if (!methods) {
      request.resume();
      return send(response, 404, '404: Not Found', 'text/plain; charset=utf-8');
    }
    const handler = methods.get(request.method ?? 'GET');
    if (!handler) {
      request.resume();
      return send(response, 405, '405: Method Not Allowed', 'text/plain; charset=utf-8', {
        allow: [...methods.keys()].join(', '),
      });
    }
    return handler(request, url, response);
  }
}

interface ListenOptions {
  host: string;
  port: number;
  tls?: { cert: string; key: string };
}

export async function listen(
  routes: Routes,
  options: ListenOptions,
  logger: Logger,
): Promise<{ server: Server; port: number }> {
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    routes.dispatch(request, response).catch((error: unknown) => {
      logger.error({ error: (error as Error).message }, 'request failed');
      send(response, 500, '');
    });
  };
  const server = options.tls
    ? createHttpsServer(
        withHandshakeTimeout({ cert: options.tls.cert, key: options.tls.key }),
        onRequest,
      )
    : createServer(onRequest);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
