/**
 * c) MQTT QoS 1 throughput: the gateway driver → the reference platform ÷ the same client → a
 * minimal mqtt-packet sink that acknowledges everything (bench/mqtt-sink-child.ts), in alternating
 * rounds.
 */
import { isFailure } from '../simulators/device/mqtt-connection';
import { GATEWAY_TOPICS, MqttGateway } from '../simulators/gateway/mqtt-gateway';
import {
  positiveEnv,
  type ServerChild,
  startBaselineServer,
  startSimulate,
  stopServer,
} from './children';
import { processCpuSeconds, publishCpu } from './mqtt-publish-cpu';
import { onClientCpu } from './pinning';
import { alternatingRounds, median, ROUNDS, SLICES, type Measurement } from './rounds';

export const MQTT_WINDOW = positiveEnv('BENCH_MQTT_WINDOW', 100);
/** Publishes per round of the CPU line (after as many again of warm-up). */
export const MQTT_CPU_MESSAGES = positiveEnv('BENCH_MQTT_CPU_MESSAGES', 100_000);

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
 * this machine), for `seconds`. Counts success PUBACKs; latency is publish→PUBACK. With the
 * server's `pid`, also its CPU per answered publish over the same time.
 */
export async function mqttLoad(
  url: string,
  token: string,
  seconds: number,
  pid?: number,
): Promise<Measurement> {
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
    const cpuBefore = pid === undefined ? undefined : processCpuSeconds(pid);
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
    const cpuAfter = pid === undefined ? undefined : processCpuSeconds(pid);
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
      cpuMicros:
        cpuBefore === undefined || cpuAfter === undefined
          ? undefined
          : ((cpuAfter - cpuBefore) * 1e6) / Math.max(acknowledged + failures, 1),
    };
  } finally {
    await gateway.close();
  }
}

export interface MqttHeadroom {
  /** Throughput, mqtt.js driver: platform ÷ sink, per round, and their median. */
  ratio: number;
  ratios: number[];
  failures: number;
  lines: string[];
  /**
   * CPU per publish, bare client (mqtt-publish-cpu.ts), fixed message count: sink µs ÷ platform µs
   * per round (the same sense as the throughput ratio: 1 = the platform costs what the sink does).
   */
  cpu: { ratio: number; ratios: number[]; platform: number[]; sink: number[]; failures: number };
}

/**
 * The reference's MQTT QoS 1 headroom over the sink, two ways on the same two servers: throughput
 * with the mqtt.js driver in alternating rounds (each server's CPU per message read alongside),
 * then the servers' CPU per publish over a fixed count from a bare client, in alternating rounds.
 * The second holds on a busy machine, where a round's throughput is whatever CPU the scheduler gave.
 */
export async function mqttThroughputRatio(): Promise<MqttHeadroom> {
  const platform = await startSimulate('mqttUrl', true);
  const sink = await startBaselineServer('mqtt-packet sink', 'mqtt-sink-child.ts', 'mqttUrl');
  const token = platform.ready.gatewayToken;
  try {
    if (typeof token !== 'string' || !token)
      throw new Error('iotc simulate --json gave no gatewayToken');
    return await onClientCpu(() => measureHeadroom(platform, sink, token));
  } finally {
    await Promise.all([stopServer(platform), stopServer(sink)]);
  }
}

/** The two ways of mqttThroughputRatio, with the servers started (and the client placed). */
async function measureHeadroom(
  platform: ServerChild,
  sink: ServerChild,
  token: string,
): Promise<MqttHeadroom> {
  const throughput = await alternatingRounds(
    'msg/s',
    {
      platform: (seconds) => mqttLoad(platform.url, token, seconds, platform.process.pid),
      bare: (seconds) => mqttLoad(sink.url, 'bench-token', seconds, sink.process.pid),
    },
    { platform: 'platform', bare: 'sink' },
    true,
  );
  const cpu = { ratios: [] as number[], platform: [] as number[], sink: [] as number[] };
  let cpuFailures = 0;
  const lines = [
    ...throughput.lines,
    'round   platform CPU/publish  sink CPU/publish  sink/platform',
  ];
  const servers = {
    platform: { server: platform, token },
    sink: { server: sink, token: 'bench' },
  };
  // each side warmed up (MQTT_CPU_MESSAGES publishes), then MQTT_CPU_MESSAGES measured in SLICES
  // interleaved slices (A B B A ...), each on a fresh connection whose first 10 windows are not
  // counted; a side's CPU per publish is its CPU over all its slices ÷ their publishes
  const slice = Math.max(MQTT_WINDOW, Math.round(MQTT_CPU_MESSAGES / SLICES));
  const measure = (side: 'platform' | 'sink', messages: number, warmup: number) => {
    const { server, token: user } = servers[side];
    return publishCpu({
      url: server.url,
      token: user,
      pid: server.process.pid as number,
      topic: GATEWAY_TOPICS.telemetry,
      payload: MQTT_TELEMETRY,
      messages,
      warmup,
      window: MQTT_WINDOW,
    });
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? (['platform', 'sink'] as const) : (['sink', 'platform'] as const);
    for (const side of order) await measure(side, MQTT_WINDOW, MQTT_CPU_MESSAGES);
    const spent = { platform: { micros: 0, messages: 0 }, sink: { micros: 0, messages: 0 } };
    for (let part = 0; part < SLICES; part++) {
      for (const side of part % 2 ? [...order].reverse() : order) {
        const measured = await measure(side, slice, 10 * MQTT_WINDOW);
        spent[side].micros += measured.cpuMicros * slice;
        spent[side].messages += slice;
        cpuFailures += measured.failures;
      }
    }
    for (const side of order) cpu[side].push(spent[side].micros / spent[side].messages);
    const ratio = cpu.sink[round - 1] / cpu.platform[round - 1];
    cpu.ratios.push(ratio);
    lines.push(
      `${String(round).padEnd(7)} ${`${cpu.platform[round - 1].toFixed(2)} µs`.padStart(20)} ${`${cpu.sink[round - 1].toFixed(2)} µs`.padStart(17)} ${ratio.toFixed(2).padStart(14)}`,
    );
  }
  return {
    ratio: throughput.ratio,
    ratios: throughput.ratios,
    failures: throughput.failures,
    lines,
    cpu: { ...cpu, ratio: median(cpu.ratios), failures: cpuFailures },
  };
}
