/**
 * The embedded target's REST connector: a gateway device on the embedded platform, an external-API
 * simulator (HTTP and HTTPS) for its outgoing calls, and the reference connector started from the
 * conformance rest.json (embedded-rest.json). The file is materialized into a temporary folder as a
 * real deployment would have it: the certificate and key it names are written there, and the
 * external API's placeholder addresses (http://127.0.0.1:5001, https://127.0.0.1:5443) become the
 * simulator's. Steps read that file. The connector runs as in a container: server.port is left to
 * its default and published at a free host port, and the destinations its defaults call
 * (EMBEDDED_ROUTES) are delivered to the simulator with the URL and Host as built.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../admin-client';
import { startConnector } from '../../simulators/connector';
import { ExternalApiSimulator } from '../../simulators/external-api';
import type { TlsMaterial } from '../../lib/tls/certificate';
import type { ConnectorQuirksMode } from '../../simulators/connector';
import { withRunNames } from '../../lib/gateway-rest';
import { EMBEDDED_ROUTES, embeddedRestConfig, embeddedRestSparseConfig } from './effective-rest';
import type { ConnectorTarget } from './connector-target';

// not carrying the run prefix: it belongs to the embedded target, not to a run, and runs never
// clean it up
const EMBEDDED_GATEWAY_NAME = 'Embedded REST connector gateway';
// the second connector (embedded-rest-sparse.json) has a gateway device of its own
const EMBEDDED_SPARSE_GATEWAY_NAME = 'Embedded REST connector gateway (sparse)';

export async function startEmbeddedConnector(options: {
  httpUrl: string;
  mqttUrl: string;
  tenantAdmin: { username: string; password: string };
  quirks?: ConnectorQuirksMode;
  /** The run's id: the file's constant device names carry it (withRunNames). */
  runId?: string;
  namePrefix?: string;
  /** The connector's server certificate, written where rest.json names it. */
  serverTls: TlsMaterial;
  /** The external API simulator's certificate. */
  externalTls: TlsMaterial;
}): Promise<{ connector: ConnectorTarget; close(): Promise<void> }> {
  const admin = await AdminClient.login(options.httpUrl, options.tenantAdmin);
  let gatewayToken: string;
  let sparseGatewayToken: string;
  try {
    const gateway = await admin.createDevice(EMBEDDED_GATEWAY_NAME, {
      additionalInfo: { gateway: true },
    });
    gatewayToken = await admin.getDeviceCredentials(gateway.id);
    const sparseGateway = await admin.createDevice(EMBEDDED_SPARSE_GATEWAY_NAME, {
      additionalInfo: { gateway: true },
    });
    sparseGatewayToken = await admin.getDeviceCredentials(sparseGateway.id);
  } finally {
    await admin.close();
  }
  const folder = await mkdtemp(join(tmpdir(), 'iotc-connector-'));
  const { serverTls } = options;
  const external = await ExternalApiSimulator.start({ tls: options.externalTls });
  try {
    const configFile = join(folder, 'rest.json');
    // the file iotc gateway-config writes for that gateway when the quirks mode needs it
    // (effective-rest.ts, which the run's check of exercised defaults reads too)
    const config = embeddedRestConfig(options.quirks) as {
      server: { port?: number; security?: { cert: string; key: string } };
    };
    if (config.server.security) {
      config.server.security = {
        cert: join(folder, config.server.security.cert),
        key: join(folder, config.server.security.key),
      };
      await writeFile(config.server.security.cert, serverTls.cert);
      await writeFile(config.server.security.key, serverTls.key, { mode: 0o600 });
    }
    const named = JSON.stringify(config, null, 2);
    const text = (options.runId ? withRunNames(named, options.runId, options.namePrefix) : named)
      .replaceAll('127.0.0.1:5001', new URL(external.url).host)
      .replaceAll('127.0.0.1:5443', new URL(external.httpsUrl ?? external.url).host);
    await writeFile(configFile, text);
    // the connector runs as in a container of its own: the file leaves server.port to its default,
    // which is published at a free host port (docker -p 0:5000), and the default destinations of
    // its outgoing calls reach the external API (EMBEDDED_ROUTES)
    const externalHost = new URL(external.url).host;
    const routes = Object.fromEntries(EMBEDDED_ROUTES.map((to) => [to, externalHost]));
    const connector = await startConnector({
      config: configFile,
      mqttUrl: options.mqttUrl,
      gatewayToken,
      quirks: options.quirks,
      publishPorts: true,
      routes,
    });
    // the second connector, from the file without the optional sections, in a container of its own
    // too
    const sparseFile = join(folder, 'rest-sparse.json');
    await writeFile(sparseFile, JSON.stringify(embeddedRestSparseConfig(options.quirks), null, 2));
    let sparse: Awaited<ReturnType<typeof startConnector>>;
    try {
      sparse = await startConnector({
        config: sparseFile,
        mqttUrl: options.mqttUrl,
        gatewayToken: sparseGatewayToken,
        quirks: options.quirks,
        publishPorts: true,
        routes,
      });
    } catch (error) {
      await connector.close();
      throw error;
    }
    return {
      connector: {
        url: connector.url,
        configFile,
        publishedPorts: connector.publishedPorts ?? {},
        routedDestinations: [...EMBEDDED_ROUTES],
        externalApiUrl: external.url,
        sparse: { url: sparse.url, configFile: sparseFile },
        tls: { ca: connector.certificate, insecureSkipVerify: false },
      },
      close: async () => {
        await sparse.close();
        await connector.close();
        await external.close();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await external.close();
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
