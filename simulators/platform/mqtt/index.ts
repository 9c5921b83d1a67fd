/**
 * The reference platform's MQTT transport: MQTT 3.1.1 and 5, QoS 0 and 1, the access token as user
 * name, the device topics and the gateway topics (docs/reference/interfaces.md "MQTT gateway API";
 * docs/reference/platform-facts.md §4 where it is silent).
 *
 * A purpose-built server on mqtt-packet rather than a broker: the platform is not a broker (clients
 * never publish to each other), and it must answer an MQTT 5 PUBACK with a reason code of its
 * choosing, which aedes cannot (toolchain-notes.md §5). One small module per packet type, as
 * MQTT.js's handlers: connect.ts, publish.ts, subscribe.ts (with unsubscribe), ping.ts,
 * disconnect.ts. A malformed packet or payload ends only its own connection (or gets a failure
 * PUBACK); nothing a client sends can stop the server or touch another client.
 */
import { createServer, type Server, type Socket, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { Packet } from 'mqtt-packet';
import type { Logger } from 'pino';
import type { PlatformCore } from '../core/platform-core';
import type { Quirks } from '../quirks';
import type { ClientRpcHandler } from '../http/context';
import { handleConnect } from './connect';
import { DEFAULT_CONNECT_TIMEOUT_MS, Liveness } from './liveness';
import { DEFAULT_MAX_OPENING, OpeningConnections } from '../core/opening-connections';
import { withHandshakeTimeout } from '../../../lib/tls/handshake';
import { handleDisconnect } from './disconnect';
import { MqttReader } from './reader';
import { handlePing } from './ping';
import { handlePublish, handlePubrel } from './publish';
import { REASON } from './reason-codes';
import {
  DEFAULT_MAX_PENDING_OUTPUT_BYTES,
  MqttSession,
  type MqttTransportContext,
} from './session';
import { handleSubscribe, handleUnsubscribe } from './subscribe';
import type { TrafficListener } from '../traffic';
import { type StepFaults, withFaults } from '../../../faults/steps';

import { MAX_PACKET_BYTES } from './limits';

/** The named steps of reading a connection's bytes. */
const READING_STEPS = {
  /** The largest packet a connection may send; past it the connection ends. */
  packetLimit: (): number => MAX_PACKET_BYTES,
  /** A malformed packet ends its connection (DISCONNECT 0x81 on MQTT 5). */
  malformed: (session: MqttSession): void => session.end(REASON.MALFORMED_PACKET),
};

/** The planted faults of reading (faults/catalogue/robustness.ts), wrappers of its steps. */
const READING_FAULTS: StepFaults<typeof READING_STEPS> = {
  'ROB-SIZE-02:packet-limit-exclusive': { packetLimit: (step) => () => step() - 1 },
  'ROB-SIZE-02:packet-size-unchecked': { packetLimit: () => () => Number.POSITIVE_INFINITY },
  'ROB-CONN-01:garbage-kept-open': { malformed: () => () => undefined },
};

interface MqttTransportOptions {
  core: PlatformCore;
  quirks: Quirks;
  logger: Logger;
  clientRpc: ClientRpcHandler;
  host: string;
  /** Plain MQTT port (0 = a free one). */
  port: number;
  /** Also serve MQTT over TLS (mqtts) on this port with `tls`. */
  tlsPort?: number;
  tls?: { cert: string; key: string };
  /** Sees every packet in and out (`iotc simulate --log`). */
  traffic?: TrafficListener;
  /** Output waiting for a client that does not read before it is disconnected (default 4 MiB). */
  maxPendingOutputBytes?: number;
  /**
   * Time a new connection has to send its CONNECT, from its start (default
   * DEFAULT_CONNECT_TIMEOUT_MS).
   */
  connectTimeoutMs?: number;
  /** Time a TLS connection has to complete its handshake (default lib/tls/handshake.ts). */
  tlsHandshakeTimeoutMs?: number;
  /**
   * Connections without an accepted CONNECT at most, handshakes included per listener (default
   * DEFAULT_MAX_OPENING; beyond it the oldest is closed).
   */
  maxUnconnected?: number;
  /**
   * Holds the PUBACK of every v1/gateway/connect until the client has sent nothing for this long
   * (`iotc certify gateway`; MqttSession.holdUntilQuiet): a gateway that publishes for the device
   * without waiting for the PUBACK then does so where the trace shows it, in every run
   * (docs/reference/interfaces.md rule 4 recommends the wait). ThingsBoard acknowledges once the
   * connect is processed, which may take as long; default 0 (at once).
   */
  gatewayConnectAckDelayMs?: number;
  /**
   * Told of the mqtts server once it listens (`iotc certify --tls`: other certificates, handshakes
   * watched).
   */
  tlsServer?: (server: TlsServer, protocol: 'mqtts') => void;
  intercept?: MqttIntercept;
  /**
   * Told when a connection has ended, whoever ended it (`iotc certify`: how long a connection
   * lasted).
   */
  connectionClosed?: (connection: number) => void;
}

/**
 * Sees every packet a client sends before it is handled (`iotc certify`: the behaviour over time of
 * a client under test is provoked by a connection dropped, a CONNECT or a PUBLISH never answered):
 * `handle` (the default), `withhold` (never handled nor answered: a CONNECT gets no CONNACK, a
 * PUBLISH no PUBACK) or `close` (the connection ends at once, the packet unhandled). `close` on the
 * event ends the connection later (a session dropped while idle).
 */
export type MqttIntercept = (event: {
  connection: number;
  packet: Packet;
  close: () => void;
}) => 'handle' | 'withhold' | 'close' | undefined;

export interface RunningMqttTransport {
  url: string;
  tlsUrl?: string;
  close(): Promise<void>;
}

export async function startMqttTransport(
  options: MqttTransportOptions,
): Promise<RunningMqttTransport> {
  const context: MqttTransportContext = {
    core: options.core,
    quirks: options.quirks,
    logger: options.logger,
    clientRpc: options.clientRpc,
    sessionsByDevice: new Map(),
    traffic: options.traffic,
    gatewayConnectAckDelayMs: options.gatewayConnectAckDelayMs ?? 0,
    maxPendingOutputBytes: options.maxPendingOutputBytes ?? DEFAULT_MAX_PENDING_OUTPUT_BYTES,
  };
  const sessions = new Set<MqttSession>();
  // connections without an accepted CONNECT (TLS handshakes included), bounded per listener: each
  // holds a file handle until its deadline (core/opening-connections.ts). ThingsBoard mode has no
  // deadline and no bound.
  const bounded = !options.quirks.mqttNoIdleTimeouts;
  const maxOpening = options.maxUnconnected ?? DEFAULT_MAX_OPENING;
  const plainOpening = new OpeningConnections(maxOpening);
  const tlsOpening = new OpeningConnections(maxOpening);
  const accept = (socket: Socket) => {
    socket.setNoDelay(true);
    const session = new MqttSession(socket, context);
    sessions.add(session);
    // the reading steps with the faults on when the connection opened
    const reading = withFaults(READING_STEPS, READING_FAULTS);
    const liveness = new Liveness(
      // quirks mode: ThingsBoard has no idle handler, so neither deadline exists
      options.quirks.mqttNoIdleTimeouts
        ? undefined
        : (options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
      (phase) => (phase === 'connect' ? socket.destroy() : session.end(REASON.KEEP_ALIVE_TIMEOUT)),
    );
    const onPacket = (packet: Packet) => {
      if ((packet.length ?? 0) > reading.packetLimit()) return session.end(REASON.MALFORMED_PACKET);
      context.traffic?.({
        protocol: 'mqtt',
        direction: 'in',
        client: session.label,
        connection: session.connection,
        at: Date.now(),
        packet,
      });
      const decided = options.intercept?.({
        connection: session.connection,
        packet,
        close: () => socket.destroy(),
      });
      if (decided === 'close') return void socket.destroy();
      if (decided === 'withhold') return;
      session.heard();
      const connecting = packet.cmd === 'connect' && !session.device;
      dispatch(session, packet);
      // an accepted CONNECT leaves the session open (a refused one ends it)
      if (connecting && !session.closed) {
        liveness.connected(packet.keepalive ?? 0);
        ('encrypted' in socket ? tlsOpening : plainOpening).opened(socket);
      }
    };
    const reader = new MqttReader(onPacket, (error: Error) => {
      context.logger.debug({ err: error }, 'malformed MQTT packet');
      reading.malformed(session);
    });
    socket.on('data', (chunk: Buffer) => {
      if (session.closed) return;
      liveness.heard();
      // every answer to the packets of one chunk (PUBACKs mostly) leaves in one write of one buffer
      session.holdWrites();
      try {
        reader.read(chunk);
      } finally {
        session.flushWrites();
      }
      // a packet may span chunks: the parser buffers the unfinished one; past the limit it is
      // refused at once
      if (reader.unfinishedPacketLength() > reading.packetLimit())
        session.end(REASON.MALFORMED_PACKET);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      options.connectionClosed?.(session.connection);
      liveness.stop();
      session.release();
      sessions.delete(session);
    });
  };
  const servers: Server[] = [];
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      servers.push(server);
      server.once('error', reject);
      server.listen(port, options.host, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  const plain = createServer(accept);
  if (bounded) plain.on('connection', plainOpening.admit);
  const port = await listen(plain, options.port);
  let tlsUrl: string | undefined;
  if (options.tlsPort !== undefined) {
    if (!options.tls) throw new Error('MQTT tlsPort needs tls (cert and key)');
    // the handshake has its own deadline; the CONNECT deadline starts once it is done
    const secure = createTlsServer(
      withHandshakeTimeout(options.tls, options.tlsHandshakeTimeoutMs),
      accept,
    );
    if (bounded) secure.on('connection', tlsOpening.admit);
    secure.on('tlsClientError', (_error, socket) => socket.destroy());
    tlsUrl = `mqtts://${urlHost}:${await listen(secure as unknown as Server, options.tlsPort)}`;
    options.tlsServer?.(secure, 'mqtts');
  }
  options.logger.info({ port }, 'reference MQTT transport listening');
  return {
    url: `mqtt://${urlHost}:${port}`,
    tlsUrl,
    close: async () => {
      for (const session of sessions) session.end(REASON.SERVER_SHUTTING_DOWN);
      await Promise.all(
        servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
      );
    },
  };
}

function dispatch(session: MqttSession, packet: Packet): void {
  if (session.closed) return;
  if (packet.cmd !== 'connect' && !session.device && !session.provisionOnly)
    return session.end(REASON.PROTOCOL_ERROR);
  if (malformed(packet)) return session.end(REASON.MALFORMED_PACKET);
  switch (packet.cmd) {
    case 'connect':
      return handleConnect(session, packet);
    case 'publish':
      return handlePublish(session, packet);
    case 'subscribe':
      return handleSubscribe(session, packet);
    case 'unsubscribe':
      return handleUnsubscribe(session, packet);
    case 'pingreq':
      return handlePing(session);
    case 'disconnect':
      return handleDisconnect(session);
    case 'pubrel':
      return handlePubrel(session, packet);
    case 'puback':
      return; // outgoing QoS 1 messages are not retried, so an acknowledgement needs nothing
    default:
      return session.end(REASON.PROTOCOL_ERROR);
  }
}

/**
 * What the parser lets through and MQTT forbids (issue 26 item 5): a packet identifier 0 on a
 * packet that carries one (MQTT 3.1.1 §2.3.1, MQTT-2.3.1-1; MQTT 5 §2.2.1), and a topic that is not
 * valid UTF-8 (§1.5.3, MQTT-1.5.3-1): the parser decodes invalid bytes as U+FFFD, which a valid
 * topic from our clients never holds. Either closes the connection.
 */
function malformed(packet: Packet): boolean {
  const withId =
    (packet.cmd === 'publish' && (packet.qos ?? 0) > 0) ||
    packet.cmd === 'subscribe' ||
    packet.cmd === 'unsubscribe' ||
    packet.cmd === 'pubrel';
  if (withId && (packet as { messageId?: number }).messageId === 0) return true;
  // a publish, most packets, without the list below
  if (packet.cmd === 'publish')
    return typeof packet.topic === 'string' && packet.topic.includes('\uFFFD');
  const topics =
    packet.cmd === 'subscribe'
      ? packet.subscriptions.map((subscription) => subscription.topic)
      : packet.cmd === 'unsubscribe'
        ? packet.unsubscriptions
        : [];
  return topics.some((topic) => typeof topic === 'string' && topic.includes('\uFFFD'));
}
