/**
 * A client under test for `iotc certify device --transport mqtt --duration <ms>`: iotc's MQTT
 * device (mqtt-device-client.ts), then what a device does for the rest of its life, until it is
 * ended: one connection with a keep alive of KEEPALIVE_S, QoS 1 telemetry every PUBLISH_EVERY_MS,
 * and when the connection drops or a CONNECT is not answered, a reconnect after an exponential
 * backoff with jitter, and the QoS 1 PUBLISH left unacknowledged sent again with DUP once
 * reconnected. Raw MQTT (mqtt-packet over a socket) so that each of those is its own.
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
/**
 * Large enough against a loaded machine's stalls for the certification to tell jitter from timing.
 */
const BASE_DELAY_MS = 300;
/**
 * The jitter: factors around 1, a fixed sequence so the test client behaves the same in every run.
 */
const JITTER = [1.2, 0.8, 1.15, 0.85, 1.1, 0.9, 1.05, 0.95];
const MAX_DELAY_MS = 5000;

/**
 * The planted faults of the behaviour over time (each client under test switches its own by name).
 */
export interface LongFaults {
  noBackoff: boolean;
  noJitter: boolean;
  noDup: boolean;
  noPing: boolean;
}

/**
 * What a client does on a connection once it is accepted, before its resend and its periodic
 * publishing (a gateway subscribes and connects its device); resolves when that is done. `send`
 * writes a packet, `next` waits for the platform's next packet of a kind.
 */
export type OnAccepted = (
  send: (packet: Partial<Packet> & { cmd: Packet['cmd'] }) => void,
  next: (cmd: Packet['cmd']) => Promise<Packet>,
) => Promise<void>;

/** The client's own periodic message (QoS 1): topic and payload, numbered. */
export type Periodic = (count: number) => { topic: string; payload: string };

function delay(faults: LongFaults, attempt: number): number {
  const jitter = JITTER[attempt % JITTER.length]!;
  if (faults.noBackoff) return 450 * jitter;
  const exponential = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return faults.noJitter ? exponential : exponential * jitter;
}

let nextId = 1;
/** The QoS 1 PUBLISH sent and not acknowledged. */
const unacknowledged = new Map<number, { topic: string; payload: string }>();

/** The next packet id of the client (its PUBLISHes, and a gateway's SUBSCRIBE and connect). */
export function packetId(): number {
  return nextId++;
}

/**
 * One connection until it ends: resolves true once it was accepted (CONNACK), false when it never
 * was.
 */
function session(
  first: boolean,
  faults: LongFaults,
  periodic: Periodic,
  onAccepted?: OnAccepted,
): Promise<boolean> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket: Socket = netConnect(Number(port), hostname);
    const parser = mqttPacket.parser({ protocolVersion });
    let accepted = false;
    let timer: NodeJS.Timeout | undefined;
    const waiting = new Map<Packet['cmd'], (packet: Packet) => void>();
    const send = (packet: Partial<Packet> & { cmd: Packet['cmd'] }) =>
      socket.write(mqttPacket.generate(packet as Packet, { protocolVersion }));
    const next = (cmd: Packet['cmd']) =>
      new Promise<Packet>((arrived) => waiting.set(cmd, arrived));
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
    const publishing = () => {
      // the DUP flag of a resent PUBLISH (the fault resends without it)
      const dup = !faults.noDup;
      for (const [messageId, message] of unacknowledged)
        send({ cmd: 'publish', qos: 1, dup, messageId, retain: false, ...message });
      if (faults.noPing && !first) return;
      let count = 0;
      timer = setInterval(() => {
        const messageId = packetId();
        const message = periodic((count += 1));
        unacknowledged.set(messageId, message);
        send({ cmd: 'publish', qos: 1, dup: false, messageId, retain: false, ...message });
      }, PUBLISH_EVERY_MS);
    };
    parser.on('packet', (packet: Packet) => {
      if (packet.cmd === 'puback') unacknowledged.delete(packet.messageId ?? 0);
      const arrived = waiting.get(packet.cmd);
      waiting.delete(packet.cmd);
      arrived?.(packet);
      if (packet.cmd !== 'connack' || accepted) return;
      accepted = true;
      if (!onAccepted) return publishing();
      onAccepted(send, next).then(publishing, () => socket.destroy());
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearInterval(timer);
      resolve(accepted);
    });
  });
}

/**
 * The client's life after its certification run: connections until it is ended, reconnecting with
 * its backoff.
 */
export async function live(
  faults: LongFaults,
  periodic: Periodic,
  onAccepted?: OnAccepted,
): Promise<void> {
  let attempt = 0;
  let first = true;
  for (;;) {
    const accepted = await session(first, faults, periodic, onAccepted);
    first = false;
    attempt = accepted ? 0 : attempt + 1;
    await sleep(delay(faults, attempt));
  }
}

if (require.main === module)
  main()
    .then(() =>
      live(
        {
          noBackoff: fault === 'no-backoff',
          noJitter: fault === 'no-jitter',
          noDup: fault === 'no-dup',
          noPing: fault === 'no-ping',
        },
        (count) => ({ topic: 'v1/devices/me/telemetry', payload: JSON.stringify({ beat: count }) }),
      ),
    )
    .catch((error: unknown) => {
      console.error(`test client: ${(error as Error).message}`);
      process.exitCode = 1;
    });
