/**
 * `iotc certify device --transport http|mqtt --exec "<command>"`: certifies a client of the HTTP or
 * MQTT device API; `iotc certify gateway --exec "<command>"` a client of the MQTT gateway API.
 *
 * It starts the reference platform with its traffic observation on
 * (simulators/platform/traffic.ts), creates a device through the admin API, and starts the client
 * under test with the URLs and token in its environment (IOTC_CERTIFY_URL, IOTC_CERTIFY_MQTT_URL
 * and IOTC_CERTIFY_MQTT_VERSION for MQTT, IOTC_CERTIFY_TOKEN). Once the client is ready (HTTP: its
 * first request arrived; MQTT: it subscribed to the attribute updates and the RPC requests) it
 * walks the steps that need the platform to act: a shared-attribute update, then a two-way
 * server-side RPC (waiting for its outcome). Then it gives the client a grace period to end by
 * itself and ends it (SIGTERM, SIGKILL), on every path. What the client sent is then checked
 * against the device requirements of the catalogue (http-device-checks.ts, mqtt-device-checks.ts).
 *
 * A gateway gets a gateway device's token and, in IOTC_CERTIFY_DEVICE, the name of a device to
 * connect behind it; it is ready once its v1/gateway/connect for that device has been acknowledged
 * (the reference publishes gateway topics whether or not they were subscribed,
 * docs/reference/platform-facts.md §4.5, so a subscription is no condition), and the steps act on
 * that device (gateway-checks.ts). A gateway is also a device: when it has subscribed to the RPC
 * requests of its own device (v1/devices/me/rpc/request/+) by the RPC step, that step also sends
 * the gateway device itself the two-way RPC iotcCertifyGatewayPing, at the same time as the
 * device's and bounded by the same timeout, so its reply (MQTT-DEV-07, -08) is judged at no cost to
 * a gateway that answers, or that never subscribed (sent none).
 *
 * Without a command (`--console`, any kind of client) a person drives the device or gateway: the
 * steps then also ask for its connection (MQTT), telemetry and client attributes, each waits
 * (bounded) for the request or publish it asks for, and the session ends when the operator presses
 * finish on the console or the last step's bound passes. Every step, request and packet is told to
 * `events` (session-steps.ts).
 */
import { DEVICE_MQTT_API, GATEWAY_API, deviceTopic, deviceTopicFilter } from '../../schemas';
import { randomBytes } from 'node:crypto';
import { AdminClient } from '../admin-client';
import { startPlatform, type RunningPlatform } from '../../simulators/platform';
import type { ObservedExchange } from '../../simulators/platform';
import { ClientProcess } from './client-process';
import type { SentRpc } from './http-device-checks';
import { takesOwnRpcs } from './gateway-checks';
import {
  ARM_WINDOW_MS,
  BehaviourPhase,
  SETTLE_AFTER_STEPS_MS,
  type ReconnectRecord,
} from './behaviour-phase';
import { type CertifyTls, certifyTls } from './tls-certificates';
import { type ProbeOutcome, type SessionHandshake, TLS_PROBE_KINDS, TlsWatch } from './tls-probes';
import {
  type ObservedPacket,
  QuietWatch,
  gatewayConnectWatcher,
  readinessWatcher,
} from './mqtt-packets';
import {
  Arrivals,
  type SessionListener,
  type StepPlan,
  type StepRecord,
  StepWalker,
} from './session-steps';

export type CertifyTransport = 'http' | 'mqtt';
/** The MQTT protocol level a client is asked to speak: 4 = 3.1.1, 5 = 5. */
export type CertifyMqttVersion = 4 | 5;

/** The topics an MQTT device must have subscribed to before the steps publish on them. */
const MQTT_DEVICE_STEP_TOPICS = [DEVICE_MQTT_API.attributes.topic, deviceTopic('rpcRequest', 1)];

/**
 * The reference holds a gateway connect's PUBACK until the gateway has sent nothing for this long
 * (each packet it sends starts the window again; MqttSession.holdUntilQuiet, at most 10 windows). A
 * gateway that waits for the PUBACK (GW-RULE-04-WAIT) is quiet and gets it after one window; one
 * that goes on without waiting publishes for the device before the PUBACK in every run, as long as
 * it never pauses a whole window before doing so (a client silent that long after its connect and
 * only then publishing cannot be told from one that waited, by any certifier). Until issue 28 the
 * PUBACK was held a fixed 300 ms from the connect, and whether a later publish fell inside was a
 * race: the ThingsBoard IoT Gateway was caught in 4 of 6 runs.
 */
const GATEWAY_CONNECT_ACK_QUIET_MS = 1000;
/**
 * At most this many quiet windows before the RPC to a gateway's device is sent anyway (as
 * MAX_HOLD_QUIET_WINDOWS).
 */
const GATEWAY_QUIET_WINDOWS = 10;

export interface CertifySessionOptions {
  /**
   * The client under test; absent: a person drives the device or gateway from the operator console.
   */
  exec?: string;
  /** A device (HTTP or MQTT) or a gateway (MQTT). */
  role: 'device' | 'gateway';
  transport: CertifyTransport;
  mqttVersion: CertifyMqttVersion;
  /**
   * The two-way RPC's timeout (also the reference's shortest, so a short one is honoured as given).
   */
  rpcTimeoutMs: number;
  /**
   * How long the client has to become ready (its first request, its subscriptions, its device's
   * connect).
   */
  startTimeoutMs: number;
  /** How long the client may run on after the steps before it is ended. */
  graceMs: number;
  /** Where the session tells the person what happens. */
  say: (line: string) => void;
  /**
   * Operator mode: how long a step waits for the device to do what it asks (and for finish after
   * the last).
   */
  stepTimeoutMs?: number;
  /** Told of every step, request and RPC as it happens (the operator console). */
  events?: SessionListener;
  /**
   * Settles when the operator presses finish: the waiting step ends, the steps not reached are
   * skipped.
   */
  finish?: Promise<void>;
  /** The address every device-facing server listens on (--listen; default 127.0.0.1). */
  listen?: string;
  /**
   * Fixed ports (--http-port, --mqtt-port), so firmware can be built once; default 0, a free one.
   */
  httpPort?: number;
  mqttPort?: number;
  /**
   * The host devices reach the servers at (--advertise): the URLs given to the client carry it,
   * each its own port.
   */
  advertise?: string;
  /**
   * --tls: the device-facing servers speak HTTPS and mqtts only (the fixed ports are theirs), with
   * a certificate of iotc's persistent certificate authority kept in `stateDir`, or the operator's;
   * the client's TLS checks run first.
   */
  tls?: { stateDir: string } | { certFile: string; keyFile: string };
  /**
   * --duration: the session lasts this long from the client's start, and its behaviour over time is
   * provoked.
   */
  durationMs?: number;
}

/**
 * `url` with the host of `advertise` (a URL or a host name), its own scheme and port kept; no
 * advertise: as it is.
 */
export function advertised(url: string, advertise: string | undefined): string {
  if (advertise === undefined) return url;
  const host = /^[a-z][a-z0-9+.-]*:\/\//i.test(advertise) ? new URL(advertise).hostname : advertise;
  const parsed = new URL(url);
  parsed.hostname = host;
  return parsed.toString().replace(/\/$/, '');
}

export interface CertifySession {
  httpUrl: string;
  mqttUrl?: string;
  token: string;
  /** The device a gateway connects and the steps act on (a gateway's certification only). */
  deviceName?: string;
  /** The client's HTTP requests (the certification's own admin calls left out). */
  exchanges: ObservedExchange[];
  /**
   * The client's MQTT packets and what the platform sent it (every MQTT connection is the
   * client's).
   */
  packets: ObservedPacket[];
  /** When each MQTT connection closed: the number of packets observed by then. */
  closed: Map<number, number>;
  rpcs: SentRpc[];
  /** The client's exit code, or the signal that ended it; operator mode: how the session ended. */
  exit: number | string;
  steps: StepRecord[];
  startedAt: Date;
  finishedAt: Date;
  /**
   * With --tls: the checks' outcomes, the session's handshakes and where its certificate came from.
   */
  tls?: {
    probes: ProbeOutcome[];
    missing: CertifyTls['missing'];
    handshakes: SessionHandshake[];
    source: string;
    caFile?: string;
  };
  /** When each MQTT connection ended. */
  closedAt: ReadonlyMap<number, number>;
  /**
   * The client's other connections open when each CONNECT arrived (BehaviourPhase.openAtConnect).
   */
  openAtConnect: ReadonlyMap<number, readonly number[]>;
  /** When the client under test started (the session's duration counts from it) and ended. */
  clientStartedAt: number;
  clientEndedAt: number;
  /** The client's exit when it ended by itself, before the certification ended it. */
  endedByItself?: string;
  /** With --duration (MQTT devices): what the behaviour phase provoked and saw. */
  reconnect?: ReconnectRecord;
}

/** The method of the certification's two-way RPC (what a client under test answers). */
const CERTIFY_RPC_METHOD = 'iotcCertifyPing';
/**
 * The method of the two-way RPC to a gateway's own device (when it takes them): a name of its own,
 * so that each reply's timing is judged against its own call.
 */
const CERTIFY_GATEWAY_RPC_METHOD = 'iotcCertifyGatewayPing';
/** The shared attribute the certification updates. */
const CERTIFY_SHARED_KEY = 'iotcCertifyStep';

/** The requirements only the shared-attribute step and the RPC step exercise, by kind of client. */
const STEP_REQUIREMENTS = {
  http: { shared: ['HTTP-DEV-07'], rpc: ['HTTP-DEV-05', 'HTTP-DEV-06'] },
  mqtt: { shared: [], rpc: ['MQTT-DEV-07', 'MQTT-DEV-08'] },
  gateway: { shared: [], rpc: ['GW-RPC-03', 'GW-CLI-05', 'MQTT-DEV-07', 'MQTT-DEV-08'] },
} as const;

/** How each kind of client answers the certification's RPC, in the step's words. */
const RPC_ANSWER = {
  http: 'poll GET /api/v1/{token}/rpc, reply POST /api/v1/{token}/rpc/{id}',
  mqtt: `reply on ${DEVICE_MQTT_API.rpcResponse.topic}`,
  gateway: `reply on ${GATEWAY_API.rpc.topic} with its device and id (and to ${CERTIFY_GATEWAY_RPC_METHOD}, sent to the gateway itself when it subscribed to ${deviceTopicFilter('rpcRequest')}, on ${DEVICE_MQTT_API.rpcResponse.topic})`,
} as const;

/** What the client must have done before the platform acts, by kind of client. */
const READY = {
  http: () => 'sent a request',
  mqtt: () => `subscribed to ${MQTT_DEVICE_STEP_TOPICS.join(' and ')}`,
  gateway: (deviceName = 'its device') => `connected ${deviceName} on ${GATEWAY_API.connect.topic}`,
} as const;

function stepsFor(kind: keyof typeof STEP_REQUIREMENTS) {
  const shared: StepPlan = {
    id: 'shared-attribute',
    instruction:
      kind === 'http'
        ? `the platform sets the shared attribute ${CERTIFY_SHARED_KEY} to 1: read it (GET /api/v1/{token}/attributes?sharedKeys=${CERTIFY_SHARED_KEY})`
        : `the platform sets the shared attribute ${CERTIFY_SHARED_KEY} to 1`,
    requirements: STEP_REQUIREMENTS[kind].shared,
  };
  const rpc: StepPlan = {
    id: 'rpc',
    instruction: `answer the RPC ${CERTIFY_RPC_METHOD} now: ${RPC_ANSWER[kind]}`,
    requirements: STEP_REQUIREMENTS[kind].rpc,
  };
  const ready: StepPlan = {
    id: 'first-request',
    instruction: `the client has ${READY[kind]()}`,
    requirements: [],
  };
  return { shared, rpc, ready };
}

const TELEMETRY_STEP: StepPlan = {
  id: 'telemetry',
  instruction:
    'send telemetry now: POST /api/v1/{token}/telemetry, once also in the timestamped form {"ts": <unix ms>, "values": {...}}',
  requirements: ['HTTP-DEV-02', 'HTTP-DEV-03', 'HTTP-DEV-04'],
  asks: true,
};
const ATTRIBUTES_STEP: StepPlan = {
  id: 'attributes',
  instruction: 'post client attributes now: POST /api/v1/{token}/attributes {"key": value}',
  requirements: ['HTTP-DEV-02', 'HTTP-DEV-03'],
  asks: true,
};
const FINISH_STEP: StepPlan = {
  id: 'finish',
  instruction: 'all steps are done: press finish',
  requirements: [],
};
const HTTP_STEPS = stepsFor('http');
/** `--console`: a person drives an HTTP device, one request kind at a time. */
const OPERATOR_STEPS: readonly StepPlan[] = [
  TELEMETRY_STEP,
  ATTRIBUTES_STEP,
  HTTP_STEPS.shared,
  HTTP_STEPS.rpc,
  FINISH_STEP,
];

/**
 * A step the person at the console does before the platform acts, and what it waits for: the
 * client's readiness (MQTT: its subscriptions; a gateway: its device's connect acknowledged), or a
 * request or publish of the client (`method` POST with a resource path after /api/v1/{token}/, or
 * PUBLISH with a topic).
 */
interface OperatorStep extends StepPlan {
  waitsFor: 'ready' | { method: 'POST' | 'PUBLISH'; path: string };
}

const MQTT_STEPS = stepsFor('mqtt');
const GATEWAY_STEPS = stepsFor('gateway');
/**
 * `--console` for an MQTT device: connect and subscribe, telemetry, attributes, then the platform's
 * steps.
 */
const MQTT_OPERATOR_STEPS: readonly OperatorStep[] = [
  {
    id: 'first-request',
    instruction: `connect with the access token as MQTT user name and subscribe to ${MQTT_DEVICE_STEP_TOPICS.join(' and ')} (a filter such as v1/devices/me/rpc/request/+ covers it)`,
    requirements: ['MQTT-DEV-01'],
    waitsFor: 'ready',
    asks: true,
  },
  {
    id: 'telemetry',
    instruction:
      'publish telemetry now on v1/devices/me/telemetry, once also in the timestamped form {"ts": <unix ms>, "values": {...}}',
    requirements: ['MQTT-DEV-03', 'MQTT-DEV-04'],
    waitsFor: { method: 'PUBLISH', path: DEVICE_MQTT_API.telemetry.topic },
    asks: true,
  },
  {
    id: 'attributes',
    instruction: 'publish client attributes now on v1/devices/me/attributes {"key": value}',
    requirements: ['MQTT-DEV-03'],
    waitsFor: { method: 'PUBLISH', path: DEVICE_MQTT_API.attributes.topic },
    asks: true,
  },
];
/** `--console` for a gateway: connect the device, telemetry for it, then the platform's steps. */
function gatewayOperatorSteps(deviceName = 'the device named on the console'): OperatorStep[] {
  return [
    {
      id: 'first-request',
      instruction: `connect with the gateway's access token as MQTT user name, subscribe to v1/gateway/attributes and v1/gateway/rpc, then connect ${deviceName}: v1/gateway/connect {"device": "${deviceName}"} at QoS 1, and wait for its PUBACK`,
      requirements: ['GW-CLI-01', 'GW-RULE-01-UPD', 'GW-RULE-04-WAIT'],
      waitsFor: 'ready',
      asks: true,
    },
    {
      id: 'telemetry',
      instruction: `publish telemetry for ${deviceName} now on v1/gateway/telemetry {"${deviceName}": [{"ts": <unix ms>, "values": {...}}]}`,
      requirements: ['GW-CLI-02', 'GW-CLI-03'],
      waitsFor: { method: 'PUBLISH', path: GATEWAY_API.telemetry.topic },
      asks: true,
    },
  ];
}

/**
 * The operator console's steps for a kind of client (`deviceName`: the gateway's device, once
 * chosen): what the person does first, then the platform's shared-attribute update and RPC, then
 * finish.
 */
export function operatorSteps(
  role: 'device' | 'gateway',
  transport: CertifyTransport,
  deviceName?: string,
): readonly StepPlan[] {
  if (role === 'gateway')
    return [
      ...gatewayOperatorSteps(deviceName),
      {
        ...GATEWAY_STEPS.shared,
        instruction: `${GATEWAY_STEPS.shared.instruction} of ${deviceName ?? 'the device'}: it arrives on v1/gateway/attributes`,
      },
      GATEWAY_STEPS.rpc,
      FINISH_STEP,
    ];
  if (transport === 'mqtt')
    return [
      ...MQTT_OPERATOR_STEPS,
      {
        ...MQTT_STEPS.shared,
        instruction: `${MQTT_STEPS.shared.instruction}: it arrives on v1/devices/me/attributes`,
      },
      MQTT_STEPS.rpc,
      FINISH_STEP,
    ];
  return OPERATOR_STEPS;
}

export async function runCertifySession(options: CertifySessionOptions): Promise<CertifySession> {
  const startedAt = new Date();
  const exchanges: ObservedExchange[] = [];
  const packets: ObservedPacket[] = [];
  const closed = new Map<number, number>();
  const tell: SessionListener = options.events ?? (() => {});
  const arrivals = new Arrivals();
  const gateway = options.role === 'gateway';
  const mqtt = gateway || options.transport === 'mqtt';
  const kind = gateway ? 'gateway' : mqtt ? 'mqtt' : 'http';
  const plan = stepsFor(kind);
  const deviceName = gateway ? `certify-sensor-${randomBytes(3).toString('hex')}` : undefined;
  const consolePlan = operatorSteps(options.role, options.transport, deviceName);
  const steps = new StepWalker(
    options.exec === undefined ? consolePlan : [plan.ready, plan.shared, plan.rpc],
    tell,
    options.finish,
  );
  let becameReady: () => void = () => {};
  const mqttReady = new Promise<void>((resolve) => {
    becameReady = resolve;
  });
  const watchPackets = deviceName
    ? gatewayConnectWatcher(deviceName, () => becameReady())
    : readinessWatcher(MQTT_DEVICE_STEP_TOPICS, () => becameReady());
  const tls = options.tls ? await certifyTls(certificateHosts(options), options.tls) : undefined;
  const watch = tls ? new TlsWatch(tls.session) : undefined;
  const phase = new BehaviourPhase();
  // a gateway's behaviour over time is provoked as a device's (issue 28): its one connection is
  // dropped, refused, kept
  const overTime = options.durationMs !== undefined && options.transport === 'mqtt';
  const probes: ProbeOutcome[] = [];
  const quiet = new QuietWatch();
  let platform: RunningPlatform | undefined;
  let admin: AdminClient | undefined;
  let client: ClientProcess | undefined;
  // Ctrl-C or a kill ends the certification at once; the client's group is killed on the way out
  // (client-process.ts)
  const interrupted = (signal: NodeJS.Signals) => {
    options.say(`${signal}: the certification is abandoned, the client under test killed`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    platform = await startPlatform({
      minServerRpcTimeoutMs: options.rpcTimeoutMs,
      ...(options.listen === undefined ? {} : { host: options.listen }),
      // --tls: the fixed ports are the TLS servers' (what the device is given); the plain ones
      // serve the admin API
      httpPort: tls ? 0 : (options.httpPort ?? 0),
      ...(tls
        ? {
            httpsPort: options.httpPort ?? 0,
            tls: tls.session,
            tlsServer: (server, protocol) => watch?.attach(server, protocol),
          }
        : {}),
      ...(mqtt
        ? {
            mqttPort: tls ? 0 : (options.mqttPort ?? 0),
            ...(tls ? { mqttTlsPort: options.mqttPort ?? 0 } : {}),
          }
        : {}),
      // the phase times each connection (CLI-BEH); GW-CLI-07 places each close among the packets
      mqttConnectionClosed: (connection) => {
        phase.connectionClosed(connection);
        closed.set(connection, packets.length);
      },
      // the phase watches every session (CLI-BEH-05); it provokes nothing until it is armed
      // (--duration)
      mqttIntercept: phase.intercept,
      ...(gateway ? { gatewayConnectAckDelayMs: GATEWAY_CONNECT_ACK_QUIET_MS } : {}),
      traffic: (event) => {
        if (event.protocol === 'http') {
          if (isAdminRequest(event.exchange.url) || watch?.probing) return;
          exchanges.push(event.exchange);
          tell({ kind: 'message', exchange: event.exchange });
          return;
        }
        const { at, direction, connection, packet } = event;
        // a TLS check's client: what it sends only shows that it accepted the certificate presented
        if (watch?.probing) {
          if (direction === 'in') watch.clientSpoke(`an MQTT ${packet.cmd.toUpperCase()}`);
          return;
        }
        const observed: ObservedPacket = { at, direction, connection, packet };
        packets.push(observed);
        watchPackets(observed);
        quiet.seen(observed);
        // the console's steps wait for a publish on a topic as for a request on a path
        if (direction === 'in' && packet.cmd === 'publish')
          arrivals.arrived('PUBLISH', packet.topic);
        tell({ kind: 'packet', packet: observed });
      },
      // HTTP: the steps start at the client's first request, also when that one is a long-poll
      // still waiting
      requestArrived: (request) => {
        if (isAdminRequest(request.url ?? '')) return;
        if (watch?.probing) return watch.clientSpoke(`an HTTP ${request.method} request`);
        arrivals.arrived(request.method ?? '', request.url ?? '');
      },
    });
    const tenant = platform.demo.users.find((user) => user.authority === 'TENANT_ADMIN');
    if (!tenant) throw new Error('the reference platform has no tenant administrator');
    admin = await AdminClient.login(platform.httpUrl, tenant);
    const device = await admin.createDevice(
      `certify-${gateway ? 'gateway-' : ''}${randomBytes(3).toString('hex')}`,
      gateway ? { additionalInfo: { gateway: true } } : {},
    );
    const token = await admin.getDeviceCredentials(device.id);
    const httpUrl = advertised(
      tls ? (platform.httpsUrl ?? platform.httpUrl) : platform.httpUrl,
      options.advertise,
    );
    const environment: Record<string, string> = {
      IOTC_CERTIFY_URL: httpUrl,
      ...(mqtt
        ? {
            IOTC_CERTIFY_MQTT_URL: advertised(
              (tls ? platform.mqttsUrl : platform.mqttUrl) ?? '',
              options.advertise,
            ),
            IOTC_CERTIFY_MQTT_VERSION: options.mqttVersion === 5 ? '5' : '3.1.1',
          }
        : {}),
      IOTC_CERTIFY_TOKEN: token,
      ...(deviceName ? { IOTC_CERTIFY_DEVICE: deviceName } : {}),
      ...(tls?.caFile ? { IOTC_CERTIFY_CA_FILE: tls.caFile } : {}),
    };
    if (tls)
      options.say(
        `TLS: the servers present a certificate from ${tls.source}${tls.caFile ? `; the device must trust the CA file ${tls.caFile}` : ''}`,
      );
    for (const [name, value] of Object.entries(environment)) options.say(`${name}=${value}`);
    tell({
      kind: 'ready',
      httpUrl,
      token,
      ...(mqtt
        ? {
            mqttUrl: environment.IOTC_CERTIFY_MQTT_URL,
            mqttVersion: environment.IOTC_CERTIFY_MQTT_VERSION,
          }
        : {}),
      ...(deviceName ? { deviceName } : {}),
    });
    const session = admin;
    const resource = (method: string, name: string) => (at: string, path: string) =>
      at === method && path === `/api/v1/${token}/${name}`;
    const rpcs: SentRpc[] = [];
    /**
     * `readBound`: a person at the console reads the attribute back before the RPC (a script does
     * it on its own).
     */
    const platformSteps = async (readBound?: number) => {
      const target = deviceName
        ? await connected(session, deviceName, options.startTimeoutMs)
        : device;
      await steps.run(plan.shared, {
        act: () => session.saveAttributes(target.id, 'SHARED_SCOPE', { [CERTIFY_SHARED_KEY]: 1 }),
        ...(readBound === undefined
          ? {}
          : {
              wait: () => arrivals.until(resource('GET', 'attributes')).then(() => undefined),
              timeoutMs: readBound,
            }),
      });
      options.say(`step 1: shared attribute ${CERTIFY_SHARED_KEY} of ${target.name} set to 1`);
      if (steps.finishedByOperator) return;
      // a gateway gets the chance to break rule 3 first (disconnect the device, reconnect without
      // connecting it): the RPC for its device goes once it has been quiet for a window
      // (GW-RULE-03-RPC, gateway-checks.ts)
      if (deviceName) await quiet.until(GATEWAY_CONNECT_ACK_QUIET_MS, GATEWAY_QUIET_WINDOWS);
      const base: SentRpc = {
        method: CERTIFY_RPC_METHOD,
        sentAt: Date.now(),
        timeoutMs: options.rpcTimeoutMs,
      };
      const call: SentRpc = deviceName ? { ...base, device: deviceName } : base;
      options.say(
        `step 2: two-way RPC ${call.method} sent (timeout ${call.timeoutMs} ms); answer it: ${RPC_ANSWER[kind]}`,
      );
      // a gateway that takes its own device's RPCs gets one too, at the same time
      // (gateway-checks.ts)
      const own: SentRpc | undefined =
        deviceName && takesOwnRpcs(packets)
          ? { ...base, method: CERTIFY_GATEWAY_RPC_METHOD }
          : undefined;
      if (own) options.say(`step 2: two-way RPC ${own.method} sent to the gateway itself`);
      const send = async (rpc: SentRpc, to: { id: string; name: string }) => {
        rpcs.push(rpc);
        tell({ kind: 'rpc', rpc, settled: false });
        const answer = await session.rpc(to.id, 'twoway', {
          method: rpc.method,
          params: { step: 2 },
          timeout: rpc.timeoutMs,
        });
        tell({ kind: 'rpc', rpc, settled: true });
        options.say(
          `step 2: the platform's RPC call ${rpc.method} to ${to.name} ended with ${answer.status}`,
        );
        return answer.status;
      };
      await steps.run(plan.rpc, {
        wait: async () => {
          const statuses = await Promise.all([
            send(call, target),
            ...(own ? [send(own, device)] : []),
          ]);
          return statuses.every((status) => status === 200) ? 'done' : 'timed out';
        },
        boundMs: call.timeoutMs,
      });
    };
    let exit: number | string;
    let clientStartedAt = Date.now();
    let clientEndedAt = Date.now();
    let endedByItself: string | undefined;
    if (options.exec === undefined) {
      const bound = options.stepTimeoutMs ?? options.startTimeoutMs;
      const first = mqtt
        ? gateway
          ? gatewayOperatorSteps(deviceName)
          : MQTT_OPERATOR_STEPS
        : [
            { ...TELEMETRY_STEP, waitsFor: { method: 'POST', path: 'telemetry' } } as const,
            { ...ATTRIBUTES_STEP, waitsFor: { method: 'POST', path: 'attributes' } } as const,
          ];
      for (const { waitsFor, ...step } of first)
        await steps.run(step, {
          wait: () =>
            (waitsFor === 'ready'
              ? mqttReady
              : arrivals.until(
                  waitsFor.method === 'POST'
                    ? resource('POST', waitsFor.path)
                    : (method, topic) => method === 'PUBLISH' && topic === waitsFor.path,
                )
            ).then(() => undefined),
          timeoutMs: bound,
        });
      // a person at an HTTP device reads the attribute back; an MQTT client is sent it
      await platformSteps(mqtt ? undefined : bound);
      const last = await steps.run(FINISH_STEP, {
        wait: () => new Promise(() => {}),
        timeoutMs: bound,
      });
      exit = last === 'timed out' ? `no finish within ${bound} ms` : 'finished by the operator';
    } else {
      const exec = options.exec;
      if (tls && watch)
        for (const kind of TLS_PROBE_KINDS) {
          const material = tls.probes[kind];
          if (!material) continue;
          options.say(`TLS check ${kind}: starting the client with that certificate presented`);
          const outcome = await watch.check(
            kind,
            material,
            () => {
              const probed = new ClientProcess(exec, environment);
              return { exited: probed.exited, end: () => probed.end(0) };
            },
            options.startTimeoutMs,
            options.say,
          );
          probes.push(outcome);
          options.say(
            `TLS check ${kind}: ${outcome.result === 'accepted' ? `the client accepted it (it sent ${outcome.what})` : outcome.result === 'refused' ? `the client refused it (${outcome.how})${outcome.starved ? ` while ${outcome.starved}` : ''}` : `${outcome.result}: ${outcome.why}`}`,
          );
        }
      options.say(`starting the client under test: ${options.exec}`);
      client = new ClientProcess(options.exec, environment);
      clientStartedAt = Date.now();
      let ending = false;
      const running = client;
      void running.exited.then((code) => {
        clientEndedAt = Date.now();
        if (!ending) endedByItself = String(code);
      });
      const ready = await steps.run(plan.ready, {
        wait: () => (mqtt ? mqttReady : arrivals.until(() => true)).then(() => undefined),
        timeoutMs: options.startTimeoutMs,
        ended: client.exited,
      });
      if (ready === 'done') {
        await platformSteps();
        if (overTime)
          await provokeBehaviour(
            phase,
            running,
            clientStartedAt + (options.durationMs ?? 0),
            options.say,
          );
      } else
        options.say(
          ready === 'timed out'
            ? `the client had not ${READY[kind](deviceName)} within ${options.startTimeoutMs} ms: the steps are skipped`
            : `the client ended before it had ${READY[kind](deviceName)}: the steps are skipped`,
        );
      if (options.durationMs !== undefined) {
        const left = clientStartedAt + options.durationMs - Date.now();
        if (left > 0 && running.running) {
          options.say(`the session runs on until its ${options.durationMs} ms (--duration)`);
          await within(running.exited, left);
        }
      }
      ending = true;
      exit = await client.end(options.durationMs === undefined ? options.graceMs : 0);
      options.say(`the client under test ended: ${exit}`);
    }
    tell({ kind: 'finished' });
    return {
      httpUrl: platform.httpUrl,
      ...(platform.mqttUrl ? { mqttUrl: platform.mqttUrl } : {}),
      token,
      ...(deviceName ? { deviceName } : {}),
      exchanges,
      packets,
      closed,
      rpcs,
      exit,
      steps: steps.close(),
      startedAt,
      finishedAt: new Date(),
      ...(tls
        ? {
            tls: {
              probes,
              missing: tls.missing,
              handshakes: watch?.handshakes ?? [],
              source: tls.source,
              ...(tls.caFile ? { caFile: tls.caFile } : {}),
            },
          }
        : {}),
      closedAt: phase.closedAt,
      openAtConnect: phase.openAtConnect,
      clientStartedAt,
      clientEndedAt: options.exec === undefined ? Date.now() : clientEndedAt,
      ...(endedByItself === undefined ? {} : { endedByItself }),
      ...(overTime ? { reconnect: phase.record } : {}),
    };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await client?.end(0);
    await admin?.close();
    await platform?.close();
  }
}

/**
 * The certification's own admin API calls pass the same server: /api/<anything but a version>/...
 * (a device's requests under /api/v1/, or a wrong version such as /api/v2/, stay the client's).
 */
function isAdminRequest(url: string): boolean {
  return /^\/api\/(?!v\d+(\/|$))/.test(url);
}

/**
 * The device a gateway connected, once the reference has handled the connect (its PUBACK may still
 * be on the way): polled through the admin API every 50 ms, up to `ms`.
 */
async function connected(admin: AdminClient, name: string, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const device = await admin.findDeviceByName(name);
    if (device) return device;
    if (Date.now() > until) throw new Error(`the gateway's connect of ${name} created no device`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Settles when `promise` does or `ms` has passed, whichever comes first (the timer cleared either
 * way).
 */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, ms));
    }),
  ]);
  clearTimeout(timer);
}

/**
 * The behaviour phase after the steps (behaviour-phase.ts): armed, it drops the connection of the
 * next QoS 1 PUBLISH (or, none within ARM_WINDOW_MS, the connection as it is), then waits for the
 * reconnect it lets through, up to the end of the session asked.
 */
async function provokeBehaviour(
  phase: BehaviourPhase,
  client: ClientProcess,
  sessionEnd: number,
  say: (line: string) => void,
): Promise<void> {
  await within(client.exited, SETTLE_AFTER_STEPS_MS);
  if (!client.running) return;
  phase.arm();
  say('behaviour: the next QoS 1 PUBLISH will not be acknowledged and its connection dropped');
  await within(Promise.race([phase.whenDropped, client.exited]), ARM_WINDOW_MS);
  if (!phase.hasDropped && client.running) {
    say(
      `behaviour: no QoS 1 PUBLISH within ${ARM_WINDOW_MS} ms: the connection is dropped as it is`,
    );
    phase.dropIdle();
  }
  if (!phase.hasDropped) return;
  say(
    'behaviour: connection dropped; the next CONNECTs are closed without a CONNACK, then one is accepted',
  );
  await within(Promise.race([phase.reconnected, client.exited]), sessionEnd - Date.now());
  const { connects, accepted } = phase.record;
  say(
    accepted
      ? `behaviour: reconnected after ${connects.length} CONNECTs`
      : `behaviour: ${connects.length} CONNECTs after the drop, none accepted yet`,
  );
}

/**
 * The names the session's certificate is issued for: loopback, the address listened on, the host
 * advertised.
 */
function certificateHosts(options: Pick<CertifySessionOptions, 'listen' | 'advertise'>): string[] {
  const advertisedHost =
    options.advertise === undefined
      ? undefined
      : /^[a-z][a-z0-9+.-]*:\/\//i.test(options.advertise)
        ? new URL(options.advertise).hostname
        : options.advertise;
  return [
    ...new Set(
      ['localhost', '127.0.0.1', options.listen, advertisedHost].filter(
        (host): host is string => !!host && host !== '0.0.0.0' && host !== '::',
      ),
    ),
  ];
}
