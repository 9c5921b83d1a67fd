/**
 * The connector's HTTP(S) server: exact, case-sensitive paths; 404 for an unknown path, 405 with
 * Allow for a method the endpoint does not list (HEAD is not added to GET), as the real gateway's
 * aiohttp router answers. A mapping endpoint answers that 405 itself, in its response variant
 * (docs/reference/interfaces.md: unsuccessfulResponse on every status other than 200), unless a
 * quirks mode keeps the router's own text.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { withHandshakeTimeout } from '../../lib/tls/handshake';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { send } from './responses';

type RouteHandler = (request: IncomingMessage, url: URL, response: ServerResponse) => Promise<void>;
/**
 * How an endpoint answers a method it does not list (its 405 carries the endpoint's
 * unsuccessfulResponse).
 */
type MethodRefusal = (response: ServerResponse, headers: Record<string, string>) => void;

type MethodsOfPath = Map<string, RouteHandler>;

/** The route table's steps (steps.ts); step-faults.ts wraps them. */
export interface RouteSteps {
  /** The handlers of a request's path, by method. */
  methodsOf(byPath: ReadonlyMap<string, MethodsOfPath>, path: string): MethodsOfPath | undefined;
  /** How the endpoint of a path answers a method it does not list (undefined: the router's 405). */
  refusalOf(refusals: ReadonlyMap<string, MethodRefusal>, path: string): MethodRefusal | undefined;
}

export const ROUTE_STEPS: RouteSteps = {
  methodsOf: (byPath, path) => byPath.get(path),
  refusalOf: (refusals, path) => refusals.get(path),
};

export class Routes {
  private readonly byPath = new Map<string, MethodsOfPath>();
  private readonly refusals = new Map<string, MethodRefusal>();

  constructor(private readonly steps: RouteSteps = ROUTE_STEPS) {}

  add(path: string, methods: string[], handler: RouteHandler, refuse?: MethodRefusal): void {
    const methodsOfPath = this.byPath.get(path) ?? new Map<string, RouteHandler>();
    for (const method of methods) methodsOfPath.set(method.toUpperCase(), handler);
    this.byPath.set(path, methodsOfPath);
    if (refuse) this.refusals.set(path, refuse);
    else this.refusals.delete(path);
  }

  async dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://connector');
    const methods = this.steps.methodsOf(this.byPath, url.pathname);
    if (!methods) {
      request.resume();
      return send(response, 404, '404: Not Found', 'text/plain; charset=utf-8');
    }
    const handler = methods.get(request.method ?? 'GET');
    if (!handler) {
      request.resume();
      const allow = { allow: [...methods.keys()].join(', ') };
      const refuse = this.steps.refusalOf(this.refusals, url.pathname);
      if (refuse) return refuse(response, allow);
      return send(response, 405, '405: Method Not Allowed', 'text/plain; charset=utf-8', allow);
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
