/**
 * `iotc run` against the reference platform as a separate process (`iotc simulate`), reached by URL through a
 * target profile, optionally through a fault proxy per interface (test/support/fault-proxy.ts): what a run against a
 * staging platform across a network does. Every child and proxy is stopped on every path.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf, spawnIotc, startSimulate, stop, type SimulateInfo } from './children';
import { FaultProxies, type FaultOptions, type FaultProxyStats } from './fault-proxy';

/** The capabilities `iotc simulate` serves that a run through a proxy may use (robustness abuses on purpose). */
const SIMULATE_PROFILE_CAPABILITIES = [
  'mqtt5',
  'tenant-limits',
  'provisioning',
  'claiming',
  'firmware',
  'client-rpc',
  'persistent-rpc',
  'api-keys',
  'jwt-settings',
];

export const TEST_CREDENTIALS_ENV = {
  IOTC_TEST_TENANT_USER: 'tenant@thingsboard.org',
  IOTC_TEST_TENANT_PASSWORD: 'tenant',
  IOTC_TEST_CUSTOMER_USER: 'customer@thingsboard.org',
  IOTC_TEST_CUSTOMER_PASSWORD: 'customer',
  IOTC_TEST_SYSADMIN_USER: 'sysadmin@thingsboard.org',
  IOTC_TEST_SYSADMIN_PASSWORD: 'sysadmin',
};

/** A target profile of `iotc simulate`'s URLs (credentials by ${env:...}), written to a new temporary folder. */
export function writeSimulateProfile(
  urls: SimulateInfo,
  options: { name?: string; claimDurationMs?: number; capabilities?: string[] } = {},
): { dir: string; profilePath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'iotc-remote-'));
  const profilePath = join(dir, 'simulate.json');
  writeFileSync(
    profilePath,
    JSON.stringify({
      name: options.name ?? 'simulate-child',
      platform: {
        http: urls.httpUrl,
        https: urls.httpsUrl,
        mqtt: urls.mqttUrl,
        mqtts: urls.mqttsUrl,
        tls: { caFile: urls.caFile },
        tenantAdmin: {
          username: '${env:IOTC_TEST_TENANT_USER}',
          password: '${env:IOTC_TEST_TENANT_PASSWORD}',
        },
        customerUser: {
          username: '${env:IOTC_TEST_CUSTOMER_USER}',
          password: '${env:IOTC_TEST_CUSTOMER_PASSWORD}',
        },
        sysAdmin: {
          username: '${env:IOTC_TEST_SYSADMIN_USER}',
          password: '${env:IOTC_TEST_SYSADMIN_PASSWORD}',
        },
        ...(options.claimDurationMs ? { claimDurationMs: options.claimDurationMs } : {}),
      },
      capabilities: options.capabilities ?? SIMULATE_PROFILE_CAPABILITIES,
      namePrefix: 'iotc-remote-',
    }),
  );
  return { dir, profilePath };
}

export interface RemoteRunReport {
  run?: { network?: Record<string, unknown> };
  requirements: Array<{
    id: string;
    interface: string;
    testable: boolean;
    verdict: string;
    scenarios?: Array<{ name: string; status?: string; error?: string }>;
  }>;
}

export interface RemoteRunResult {
  code: number | null;
  output: string;
  wallMs: number;
  report?: RemoteRunReport;
  reportsDir: string;
  proxyStats?: Record<string, FaultProxyStats>;
}

/**
 * Starts `iotc simulate`, puts a fault proxy in front of each of its ports when `faults` is given, and runs
 * `iotc run <runArgs>` against it. The wall time is that of `iotc run` alone.
 */
export async function runAgainstSimulate(options: {
  runArgs: string[];
  faults?: FaultOptions;
  /** Faults per interface, over `faults` (http, https, mqtt, mqtts). */
  faultsFor?: Record<string, FaultOptions>;
  claimDurationMs?: number;
}): Promise<RemoteRunResult> {
  const claimDurationMs = options.claimDurationMs ?? 3000;
  const { child, info } = await startSimulate([
    '--https-port',
    '0',
    '--mqtts-port',
    '0',
    '--claim-duration-ms',
    String(claimDurationMs),
  ]);
  let proxies: FaultProxies | undefined;
  try {
    let urls: SimulateInfo = info;
    if (options.faults || options.faultsFor) {
      const upstreams = {
        http: info.httpUrl,
        https: info.httpsUrl,
        mqtt: info.mqttUrl,
        mqtts: info.mqttsUrl,
      };
      proxies = await FaultProxies.start(upstreams, options.faults ?? {});
      for (const [name, faults] of Object.entries(options.faultsFor ?? {}))
        proxies.setFaults({ ...options.faults, ...faults }, [name]);
      urls = {
        httpUrl: proxies.url('http', info.httpUrl),
        httpsUrl: info.httpsUrl && proxies.url('https', info.httpsUrl),
        mqttUrl: info.mqttUrl && proxies.url('mqtt', info.mqttUrl),
        mqttsUrl: info.mqttsUrl && proxies.url('mqtts', info.mqttsUrl),
        caFile: info.caFile,
      };
    }
    const { dir, profilePath } = writeSimulateProfile(urls, { claimDurationMs });
    const reportsDir = join(dir, 'reports');
    const started = performance.now();
    const run = spawnIotc(
      ['run', '--target', profilePath, '--reports', reportsDir, ...options.runArgs],
      {
        env: { ...process.env, ...TEST_CREDENTIALS_ENV },
      },
    );
    const { code, output } = await exitOf(run);
    const wallMs = performance.now() - started;
    let report: RemoteRunReport | undefined;
    try {
      report = JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8'));
    } catch {
      report = undefined;
    }
    return { code, output, wallMs, report, reportsDir, proxyStats: proxies?.stats() };
  } finally {
    await proxies?.stop();
    await stop(child);
  }
}
