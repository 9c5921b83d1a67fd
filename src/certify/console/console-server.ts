/**
 * The operator console's server (`iotc certify device --console`), on a port of its own so that the
 * browser's requests never mix with the device's on the reference (where HTTP-DEV-01 would judge
 * them as the client's):
 * - GET /certify: the page (console-page.ts);
 * - GET /certify/events: server-sent events, each the live part of the page rendered again
 *   (node:http writes them: one response kept open, no library needed);
 * - POST /certify/finish: the operator ends the certification (the session's `finish`).
 * Every change of the state is pushed once per turn of the event loop, however many events made it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SessionEvent } from '../session-steps';
import { renderConsolePage, renderLive } from './console-page';
import type { ConsoleState, ConsoleVerdict } from './console-state';

export interface OperatorConsole {
  /** http://127.0.0.1:<port>/certify */
  url: string;
  /** Settles when the operator presses finish. */
  finish: Promise<void>;
  /** The session's listener: applies the event and pushes the change. */
  events: (event: SessionEvent) => void;
  /** Shows the final verdict and where the reports are, then ends the event streams. */
  concluded(verdict: ConsoleVerdict): void;
  close(): Promise<void>;
}

export async function startOperatorConsole(
  state: ConsoleState,
  options: { host?: string; port?: number } = {},
): Promise<OperatorConsole> {
  const streams = new Set<ServerResponse>();
  let pushScheduled = false;
  let closed = false;
  let pressFinish: () => void = () => {};
  const finish = new Promise<void>((resolve) => {
    pressFinish = resolve;
  });

  const update = () => `data: ${JSON.stringify({ html: renderLive(state), closed })}\n\n`;
  const push = () => {
    if (pushScheduled) return;
    pushScheduled = true;
    setImmediate(() => {
      pushScheduled = false;
      const message = update();
      for (const stream of streams) stream.write(message);
      if (closed) for (const stream of streams) stream.end();
    });
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && (path === '/certify' || path === '/')) {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(renderConsolePage(state));
    } else if (request.method === 'GET' && path === '/certify/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(update());
      if (closed) response.end();
      else {
        streams.add(response);
        request.once('close', () => streams.delete(response));
      }
    } else if (request.method === 'POST' && path === '/certify/finish') {
      request.resume();
      state.finishRequested = true;
      pressFinish();
      push();
      response.writeHead(303, { location: '/certify' });
      response.end();
    } else {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found: the console is at /certify\n');
    }
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { address, port } = server.address() as AddressInfo;

  return {
    url: `http://${address}:${port}/certify`,
    finish,
    events: (event) => {
      state.apply(event);
      push();
    },
    concluded: (verdict) => {
      state.verdict = verdict;
      closed = true;
      push();
    },
    close: async () => {
      // the last state reaches the open pages before the streams end (a push may still be
      // scheduled)
      closed = true;
      const last = update();
      for (const stream of streams) stream.end(last);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
  };
}
