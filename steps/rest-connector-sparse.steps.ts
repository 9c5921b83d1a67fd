/**
 * The second connector of the target's gateway (profile connector.sparse): it runs the conformance
 * file that leaves every optional section of rest.json out (src/target/embedded-rest-sparse.json:
 * server.SSL false and no server.security, requestsMapping without attributeRequests,
 * attributeUpdates and serverSideRpc). Its endpoint is anonymous; the client reaches it over plain
 * HTTP. The other connector steps (answers, platform, external API) apply to it unchanged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { AfterAll, Given, Then, When } from './support/cucumber';
import { request } from 'undici';
import { ConnectorClient } from '../simulators/connector-client';
import type { IotcWorld } from './world';
import { connectorTarget } from './support/connector';
import { names, remember } from './support/connector-calls';
import { recordExchange } from './support/evidence';

let shared: { url: string; client: ConnectorClient } | undefined;

function sparse(): { url: string; configFile: string } {
  const found = connectorTarget().sparse;
  if (!found) throw new Error('the target profile names no connector.sparse');
  return found;
}

function sparseClient(): ConnectorClient {
  const { url } = sparse();
  if (shared?.url !== url) {
    void shared?.client.close();
    shared = { url, client: new ConnectorClient(url, { recorder: recordExchange }) };
  }
  return shared.client;
}

AfterAll(async () => {
  const current = shared;
  shared = undefined;
  await current?.client.close();
});

Given(
  'the target runs a second connector from the file without the optional sections',
  function (this: IotcWorld) {
    if (!connectorTarget().sparse) {
      this.log(
        'skipped: the target profile names no connector.sparse (the second connector, src/target/embedded-rest-sparse.json)',
      );
      return 'skipped';
    }
    const file = JSON.parse(readFileSync(sparse().configFile, 'utf8')) as {
      server?: { SSL?: boolean; security?: unknown };
      requestsMapping?: Record<string, unknown>;
    };
    // what the scenarios rely on: the sections really are left out of the file the second connector
    // runs
    assert.equal(file.server?.SSL, false, 'the second connector file does not switch SSL off');
    assert.equal(
      file.server?.security,
      undefined,
      'the second connector file names server.security',
    );
    assert.deepEqual(
      Object.keys(file.requestsMapping ?? {}),
      [],
      'the second connector file names arrays of requestsMapping',
    );
    return undefined;
  },
);

When(
  /^the client sends (GET|POST) "([^"]*)" to the second connector with JSON:$/,
  async function (this: IotcWorld, method: string, path: string, body: string) {
    const started = Date.now();
    remember(
      this,
      await sparseClient().send({
        method,
        path: names(this, path),
        body: { raw: names(this, body), contentType: 'application/json' },
        timeoutMs: this.run.target.timeouts.requestMs,
      }),
    );
    this.connectorWindow = { start: started, end: Date.now() };
  },
);

Then(
  'the second connector answers plain HTTP, and a TLS handshake on its port fails',
  async function (this: IotcWorld) {
    const url = new URL(sparse().url);
    assert.equal(url.protocol, 'http:', `the second connector's URL ${url} is not http`);
    // positive control: an HTTP answer (405: its one endpoint takes POST only)
    const status = await request(`http://${url.host}/sparse`, {
      method: 'GET',
      headersTimeout: this.run.target.timeouts.requestMs,
      bodyTimeout: this.run.target.timeouts.requestMs,
    }).then(async (response) => {
      await response.body.dump();
      return response.statusCode;
    });
    assert.equal(status, 405, `GET /sparse over plain HTTP was answered ${status}, not 405`);
    const handshake = await new Promise<string>((resolve) => {
      const socket = tlsConnect({
        host: url.hostname,
        port: Number(url.port),
        rejectUnauthorized: false,
      });
      socket.setTimeout(this.run.target.timeouts.requestMs, () => {
        socket.destroy();
        resolve('no handshake within the request timeout');
      });
      socket.once('secureConnect', () => {
        socket.end();
        resolve('completed');
      });
      socket.once('error', (error) => resolve(`failed: ${error.message}`));
    });
    assert.notEqual(handshake, 'completed', 'a TLS handshake on the plain HTTP port completed');
  },
);
