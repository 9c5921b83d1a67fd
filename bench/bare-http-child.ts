/**
 * The bench's baseline: a bare node:http server that reads the request body and answers 200 with an
 * empty body, as the platform's telemetry endpoint does. Runs in its own process (started by
 * bench/run.ts), listens on a free loopback port and prints one JSON line `{"httpUrl": ...}` when
 * ready. Stops on SIGTERM/SIGINT or when its parent goes away (stdin closes), so it never outlives
 * the bench.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopWithParent } from './child-lifecycle';

const server = createServer((request, response) => {
  request.on('data', () => {});
  request.on('end', () => {
    response.statusCode = 200;
    response.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ httpUrl: `http://127.0.0.1:${port}` })}\n`);
});

function stop(): void {
  server.close();
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 200).unref();
}
stopWithParent(stop);
