/**
 * The round trip to each interface of a remote target, measured at the start of a run
 * (steps/hooks.ts BeforeAll): timing.ts derives every bounded wait, quiet window and poll interval
 * from it, and the report prints it. A staging platform across a network answers every request one
 * round trip later than a local one and delivers every effect half a round trip later; waits fixed
 * for a loopback target FAIL it for that alone.
 *
 * What is timed is an answer of the target on a connection that already stands (the second and
 * later requests of an HTTP keep-alive connection; an MQTT CONNECT to its CONNACK), and separately
 * the connect itself: a kernel answers a TCP connect in one round trip of the network, a proxy or
 * load balancer in front of the target answers it at once and delays the data instead, so an MQTT
 * sample is the larger of the two. Each interface gets a few samples and its figure is the
 * smallest: a busy target or a starved harness only adds to a round trip (the workers of a parallel
 * run start together on a loaded machine: their medians were 3 to 5 s where the network's was 100
 * ms), and no sample can be shorter than the network's own round trip. Nothing here changes the
 * target: the HTTP probe is a HEAD of the base URL, the MQTT probe a CONNECT without credentials
 * (refused: ThingsBoard answers it after its credential lookup, MqttTransportHandler.java:1080-1104
 * under /root/tbw/tb).
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import mqttPacket from 'mqtt-packet';
import type { Target } from '../../src/target';

/**
 * The figure of one interface: its round trip (the smallest sample) or why it could not be
 * measured.
 */
export interface InterfaceRoundTrip {
  url: string;
  /** The smallest sample, ms. */
  rttMs?: number;
  samplesMs: number[];
  error?: string;
}

/** Samples per interface, after one warm-up exchange (which opens the connection). */
const SAMPLES = 5;

/** The interfaces of the target that it serves, by the name the report uses. */
export function interfacesOf(target: Target): Record<string, string> {
  const out: Record<string, string> = { http: target.httpUrl, admin: target.adminUrl };
  if (target.mqttUrl ?? target.mqttsUrl) out.mqtt = (target.mqttUrl ?? target.mqttsUrl)!;
  if (target.analytics) out.analytics = target.analytics.reportUrl;
  return out;
}

/**
 * Measures every interface of `target` at once; never throws (an interface it cannot reach says
 * why).
 */
export async function measureRoundTrips(
  target: Target,
  timeoutMs: number,
  samples = SAMPLES,
): Promise<Record<string, InterfaceRoundTrip>> {
  const entries = await Promise.all(
    Object.entries(interfacesOf(target)).map(async ([name, url]) => {
      const protocol = new URL(url).protocol;
      const measure = protocol.startsWith('mqtt') ? mqttSamples : httpSamples;
      try {
        const samplesMs = await measure(url, target, timeoutMs, samples);
        return [
          name,
          {
            url: redactUrl(url),
            rttMs: Math.round(Math.min(...samplesMs)),
            samplesMs: samplesMs.map(Math.round),
          },
        ] as const;
      } catch (error) {
        return [
          name,
          { url: redactUrl(url), samplesMs: [], error: (error as Error).message },
        ] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

/** Origin and path only: the report must not carry a token a profile put into a URL. */
function redactUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/**
 * HEADs of the interface's base URL on one keep-alive connection: the first opens it, the rest are
 * timed.
 */
export async function httpSamples(
  url: string,
  target: Target,
  timeoutMs: number,
  count: number,
): Promise<number[]> {
  const agent = new Agent({
    connections: 1,
    connect: {
      timeout: timeoutMs,
      ca: target.tls.ca,
      rejectUnauthorized: !target.tls.insecureSkipVerify,
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  try {
    const once = async (): Promise<number> => {
      const started = performance.now();
      const answer = await request(url, { method: 'HEAD', dispatcher: agent });
      await answer.body.dump();
      return performance.now() - started;
    };
    await once(); // opens the connection (a connect, a TLS handshake): not a sample of one round trip
    const samples: number[] = [];
    for (let i = 0; i < count; i++) samples.push(await once());
    return samples;
  } finally {
    await agent.close();
  }
}

/**
 * MQTT CONNECTs without credentials on fresh connections: each sample is max(connect, CONNECT to
 * first answer).
 */
async function mqttSamples(
  url: string,
  target: Target,
  timeoutMs: number,
  count: number,
): Promise<number[]> {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'mqtts:';
  const port = Number(parsed.port) || (secure ? 8883 : 1883);
  const connectBytes = mqttPacket.generate({
    cmd: 'connect',
    protocolId: 'MQTT',
    protocolVersion: 4,
    clean: true,
    keepalive: 10,
    clientId: `iotc-rtt-probe-${process.pid}`,
  });
  const samples: number[] = [];
  for (let i = 0; i <= count; i++) {
    const sample = await new Promise<number>((resolve, reject) => {
      const started = performance.now();
      let connectedAt = 0;
      const socket: Socket = secure
        ? tlsConnect({
            host: parsed.hostname,
            port,
            ca: target.tls.ca,
            rejectUnauthorized: !target.tls.insecureSkipVerify,
            servername: parsed.hostname,
          })
        : tcpConnect({ host: parsed.hostname, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer to an MQTT CONNECT in ${timeoutMs} ms`));
      }, timeoutMs);
      const answered = (): void => {
        clearTimeout(timer);
        const now = performance.now();
        socket.destroy();
        resolve(Math.max(connectedAt - started, now - connectedAt));
      };
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connectedAt = performance.now();
        socket.write(connectBytes);
      });
      socket.once('data', answered);
      socket.once('end', answered); // a target that closes instead of answering has answered too
      socket.once('error', (error) => {
        clearTimeout(timer);
        if (connectedAt) answered();
        else reject(error);
      });
    });
    if (i > 0) samples.push(sample); // the first one warms the path (DNS, the target's accept loop)
  }
  return samples;
}

/**
 * Adds the samples of `again` to `known` (same interfaces) and lowers each figure to the smallest
 * sample seen: the figures of a run only come down towards the network's own round trip as the
 * harness and the target settle.
 */
export function mergeRoundTrips(
  known: Record<string, InterfaceRoundTrip>,
  again: Record<string, InterfaceRoundTrip>,
): void {
  for (const [name, measured] of Object.entries(again)) {
    const entry = known[name];
    if (!entry || measured.rttMs === undefined) continue;
    entry.samplesMs.push(...measured.samplesMs);
    entry.rttMs = Math.min(entry.rttMs ?? Number.POSITIVE_INFINITY, measured.rttMs);
    delete entry.error;
  }
}
