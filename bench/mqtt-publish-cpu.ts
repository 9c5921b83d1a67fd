/**
 * CPU per acknowledged QoS 1 publish of an MQTT server in a child process: the server's own CPU
 * (user + system, `/proc/<pid>/stat`) over a fixed number of PUBLISH → PUBACK, divided by that
 * number. A busy shared machine stretches a throughput round (the server waits for the CPU), but
 * not the CPU the server spends per message: this line holds where messages per second do not.
 *
 * The client is a bare socket (no mqtt.js), so what the server does is all that is measured: one
 * gateway session (MQTT 5), the bench's telemetry message (mqtt-throughput.ts MQTT_TELEMETRY) at
 * QoS 1, `window` publishes unacknowledged; whenever PUBACKs arrive as many new publishes leave in
 * one write, as mqtt.js's publishers do when each awaits its PUBACK (the server reads about a
 * window's publishes per chunk either way).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import mqttPacket, { type Packet } from 'mqtt-packet';

/**
 * CPU-seconds the process has used (Linux; undefined elsewhere): the sum of its threads' run time in
 * nanoseconds (`/proc/<pid>/task/<tid>/schedstat`, first field), else user + system from
 * `/proc/<pid>/stat` in clock ticks. The ticks are 10 ms: over a slice of 25,000 publishes at 8 µs
 * (0.2 s of CPU) one tick is 5 % of the reading, and a ratio of two such readings moved by up to 10
 * % from rounding alone; the run time is exact. (A thread that ends between two readings takes its
 * run time with it; the servers measured keep theirs for the whole line.)
 */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    let nanoseconds = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`))
      nanoseconds += Number(
        readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ', 1)[0],
      );
    if (Number.isFinite(nanoseconds) && nanoseconds > 0) return nanoseconds / 1e9;
  } catch {
    // no schedstat (or the process ended): the ticks below, or nothing
  }
  try {
    // fields after "(comm) ": state is the 1st, utime the 12th, stime the 13th (clock ticks, 100/s)
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

export interface PublishCpu {
  /** CPU-µs of the server per acknowledged publish. */
  cpuMicros: number;
  /** Acknowledged publishes per second of wall time while measured. */
  perSecond: number;
  /** Publishes answered with a failure reason code. */
  failures: number;
}

/**
 * Connects (MQTT 5, `token` as user name), publishes `warmup` then `messages` QoS 1 publishes of
 * `payload` on `topic` with `window` in flight, and reads the server's CPU around the second part.
 */
export async function publishCpu(options: {
  url: string;
  token: string;
  pid: number;
  topic: string;
  payload: string;
  messages: number;
  warmup: number;
  window: number;
}): Promise<PublishCpu> {
  const { hostname, port } = new URL(options.url);
  const socket = connect(Number(port), hostname);
  socket.setNoDelay(true);
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  const payload = Buffer.from(options.payload);
  let nextId = 1;
  const publish = (count: number) => {
    const packets: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      packets.push(
        mqttPacket.generate(
          {
            cmd: 'publish',
            topic: options.topic,
            payload,
            qos: 1,
            retain: false,
            dup: false,
            messageId: nextId,
          },
          { protocolVersion: 5 },
        ),
      );
      nextId = nextId === 65535 ? 1 : nextId + 1;
    }
    socket.write(Buffer.concat(packets));
  };
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('connect', () => {
        parser.once('packet', (packet: Packet) =>
          packet.cmd === 'connack' && !packet.reasonCode
            ? resolve()
            : reject(new Error(`CONNECT refused: ${JSON.stringify(packet)}`)),
        );
        socket.on('data', (chunk: Buffer) => parser.parse(chunk));
        socket.write(
          mqttPacket.generate(
            {
              cmd: 'connect',
              protocolId: 'MQTT',
              protocolVersion: 5,
              clean: true,
              keepalive: 60,
              clientId: `bench-cpu-${process.pid}`,
              username: options.token,
            },
            { protocolVersion: 5 },
          ),
        );
      });
    });
    let failures = 0;
    const run = (count: number) =>
      new Promise<void>((resolve, reject) => {
        let sent = 0;
        let acknowledged = 0;
        let answeredInChunk = 0;
        const onPacket = (packet: Packet) => {
          if (packet.cmd !== 'puback') return;
          if (packet.reasonCode) failures++;
          acknowledged++;
          answeredInChunk++;
        };
        const onData = () => {
          // the parser emitted this chunk's PUBACKs (its own data listener ran first)
          const more = Math.min(answeredInChunk, count - sent);
          answeredInChunk = 0;
          if (more > 0) {
            sent += more;
            publish(more);
          }
          if (acknowledged >= count) finish();
        };
        const onClose = () => {
          finish();
          reject(new Error(`the server closed the connection after ${acknowledged} PUBACKs`));
        };
        const finish = () => {
          parser.off('packet', onPacket);
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve();
        };
        parser.on('packet', onPacket);
        socket.on('data', onData);
        socket.once('close', onClose);
        sent = Math.min(options.window, count);
        publish(sent);
      });
    await run(options.warmup);
    failures = 0;
    const cpuBefore = processCpuSeconds(options.pid);
    const started = performance.now();
    await run(options.messages);
    const elapsedS = (performance.now() - started) / 1000;
    const cpuAfter = processCpuSeconds(options.pid);
    if (cpuBefore === undefined || cpuAfter === undefined)
      throw new Error('no /proc/<pid>/stat here: the CPU per publish is read on Linux only');
    return {
      cpuMicros: ((cpuAfter - cpuBefore) * 1e6) / options.messages,
      perSecond: options.messages / elapsedS,
      failures,
    };
  } finally {
    socket.destroy();
  }
}
