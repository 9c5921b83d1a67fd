/**
 * `iotc simulate`: the reference platform as a standalone server, for device vendors and for runs
 * against a separate process. Prints its URLs, the demo credentials and a demo device token; stops
 * cleanly on SIGINT/SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform } from '../../simulators/platform';
import { formatTraffic } from '../../simulators/platform/traffic';
import type { SimulateMode } from './simulate-modes';
import { generateSelfSignedCertificate } from '../../lib/tls/certificate';
import { keptCertificate } from '../../lib/tls/persistent-certificate';
import { DEFAULT_CONNECT_TIMEOUT_MS } from '../../simulators/platform/mqtt/liveness';
import type { Capability } from '../target';
import { CAPABILITIES } from '../../schemas';

/**
 * The capabilities a target profile of this reference may declare (the --json line gives them to
 * programs that write one): all but the analytics and the REST connector, which it does not serve;
 * `robustness` included, as the embedded profile declares it.
 */
const SIMULATE_CAPABILITIES: readonly Capability[] = CAPABILITIES.filter(
  (capability) => capability !== 'analytics' && capability !== 'rest-connector',
);

export interface SimulateOptions {
  host: string;
  httpPort: number;
  /**
   * Also serve HTTPS with a generated self-signed certificate (written to a file to trust as the
   * CA).
   */
  httpsPort?: number;
  mqttPort: number;
  /** Also serve MQTT over TLS with the same generated certificate. */
  mqttsPort?: number;
  maxDevices?: number;
  claimDurationMs?: number;
  /**
   * How long a new MQTT connection may wait before its CONNECT (the platform's default when
   * absent).
   */
  mqttConnectTimeoutMs?: number;
  /**
   * `spec` (default): docs/reference/interfaces.md, ThingsBoard's behaviour where it is silent.
   * `thingsboard-4.3`: ThingsBoard 4.3's known deviations too (simulators/platform/quirks.ts), so
   * firmware that works here works on ThingsBoard.
   */
  mode: SimulateMode;
  /**
   * Keep the generated certificate here (tls/ca.pem and its key) and reuse it at the next start, so
   * that a profile's tls.caFile stays valid across restarts; without it a new certificate is made
   * at every start.
   */
  stateDir?: string;
  /** One JSON line for programs instead of the text for people. */
  json: boolean;
  /**
   * Print a target profile of this process on stdout (the text for people goes to stderr): with it
   * a run is CONFORMANT. HTTPS and MQTT over TLS are served on free ports when their ports are not
   * given, so that the scenarios needing them run too.
   */
  printProfile?: boolean;
  /**
   * A line per HTTP exchange and MQTT packet on stderr (default: on in a terminal, off with
   * --json).
   */
  log?: boolean;
}

/**
 * How long the printed profile's scenarios wait for an effect, and the claim window they wait out
 * (≤ 10 × that).
 */
const PROFILE_EVENTUALLY_MS = 5000;
const PROFILE_CLAIM_DURATION_MS = 3000;

export async function simulate(given: SimulateOptions): Promise<void> {
  const options: SimulateOptions = given.printProfile
    ? {
        ...given,
        httpsPort: given.httpsPort ?? 0,
        mqttsPort: given.mqttsPort ?? 0,
        claimDurationMs: given.claimDurationMs ?? PROFILE_CLAIM_DURATION_MS,
      }
    : given;
  const wantsTls = options.httpsPort !== undefined || options.mqttsPort !== undefined;
  const hosts = ['localhost', options.host];
  let tls: { cert: string; key: string } | undefined;
  let caFile: string | undefined;
  let certificateDir: string | undefined; // a temporary one, removed at stop
  if (wantsTls && options.stateDir) {
    const kept = await keptCertificate(options.stateDir, hosts);
    tls = { cert: kept.cert, key: kept.key };
    caFile = kept.caFile;
  } else if (wantsTls) {
    tls = await generateSelfSignedCertificate(hosts);
    certificateDir = mkdtempSync(join(tmpdir(), 'iotc-ca-'));
    caFile = join(certificateDir, 'ca.pem');
    writeFileSync(caFile, tls.cert);
  }
  const platform = await startPlatform({
    host: options.host,
    httpPort: options.httpPort,
    httpsPort: options.httpsPort,
    mqttPort: options.mqttPort,
    mqttTlsPort: options.mqttsPort,
    maxDevices: options.maxDevices,
    tls,
    claimDurationMs: options.claimDurationMs,
    mqttConnectTimeoutMs: options.mqttConnectTimeoutMs,
    quirks: options.mode === 'spec' ? undefined : options.mode,
    traffic:
      (options.log ?? (process.stdout.isTTY && !options.json))
        ? (event) => process.stderr.write(`${formatTraffic(event)}\n`)
        : undefined,
  });
  if (options.printProfile) {
    const users = Object.fromEntries(
      platform.demo.users.map((user: { username: string; password: string; authority: string }) => [
        user.authority,
        { username: user.username, password: user.password },
      ]),
    );
    const profile = {
      name: 'iotc-simulate',
      description: `iotc simulate --mode ${options.mode} (its demo users; the profile iotc simulate --print-profile wrote)`,
      ...(options.mode === 'spec' ? {} : { deviationsFrom: options.mode }),
      platform: {
        http: platform.httpUrl,
        ...(platform.httpsUrl ? { https: platform.httpsUrl } : {}),
        mqtt: platform.mqttUrl,
        ...(platform.mqttsUrl ? { mqtts: platform.mqttsUrl } : {}),
        ...(caFile ? { tls: { caFile } } : {}),
        tenantAdmin: users.TENANT_ADMIN,
        customerUser: users.CUSTOMER_USER,
        sysAdmin: users.SYS_ADMIN,
        claimDurationMs: options.claimDurationMs,
        mqttConnectTimeoutMs: options.mqttConnectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      },
      capabilities: SIMULATE_CAPABILITIES,
      namePrefix: 'iotc-',
      timeouts: { eventuallyMs: PROFILE_EVENTUALLY_MS },
    };
    process.stdout.write(`${JSON.stringify(profile, null, 2)}\n`);
  }
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        httpUrl: platform.httpUrl,
        httpsUrl: platform.httpsUrl,
        mqttUrl: platform.mqttUrl,
        mqttsUrl: platform.mqttsUrl,
        caFile,
        adminUrl: platform.httpUrl,
        deviceName: platform.demo.deviceName,
        deviceToken: platform.demo.deviceToken,
        gatewayName: platform.demo.gatewayName,
        gatewayToken: platform.demo.gatewayToken,
        users: platform.demo.users,
        mode: options.mode,
        capabilities: SIMULATE_CAPABILITIES,
        mqttConnectTimeoutMs: options.mqttConnectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      })}\n`,
    );
  } else {
    const lines = [
      `iotc reference platform is running (mode ${options.mode})`,
      `  HTTP device API   ${platform.httpUrl}/api/v1/{access_token}/...`,
      ...(platform.httpsUrl
        ? [`  HTTPS             ${platform.httpsUrl} (self-signed; trust the CA file ${caFile})`]
        : []),
      `  MQTT              ${platform.mqttUrl} (device topics v1/devices/me/..., gateway topics v1/gateway/...; access token as user name)`,
      ...(platform.mqttsUrl
        ? [`  MQTT over TLS     ${platform.mqttsUrl} (self-signed; trust the CA file ${caFile})`]
        : []),
      `  admin REST API    ${platform.httpUrl}/api (login: POST ${platform.httpUrl}/api/auth/login)`,
      `  demo users        ${platform.demo.users.map((user: { username: string; password: string; authority: string }) => `${user.username} / ${user.password} (${user.authority})`).join('\n                    ')}`,
      `  demo device       "${platform.demo.deviceName}", access token ${platform.demo.deviceToken}`,
      `  demo gateway      "${platform.demo.gatewayName}", access token ${platform.demo.gatewayToken}`,
      `  try               curl -X POST -H 'Content-Type: application/json' -d '{"temperature":21.5}' ${platform.httpUrl}/api/v1/${platform.demo.deviceToken}/telemetry`,
      `  try MQTT          mosquitto_pub -h ${hostOf(platform.mqttUrl)} -p ${portOf(platform.mqttUrl)} -u ${platform.demo.gatewayToken} -t v1/gateway/connect -m '{"device":"Sensor A"}'`,
      `  this page         ${platform.httpUrl}/ (URLs, credentials and examples in a browser)`,
      'Stop with Ctrl-C.',
    ];
    // with --print-profile stdout is the profile: the text for people goes to stderr
    (options.printProfile ? process.stderr : process.stdout).write(`${lines.join('\n')}\n`);
  }
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await platform.close();
  if (certificateDir) rmSync(certificateDir, { recursive: true, force: true });
}

function hostOf(url: string | undefined): string {
  return url ? new URL(url).hostname.replace(/^\[|\]$/g, '') : '';
}

function portOf(url: string | undefined): string {
  return url ? new URL(url).port : '';
}
