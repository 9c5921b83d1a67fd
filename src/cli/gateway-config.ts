/**
 * `iotc gateway-config`: the configuration folder of a ThingsBoard IoT Gateway 3.8.3 that runs the
 * conformance REST connector against a platform and the external-API simulator. It writes
 * - rest.json: the conformance file (src/target/embedded-rest.json) with the members 3.8.3 cannot
 *   run without (src/target/gateway-rest.ts; declared deviations of tb-gateway-3.8), the external
 *   API's addresses, the connector port, and absolute certificate paths (the gateway resolves
 *   relative ones against its own folder);
 * - connector-cert.pem / connector-key.pem: a generated certificate for the connector's HTTPS,
 *   which is also the CA file the harness trusts (IOTC_GW_REST_CA_FILE);
 * - tb_gateway.json: the platform's MQTT host and port, the gateway token, only the REST connector,
 *   remote shell, remote configuration and statistics off;
 * - iotc-rest.json: the harness's own copy of rest.json (the gateway writes an "id" into its file
 *   and reloads the connector whenever the file changes, so the harness must not read or touch the
 *   gateway's copy);
 * - rest-sparse.json / iotc-rest-sparse.json: the second conformance file
 *   (src/target/embedded-rest-sparse.json, every optional section left out) for a second REST
 *   connector of the same gateway, on its own port, over HTTP;
 * - extensions/rest/: iotc's custom converters for 3.8.3 in Python
 *   (src/target/gateway-extensions/rest/), the classes the conformance file's converter.extension
 *   names; 3.8.3 loads them only from its own extensions folder
 *   (/var/lib/thingsboard_gateway/extensions/rest, or thingsboard_gateway/extensions/rest of a
 *   source installation), never from the configuration folder, so they are copied there;
 * - logs.json is not written: the gateway's own default is used.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../lib/package-root';
import { EMBEDDED_REST_FILE, EMBEDDED_REST_SPARSE_FILE } from '../target/embedded-rest-file';
import { freePort } from '../target/free-port';
import { gatewayReadyRest, withRunNames } from '../../lib/gateway-rest';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';
import { IotcError } from '../../lib/errors';

export interface GatewayConfigOptions {
  out: string;
  mqttUrl: string;
  /**
   * Name of the environment variable holding the gateway's access token (never a command-line
   * argument).
   */
  gatewayTokenEnv: string;
  externalApiUrl: string;
  externalApiHttpsUrl?: string;
  /** Port of the connector's endpoints; 0 picks a free one now. */
  restPort: number;
  /**
   * Leave server.port out: the gateway listens on its default 5000 (the run exercises RC-SRV-02).
   */
  defaultRestPort?: boolean;
  /** Port of the second connector (rest-sparse.json); 0 picks a free one now. */
  restSparsePort: number;
  restHost: string;
  /**
   * The run the configuration is for: its constant device names carry this id (IOTC_RUN_ID of the
   * run).
   */
  runId: string;
}

/** iotc's custom converters in Python for 3.8.3, by connector type (rest/). */
const GATEWAY_EXTENSIONS = join(PACKAGE_ROOT, 'src', 'target', 'gateway-extensions');

/**
 * `iotc gateway-config` cannot write the gateway configuration (no gateway token in the
 * environment, a folder it cannot write).
 */
export class GatewayConfigError extends IotcError {
  readonly code = 'IOTC_GATEWAY_CONFIG';
}

export async function gatewayConfig(options: GatewayConfigOptions): Promise<number> {
  const token = process.env[options.gatewayTokenEnv];
  if (!token)
    throw new GatewayConfigError(
      `the environment variable ${options.gatewayTokenEnv} holds no gateway access token`,
    );
  const mqtt = new URL(options.mqttUrl);
  if (mqtt.protocol !== 'mqtt:')
    throw new GatewayConfigError(`--mqtt-url must be mqtt://host:port, not ${options.mqttUrl}`);
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });

  const config = gatewayReadyRest(
    JSON.parse(readFileSync(EMBEDDED_REST_FILE, 'utf8')) as Record<string, unknown>,
  );
  const server = config.server as {
    host?: string;
    port?: number;
    security?: Record<string, string>;
  };
  server.host = options.restHost;
  if (options.defaultRestPort) delete server.port;
  else server.port = options.restPort || (await freePort(options.restHost));
  const restPort = server.port ?? 5000;
  const tls = await generateSelfSignedCertificate(['localhost', options.restHost]);
  const cert = join(out, 'connector-cert.pem');
  const key = join(out, 'connector-key.pem');
  writeFileSync(cert, tls.cert);
  writeFileSync(key, tls.key, { mode: 0o600 });
  server.security = { cert, key };
  const external = new URL(options.externalApiUrl);
  const externalHttps = new URL(options.externalApiHttpsUrl ?? 'https://127.0.0.1:5443');
  const text = `${withRunNames(JSON.stringify(config, null, 2), options.runId)
    .replaceAll('127.0.0.1:5001', external.host)
    .replaceAll('127.0.0.1:5443', externalHttps.host)}\n`;
  cpSync(GATEWAY_EXTENSIONS, join(out, 'extensions'), {
    recursive: true,
    filter: (source) => basename(source) !== '__pycache__',
  });
  writeFileSync(join(out, 'rest.json'), text);
  writeFileSync(join(out, 'iotc-rest.json'), text);
  // the second connector: host added as for the first (3.8.3 has no default), SSL off, a port of
  // its own
  const sparse = gatewayReadyRest(
    JSON.parse(readFileSync(EMBEDDED_REST_SPARSE_FILE, 'utf8')) as Record<string, unknown>,
  );
  const sparseServer = sparse.server as { host?: string; port?: number };
  sparseServer.host = options.restHost;
  sparseServer.port = options.restSparsePort || (await freePort(options.restHost));
  const sparseText = `${JSON.stringify(sparse, null, 2)}\n`;
  writeFileSync(join(out, 'rest-sparse.json'), sparseText);
  writeFileSync(join(out, 'iotc-rest-sparse.json'), sparseText);
  writeFileSync(
    join(out, 'tb_gateway.json'),
    `${JSON.stringify(tbGatewayJson(mqtt, token), null, 2)}\n`,
    { mode: 0o600 },
  );
  const restUrl = `https://${options.restHost}:${restPort}`;
  process.stdout.write(
    [
      `wrote ${out}/tb_gateway.json, rest.json, iotc-rest.json, rest-sparse.json, iotc-rest-sparse.json, connector-cert.pem, connector-key.pem, extensions/`,
      `copy ${join(out, 'extensions', 'rest')}/*.py into the gateway's extensions/rest folder (custom converters)`,
      'for iotc run --target tb-gateway-3.8:',
      `  export IOTC_GW_REST_URL=${restUrl}`,
      `  export IOTC_GW_REST_CONFIG=${join(out, 'iotc-rest.json')}`,
      `  export IOTC_GW_REST_CA_FILE=${cert}`,
      `  export IOTC_GW_REST_SPARSE_URL=http://${options.restHost}:${sparseServer.port}`,
      `  export IOTC_GW_REST_SPARSE_CONFIG=${join(out, 'iotc-rest-sparse.json')}`,
      `  export IOTC_EXTERNAL_API_URL=${options.externalApiUrl}`,
      `  export IOTC_RUN_ID=${options.runId}`,
      ...(options.gatewayTokenEnv === 'IOTC_GW_TOKEN'
        ? ['  (IOTC_GW_TOKEN is set already)']
        : [`  export IOTC_GW_TOKEN="$${options.gatewayTokenEnv}"`]),
      '',
    ].join('\n'),
  );
  return 0;
}

/** tb_gateway.json of 3.8.3: its own defaults, except what a conformance run needs. */
function tbGatewayJson(mqtt: URL, token: string): Record<string, unknown> {
  return {
    thingsboard: {
      host: mqtt.hostname,
      port: Number(mqtt.port || 1883),
      remoteShell: false,
      remoteConfiguration: false,
      latencyDebugMode: false,
      statistics: {
        enable: false,
        statsSendPeriodInSeconds: 60,
        customStatsSendPeriodInSeconds: 3600,
      },
      deviceFiltering: { enable: false, filterFile: 'list.json' },
      maxPayloadSizeBytes: 8196,
      minPackSendDelayMS: 50,
      minPackSizeToSend: 500,
      checkConnectorsConfigurationInSeconds: 60,
      handleDeviceRenaming: true,
      security: { type: 'accessToken', accessToken: token },
      qos: 1,
      reportStrategy: { type: 'ON_RECEIVED' },
      checkingDeviceActivity: { checkDeviceInactivity: false },
    },
    storage: { type: 'memory', read_records_count: 100, max_records_count: 100000 },
    grpc: { enabled: false },
    connectors: [
      { type: 'rest', name: 'REST Connector', configuration: 'rest.json' },
      { type: 'rest', name: 'REST Connector sparse', configuration: 'rest-sparse.json' },
    ],
  };
}
