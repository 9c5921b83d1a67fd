/**
 * One outgoing HTTP call of attributeUpdates or serverSideRpc, with undici: method, headers, basic
 * security, SSLVerify, allowRedirects, a per-attempt timeout (seconds) and up to `tries` attempts.
 * An attempt that fails to connect, times out or gets a 5xx is tried again; a 2xx/3xx/4xx answer
 * ends the call. An optional deadline (the RPC responseTimeout, seconds) bounds all attempts
 * together. The body is the valueExpression rendered JSON-aware when the call's Content-Type is
 * JSON.
 */
import { Agent, buildConnector, interceptors, request, type Dispatcher } from 'undici';
import { evaluate, evaluateText, jsonFragment, parseTemplate, textOf } from '../../lib/expressions';
import { basicAuthorization } from './basic-auth';
import type { OutgoingCallConfig } from './config-types';

export type CallOutcome =
  | { ok: true; status: number; text: string; attempts: number }
  | { ok: false; status?: number; text?: string; error: string; attempts: number };

/**
 * The network the connector runs in, as /etc/hosts and port forwarding give it: a destination
 * `host:port` (the port always written, 80/443 for http/https) to the `host:port` its connections
 * really reach. The request keeps the URL and Host the connector built; only the TCP connection
 * goes elsewhere. Destinations not listed are reached as named.
 */
export type NetworkRoutes = Readonly<Record<string, string>>;

/** `host:port` of a URL's origin, the port written even when it is the scheme's default. */
export function destinationOf(hostname: string, port: string | number, protocol: string): string {
  const host = hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
  return `${host}:${port || (protocol === 'https:' ? 443 : 80)}`;
}

function routedConnector(sslVerify: boolean, routes: NetworkRoutes): buildConnector.connector {
  const direct = buildConnector({ rejectUnauthorized: sslVerify });
  return (options, callback) => {
    const routed = routes[destinationOf(options.hostname, options.port, options.protocol)];
    if (!routed) return direct(options, callback);
    const to = new URL(`http://${routed}`);
    // the TLS server name (options.servername) stays the one the URL names, as through a forwarded
    // port
    return direct(
      { ...options, hostname: to.hostname.replace(/^\[|\]$/g, ''), host: to.host, port: to.port },
      callback,
    );
  };
}

export class OutgoingDispatchers {
  private readonly dispatchers = new Map<string, Dispatcher>();
  private readonly agents: Agent[] = [];

  constructor(private readonly routes: NetworkRoutes = {}) {}

  get(sslVerify: boolean, allowRedirects: boolean): Dispatcher {
    const key = `${sslVerify}:${allowRedirects}`;
    let dispatcher = this.dispatchers.get(key);
    if (!dispatcher) {
      const agent = new Agent({
        connect: routedConnector(sslVerify, this.routes),
        keepAliveTimeout: 4_000,
      });
      this.agents.push(agent);
      dispatcher = allowRedirects
        ? agent.compose(interceptors.redirect({ maxRedirections: 10 }))
        : agent;
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.agents.map((agent) => agent.destroy()));
  }
}

interface PreparedCall {
  url: string;
  body?: string;
  config: OutgoingCallConfig;
}

/**
 * The URL as written, with http:// in front when the expression gave no scheme (the real gateway
 * does the same).
 */
export function absoluteUrl(url: string): string {
  return /^https?:\/\//i.test(url) ? url : `http://${url.replace(/^\/+/, '')}`;
}

export async function callOut(
  call: PreparedCall,
  dispatchers: OutgoingDispatchers,
  deadlineSec?: number,
): Promise<CallOutcome> {
  const { config } = call;
  const headers: Record<string, string> = { ...config.headers };
  if (config.security.type === 'basic')
    headers.authorization = basicAuthorization(config.security.username, config.security.password);
  const deadline = deadlineSec === undefined ? Infinity : Date.now() + deadlineSec * 1000;
  const method = config.method.toUpperCase() as Dispatcher.HttpMethod;
  const sendsBody =
    call.body !== undefined && method !== 'HEAD' && (method !== 'GET' || config.bodyWithGet);
  let last: CallOutcome = { ok: false, error: 'not attempted', attempts: 0 };
  for (let attempt = 1; attempt <= config.tries; attempt++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    // an attempt the deadline cuts short ends the call when it times out: timers may fire a little
    // before the wall clock says the deadline has passed, and a sliver of time left is no reason
    // for another attempt
    const cutByDeadline = left < config.timeoutSec * 1000;
    const timeoutMs = cutByDeadline ? left : config.timeoutSec * 1000;
    try {
      const response = await request(call.url, {
        method,
        headers,
        body: sendsBody ? call.body : undefined,
        dispatcher: dispatchers.get(config.sslVerify, config.allowRedirects),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.body.text();
      if (response.statusCode < 500) {
        return response.statusCode < 400
          ? { ok: true, status: response.statusCode, text, attempts: attempt }
          : {
              ok: false,
              status: response.statusCode,
              text,
              error: `answered ${response.statusCode}`,
              attempts: attempt,
            };
      }
      last = {
        ok: false,
        status: response.statusCode,
        text,
        error: `answered ${response.statusCode}`,
        attempts: attempt,
      };
    } catch (error) {
      const name = (error as Error).name;
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      last = {
        ok: false,
        error: timedOut
          ? `no answer within ${cutByDeadline ? deadlineSec : config.timeoutSec} s`
          : (error as Error).message,
        attempts: attempt,
      };
      if (timedOut && cutByDeadline) break;
    }
  }
  return last;
}

/** The body of an outgoing call: the valueExpression, JSON-aware when the call sends JSON. */
export function renderBody(
  config: OutgoingCallConfig,
  data: unknown,
  variables: Record<string, unknown>,
): string | undefined {
  const json = Object.entries(config.headers).some(
    ([name, value]) => name.toLowerCase() === 'content-type' && /json/i.test(value),
  );
  const parts = parseTemplate(config.valueExpression).parts;
  if (parts.length === 1 && 'path' in parts[0]!) {
    // the body is one value: as a JSON document, or as text
    const value = evaluate(config.valueExpression, data, { variables });
    if (value === undefined) return undefined;
    return json ? JSON.stringify(value) : textOf(value);
  }
  return evaluateText(config.valueExpression, data, {
    variables,
    render: json ? jsonFragment : textOf,
    missing: 'keep',
  });
}
