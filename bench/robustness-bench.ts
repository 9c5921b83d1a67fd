/**
 * The two robustness lines of `npm run bench` (issue 13, point 4), against a platform child that reports its
 * memory (platform-memory-child.ts):
 * - a 10 MB telemetry body's effect on a concurrent small request: the latency of small telemetry posts sent one
 *   after another while the large one is in, against the same posts with nothing else going on (goal p99 < 50 ms);
 * - the resident memory a paused MQTT reader costs after 10,000 shared attribute updates sent to it (goal under
 *   50 MB above the reading before the updates).
 * Figures are printed, never asserted by a test.
 */
import { connect } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { request } from 'undici';
import { AdminClient } from '../src/admin-client';

export interface PlatformChild {
  httpUrl: string;
  mqttUrl: string;
  memory(): Promise<{ rss: number; heapUsed: number }>;
}

export const GOAL_SMALL_P99_MS = 50;
export const GOAL_PAUSED_READER_BYTES = 50 * 1024 * 1024;
const LARGE_BODY_BYTES = 10 * 1024 * 1024;
const UPDATES = 10_000;
const UPDATES_WITHIN_MS = 120_000;

function percentile(sorted: number[], fraction: number): number {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]
    : 0;
}

async function smallPosts(url: string, until: () => boolean, atMost: number): Promise<number[]> {
  const latencies: number[] = [];
  while (!until() && latencies.length < atMost) {
    const started = performance.now();
    const answer = await request(url, {
      method: 'POST',
      body: '{"n":1}',
      headers: { 'content-type': 'application/json' },
    });
    await answer.body.text();
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

async function deviceToken(
  admin: AdminClient,
  name: string,
): Promise<{ id: string; token: string }> {
  const record = await admin.createDevice(name);
  const credentials = (await admin.session.call('GET', `/api/device/${record.id}/credentials`))
    .json as { credentialsId: string };
  return { id: record.id, token: credentials.credentialsId };
}

export async function largeBodyEffect(
  platform: PlatformChild,
): Promise<{ p99: number; max: number; baselineP99: number; served: number; line: string }> {
  const admin = await AdminClient.login(platform.httpUrl, {
    username: 'tenant@thingsboard.org',
    password: 'tenant',
  });
  try {
    const large = await deviceToken(admin, 'bench-large-body');
    const small = await deviceToken(admin, 'bench-small-neighbour');
    const smallUrl = `${platform.httpUrl}/api/v1/${small.token}/telemetry`;
    const entry = (index: number) =>
      `{"ts":${1_700_000_000_000 + index},"values":{"t":${index}.5}}`;
    const count = Math.floor(LARGE_BODY_BYTES / entry(100_000).length);
    const body = `[${Array.from({ length: count }, (_, index) => entry(index)).join(',')}]`;
    const baseline = await smallPosts(smallUrl, () => false, 300);
    let done = false;
    const largePost = request(`${platform.httpUrl}/api/v1/${large.token}/telemetry`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    }).then(async (answer) => {
      await answer.body.text();
      done = true;
      return answer.statusCode;
    });
    const during = await smallPosts(smallUrl, () => done, 100_000);
    const status = await largePost;
    const p99 = percentile(during, 0.99);
    const baselineP99 = percentile(baseline, 0.99);
    const max = during[during.length - 1] ?? 0;
    return {
      p99,
      max,
      baselineP99,
      served: during.length,
      line: `      ${(body.length / 1048576).toFixed(1)} MB telemetry POST (${status}): ${during.length} small posts served meanwhile, p50 ${percentile(during, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms; alone p99 ${baselineP99.toFixed(1)} ms`,
    };
  } finally {
    await admin.close();
  }
}

export async function pausedReaderMemory(
  platform: PlatformChild,
): Promise<{ grownBytes: number; line: string }> {
  const admin = await AdminClient.login(platform.httpUrl, {
    username: 'tenant@thingsboard.org',
    password: 'tenant',
  });
  const url = new URL(platform.mqttUrl);
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  try {
    const device = await deviceToken(admin, 'bench-paused-reader');
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', resolve).once('error', reject),
    );
    socket.on('error', () => {});
    const write = (packet: mqttPacket.Packet) => socket.write(mqttPacket.generate(packet));
    write({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: 'bench-paused-reader',
      keepalive: 0,
      username: device.token,
    });
    write({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: 'v1/devices/me/attributes', qos: 1 }],
    });
    await new Promise((resolve) => socket.once('data', resolve)); // the CONNACK (and SUBACK) arrived
    socket.pause();
    const before = await platform.memory();
    const value = 'x'.repeat(200);
    let next = 0;
    const deadline = Date.now() + UPDATES_WITHIN_MS; // a busy machine reports how far it got instead of hanging
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < UPDATES && Date.now() < deadline) {
          next += 1;
          await admin.session.call(
            'POST',
            `/api/plugins/telemetry/DEVICE/${device.id}/SHARED_SCOPE`,
            { value, n: next },
          );
        }
      }),
    );
    const after = await platform.memory();
    const grownBytes = after.rss - before.rss;
    const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
    return {
      grownBytes,
      line: `      paused MQTT reader, ${next} of ${UPDATES} shared attribute updates of ${value.length + 20} bytes: RSS ${mib(before.rss)} -> ${mib(after.rss)} MiB, heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB`,
    };
  } finally {
    socket.destroy();
    await admin.close();
  }
}
