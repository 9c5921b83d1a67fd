/**
 * The connector's network (outgoing-call.ts NetworkRoutes): a call to a routed destination reaches
 * the address the route names, with the URL path and the Host header the connector built (as
 * /etc/hosts plus port forwarding); a destination without a route is reached as named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  absoluteUrl,
  callOut,
  destinationOf,
  OutgoingDispatchers,
} from '../../simulators/connector/outgoing-call';
import type { OutgoingCallConfig } from '../../simulators/connector/config-types';

const CALL: OutgoingCallConfig = {
  method: 'POST',
  sslVerify: true,
  headers: {},
  security: { type: 'anonymous' },
  timeoutSec: 2,
  tries: 1,
  allowRedirects: false,
  requestUrlExpression: '',
  valueExpression: '',
  bodyWithGet: false,
};

test('a routed destination is delivered to the route, the URL and Host kept', async () => {
  const seen: Pick<IncomingMessage, 'url' | 'headers'>[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url, headers: request.headers });
    request.resume();
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const to = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatchers = new OutgoingDispatchers({ 'sensor:80': to, '127.0.0.1:5001': to });
  try {
    assert.equal(destinationOf('sensor', '', 'http:'), 'sensor:80');
    const sensor = await callOut(
      { url: absoluteUrl('sensor/dev/data'), config: CALL },
      dispatchers,
    );
    const rpc = await callOut({ url: 'http://127.0.0.1:5001/dev', config: CALL }, dispatchers);
    assert.ok(sensor.ok && rpc.ok, JSON.stringify([sensor, rpc]));
    assert.deepEqual(
      seen.map((request) => [request.url, request.headers.host]),
      [
        ['/dev/data', 'sensor'],
        ['/dev', '127.0.0.1:5001'],
      ],
    );
  } finally {
    await dispatchers.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
