/**
 * A client under test for `iotc certify device --transport mqtt --duration <ms>`: iotc's MQTT device
 * (mqtt-device-client.ts), then what a device does for the rest of its life, until it is ended: one connection with
 * a keep alive of KEEPALIVE_S, QoS 1 telemetry every PUBLISH_EVERY_MS, and when the connection drops or a CONNECT is
 * not answered, a reconnect after an exponential backoff with jitter, and the QoS 1 PUBLISH left unacknowledged sent
 * again with DUP once reconnected. Raw MQTT (mqtt-packet over a socket) so that each of those is its own.
 * IOTC_TEST_CLIENT_FAULT:
 * - no-backoff (CLI-BEH-01): the reconnect delay does not grow (about 450 ms, jitter kept);
 * - no-jitter (CLI-BEH-02): the reconnect delay doubles exactly (300, 600, 1200 ... ms);
 * - no-dup (CLI-BEH-03): the unacknowledged PUBLISH is sent again without the DUP flag;
 * - no-ping (CLI-BEH-04): once reconnected the client sends nothing more (no PINGREQ).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import mqttPacket, { type Packet } from 'mqtt-packet';
import { main } from './mqtt-device-client';
import { fault, protocolVersion, token, url } from './mqtt-client-environment';

const KEEPALIVE_S = 2;
const PUBLISH_EVERY_MS = 500;
/** Large enough against a loaded machine's stalls for the certification to tell jitter from timing. */
const BASE_DELAY_MS = 300;
/** The jitter: factors around 1, a fixed sequence so the test client behaves the same in every run. */
const JITTER = [1.2, 0.8, 1.15, 0.85, 1.1, 0.9, 1.05, 0.95];
const MAX_DELAY_MS = 5000;

function delay(attempt: number): number {
  const jitter = JITTER[attempt % JITTER.length]!;
  if (fault === 'no-backoff') return 450 * jitter;
  const exponential = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return fault === 'no-jitter' ? exponential : exponential * jitter;
}

let nextId = 1;
/** The QoS 1 PUBLISH sent and not acknowledged. */
const unacknowledged = new Map<number, { topic: string; payload: string }>();

/** One connection until it ends: resolves true once it was accepted (CONNACK), false when it never was. */
function session(first: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket: Socket = netConnect(Number(port), hostname);
    const parser = mqttPacket.parser({ protocolVersion });
    let accepted = false;
    let timer: NodeJS.Timeout | undefined;
    const send = (packet: Partial<Packet> & { cmd: Packet['cmd'] }) =>
      socket.write(mqttPacket.generate(packet as Packet, { protocolVersion }));
    socket.on('connect', () =>
      send({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion,
        clean: true,
        clientId: `long-${process.pid}`,
        keepalive: KEEPALIVE_S,
        username: token,
      }),
    );
    parser.on('packet', (packet: Packet) => {
      if (packet.cmd === 'puback') unacknowledged.delete(packet.messageId ?? 0);
      if (packet.cmd !== 'connack' || accepted) return;
      accepted = true;
      // the DUP flag of a resent PUBLISH (the fault resends without it)
      let dup = true;
      if (fault === 'no-dup') dup = false;
      for (const [messageId, message] of unacknowledged)
        send({
          cmd: 'publish',
          qos: 1,
          dup,
          messageId,
          retain: false,
          ...message,
        });
      if (fault === 'no-ping' && !first) return;
      let count = 0;
      timer = setInterval(() => {
        const messageId = nextId++;
        const message = {
          topic: 'v1/devices/me/telemetry',
          payload: JSON.stringify({ beat: (count += 1) }),
        };
        unacknowledged.set(messageId, message);
        send({ cmd: 'publish', qos: 1, dup: false, messageId, retain: false, ...message });
      }, PUBLISH_EVERY_MS);
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearInterval(timer);
      resolve(accepted);
    });
  });
}

async function live(): Promise<void> {
  let attempt = 0;
  let first = true;
  for (;;) {
    const accepted = await session(first);
    first = false;
    attempt = accepted ? 0 : attempt + 1;
    await sleep(delay(attempt));
  }
}

main()
  .then(live)
  .catch((error: unknown) => {
    console.error(`test client: ${(error as Error).message}`);
    process.exitCode = 1;
  });
