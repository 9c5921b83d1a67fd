/**
 * c) MQTT QoS 1 throughput: the gateway driver → the reference platform ÷ the same client → a
 * minimal mqtt-packet sink that acknowledges everything (bench/mqtt-sink-child.ts), in alternating
 * rounds.
 */
import { join } from 'node:path';
import { isFailure } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, MqttGateway } from '../simulators/gateway/mqtt-gateway';
import { positiveEnv, ROOT, startServer, startSimulate, stopServer } from './children';
import { alternatingRounds, type Measurement } from './rounds';

export const MQTT_WINDOW = positiveEnv('BENCH_MQTT_WINDOW', 100);

/**
 * One device's telemetry as a gateway sends it (v1/gateway/telemetry), without ts: stored at server
 * time.
 */
const MQTT_DEVICE = 'Bench Device';
const MQTT_TELEMETRY = JSON.stringify({
  [MQTT_DEVICE]: [{ values: { temperature: 21.5, humidity: 48, active: true, status: 'ok' } }],
});

/**
 * The gateway driver (MqttGateway on mqtt.js, MQTT 5) publishing one device's telemetry at QoS 1
 * with a fixed window of MQTT_WINDOW unacknowledged publishes (as toolchain-notes.md §4 measured
 * this machine), for `seconds`. Counts success PUBACKs; latency is publish→PUBACK.
 */
export async function mqttLoad(url: string, token: string, seconds: number): Promise<Measurement> {
  const gateway = await MqttGateway.connect({
    url,
    token,
    protocolVersion: 5,
    qos: 1,
    subscribe: false,
  });
  try {
    const connected = await gateway.connectDevice(MQTT_DEVICE);
    if (isFailure(connected))
      throw new Error(
        `gateway connect of the bench device failed: ${connected.result} ${connected.reasonCode ?? ''}`,
      );
    const latencies: number[] = [];
    let acknowledged = 0;
    let failures = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    const publisher = async () => {
      while (performance.now() < end) {
        const outcome = await gateway.publish(GATEWAY_TOPICS.telemetry, { raw: MQTT_TELEMETRY }, 1);
        if (isFailure(outcome)) failures++;
        else acknowledged++;
        if (latencies.length < 200_000) latencies.push(outcome.elapsedMs);
      }
    };
    await Promise.all(Array.from({ length: MQTT_WINDOW }, publisher));
    const elapsedS = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(
        (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10,
      ) / 10;
    return {
      perSecond: acknowledged / elapsedS,
      p50: at(0.5),
      p99: at(0.99),
      failures,
      total: acknowledged + failures,
    };
  } finally {
    await gateway.close();
  }
}

export async function mqttThroughputRatio(): Promise<{
  ratio: number;
  ratios: number[];
  failures: number;
  lines: string[];
}> {
  const platform = await startSimulate('mqttUrl');
  const sink = await startServer(
    'mqtt-packet sink',
    ['-r', 'ts-node/register/transpile-only', join(ROOT, 'bench', 'mqtt-sink-child.ts')],
    'mqttUrl',
  );
  const token = platform.ready.gatewayToken;
  try {
    if (typeof token !== 'string' || !token)
      throw new Error('iotc simulate --json gave no gatewayToken');
    return await alternatingRounds('msg/s', {
      platform: (seconds) => mqttLoad(platform.url, token, seconds),
      bare: (seconds) => mqttLoad(sink.url, 'bench-token', seconds),
    });
  } finally {
    await Promise.all([stopServer(platform), stopServer(sink)]);
  }
}
