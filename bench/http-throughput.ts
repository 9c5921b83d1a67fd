/**
 * a) HTTP telemetry throughput of the reference platform ÷ a bare node:http server, and f) JSON
 * POSTs through the reference REST connector ÷ direct device-API posts to the same platform;
 * autocannon runs in the bench's process.
 */
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  positiveEnv,
  ROOT,
  startBaselineServer,
  startServer,
  startSimulate,
  stopServer,
} from './children';
import { processCpuSeconds } from './mqtt-publish-cpu';
import { onClientCpu } from './pinning';
import { alternatingRounds, type Measurement } from './rounds';

export const CONNECTIONS = positiveEnv('BENCH_CONNECTIONS', 10);

/** A small realistic telemetry body: a double, a long, a boolean and a string. */
const TELEMETRY_BODY = JSON.stringify({
  temperature: 21.5,
  humidity: 48,
  active: true,
  status: 'ok',
});

/**
 * `seconds` of autocannon's load on `url`; with the server's `pid`, also its CPU per answered request
 * over the same time.
 */
async function load(url: string, seconds: number, pid?: number): Promise<Measurement> {
  const cpuBefore = pid === undefined ? undefined : processCpuSeconds(pid);
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: TELEMETRY_BODY,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  const cpuAfter = pid === undefined ? undefined : processCpuSeconds(pid);
  const total = result.requests.total;
  return {
    perSecond: total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    total,
    cpuMicros:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / Math.max(total, 1),
  };
}

export async function httpThroughputRatio(): Promise<{
  ratio: number;
  ratios: number[];
  failures: number;
  lines: string[];
}> {
  const platform = await startSimulate('httpUrl', true);
  const bare = await startBaselineServer('bare node:http server', 'bare-http-child.ts', 'httpUrl');
  const token = platform.ready.deviceToken;
  try {
    if (typeof token !== 'string' || !token)
      throw new Error('iotc simulate --json gave no deviceToken');
    const platformUrl = `${platform.url}/api/v1/${encodeURIComponent(token)}/telemetry`;
    const bareUrl = `${bare.url}/api/v1/bench-token/telemetry`;
    return await onClientCpu(() =>
      alternatingRounds(
        'r/s',
        {
          platform: (seconds) => load(platformUrl, seconds, platform.process.pid),
          bare: (seconds) => load(bareUrl, seconds, bare.process.pid),
        },
        { platform: 'platform', bare: 'bare' },
        true,
      ),
    );
  } finally {
    await Promise.all([stopServer(platform), stopServer(bare)]);
  }
}

/**
 * f) JSON POSTs through the reference REST connector ÷ direct device-API telemetry posts, same
 * platform and body.
 */
export async function connectorThroughputRatio(): Promise<{
  ratio: number;
  ratios: number[];
  failures: number;
  lines: string[];
}> {
  const platform = await startSimulate();
  const servers = [platform];
  try {
    const { deviceToken, mqttUrl, gatewayToken } = platform.ready;
    if (
      typeof deviceToken !== 'string' ||
      typeof mqttUrl !== 'string' ||
      typeof gatewayToken !== 'string'
    )
      throw new Error('iotc simulate --json gave no deviceToken, mqttUrl or gatewayToken');
    const connector = await startServer(
      'reference REST connector',
      ['-r', 'ts-node/register/transpile-only', join(ROOT, 'bench', 'connector-child.ts')],
      'httpUrl',
      {
        IOTC_BENCH_MQTT_URL: mqttUrl,
        IOTC_BENCH_GATEWAY_TOKEN: gatewayToken,
      },
    );
    servers.push(connector);
    const directUrl = `${platform.url}/api/v1/${encodeURIComponent(deviceToken)}/telemetry`;
    return await alternatingRounds(
      'r/s',
      {
        platform: (seconds) => load(`${connector.url}/bench`, seconds),
        bare: (seconds) => load(directUrl, seconds),
      },
      { platform: 'connector', bare: 'direct' },
    );
  } finally {
    await Promise.all(servers.reverse().map(stopServer));
  }
}
