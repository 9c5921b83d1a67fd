/**
 * What `iotc certify` judges of a client beyond the interfaces (catalogue interfaces `client-tls`
 * and `client-behaviour`, each requirement with its source): its TLS (--tls: the session's
 * handshakes and the checks of tls-probes.ts), its behaviour over time (--duration, MQTT: reconnect
 * backoff and jitter, the unacknowledged PUBLISH sent again with DUP, keep-alive over a session of
 * the length asked; behaviour-phase.ts provokes them) and what every session shows (one MQTT
 * connection at a time; no tight HTTP polling). A timing verdict allows the harness's measured
 * stalls (steps/support/timing.ts StallLog) as its margin, and is INCONCLUSIVE when a stall
 * explains it. A requirement whose subject never came up is NOT APPLICABLE with the reason (the
 * client had no occasion).
 */
import type { Requirement } from '../../schemas';
import type { ObservedExchange } from '../../simulators/platform';
import { HARNESS_STARVED, INCONCLUSIVE_PREFIX } from '../../steps/support/timing';
import type { MqttExchange } from '../report/exchanges';
import type { RequirementResult, ScenarioResult } from '../report/verdicts';
import type { ReconnectRecord } from './behaviour-phase';
import { REFUSED_CONNECTS } from './behaviour-phase';
import type { CheckOutcome, Violation } from './client-checks';
import { type DeviceVerdicts, deviceVerdicts } from './device-verdicts';
import { type ObservedPacket, isProvisioningConnect, payloadOf, sent } from './mqtt-packets';
import type { TlsProbeKind } from './tls-certificates';
import {
  PROBE_CERTIFICATE,
  PROBE_MUST_ACCEPT,
  type ProbeOutcome,
  type SessionHandshake,
} from './tls-probes';

/** One thing the client did (or did not), as evidence. */
export interface Observation {
  at: number;
  text: string;
}

export interface BehaviourInput {
  transport: 'http' | 'mqtt';
  packets: readonly ObservedPacket[];
  exchanges: readonly ObservedExchange[];
  /** When each MQTT connection ended. */
  closedAt: ReadonlyMap<number, number>;
  /**
   * The client's other connections open when each CONNECT arrived, in the platform's order of
   * events.
   */
  openAtConnect: ReadonlyMap<number, readonly number[]>;
  /** When the client ended (or was ended). */
  clientEndedAt: number;
  tls?: {
    probes: readonly ProbeOutcome[];
    missing: Partial<Record<TlsProbeKind, string>>;
    handshakes: readonly SessionHandshake[];
  };
  overTime?: {
    durationMs: number;
    startedAt: number;
    /** The client ended by itself (not by the certification), with this exit. */
    endedByItself?: string;
    reconnect?: ReconnectRecord;
  };
  /** The harness's worst event-loop stall within a window (StallLog.worstBetween). */
  stall: (fromMs: number, toMs: number) => number;
}

type Outcome = CheckOutcome<Observation> | { inconclusive: string };
type Check = (input: BehaviourInput) => Outcome;

const notApplicable = (reason: string): Outcome => ({
  exercised: false,
  reason,
  notApplicable: true,
});
const judged = (observations: Observation[], violations: Violation<Observation>[]): Outcome => ({
  exercised: true,
  judged: observations,
  violations,
});
/** The resolution of the stall log (a stall under it is not seen), added to every margin. */
const RESOLUTION_MS = 10;

// ----------------------------------------------------------------------------------------------------------
// TLS

const sessionHandshake: Check = ({ tls }) => {
  if (!tls) return notApplicable('TLS was not asked (--tls)');
  const done = tls.handshakes.filter((handshake) => !handshake.failed);
  const failed = tls.handshakes.filter((handshake) => handshake.failed);
  const observations = tls.handshakes.map((handshake) => ({
    at: handshake.at,
    text: handshake.failed
      ? `${handshake.server}: ${handshake.failed}`
      : `${handshake.server}: handshake completed (${handshake.protocol})`,
  }));
  if (observations.length === 0)
    return { exercised: false, reason: 'the client made no TLS connection in the session' };
  return judged(
    observations,
    failed.map((handshake) => ({
      item: { at: handshake.at, text: `${handshake.server}: ${handshake.failed}` },
      reason: `with the session's certificate ${handshake.failed}${done.length ? ` (${done.length} other handshake${done.length === 1 ? '' : 's'} completed)` : ''}`,
    })),
  );
};

function probeCheck(kind: TlsProbeKind): Check {
  const mustAccept = PROBE_MUST_ACCEPT[kind];
  return ({ tls }) => {
    if (!tls) return notApplicable('TLS was not asked (--tls)');
    const missing = tls.missing[kind];
    if (missing) return { exercised: false, reason: missing };
    const probe = tls.probes.find((outcome) => outcome.kind === kind);
    if (!probe) return { exercised: false, reason: 'the check was not run (no client command)' };
    if (probe.result === 'undecided')
      return {
        exercised: false,
        reason: `presented ${PROBE_CERTIFICATE[kind]}: ${probe.why}`,
      };
    // refused twice while the harness was starved (tls-probes.ts TlsWatch.check)
    if (probe.result === 'inconclusive')
      return { inconclusive: `presented ${PROBE_CERTIFICATE[kind]}: ${probe.why}` };
    const text =
      probe.result === 'accepted'
        ? `presented ${PROBE_CERTIFICATE[kind]}: the client went on and sent ${probe.what}`
        : `presented ${PROBE_CERTIFICATE[kind]}: the client refused it: ${probe.how}${probe.starved ? ` (while ${probe.starved})` : ''}`;
    const observation = { at: probe.at, text };
    const wrong = mustAccept ? probe.result === 'refused' : probe.result === 'accepted';
    return judged([observation], wrong ? [{ item: observation, reason: text }] : []);
  };
}

// -------------------------------------------------------------------------------------------
// behaviour over time

/** The delays between the drop and each CONNECT after it, and between successive CONNECTs. */
function reconnectDelays(record: ReconnectRecord): number[] {
  const times = [record.droppedAt ?? 0, ...record.connects];
  return times.slice(1).map((at, index) => at - times[index]!);
}

/** Why the reconnects cannot be judged, or undefined when all REFUSED_CONNECTS + 1 came. */
function reconnectsMissing(input: BehaviourInput): Outcome | undefined {
  const over = input.overTime;
  if (!over) return notApplicable('behaviour over time is judged with --duration');
  if (input.transport !== 'mqtt') return notApplicable('an MQTT client');
  const record = over.reconnect;
  if (!record?.droppedAt)
    return notApplicable('the session ended before the certifier could drop a connection');
  if (record.connects.length > REFUSED_CONNECTS) return undefined;
  const after = input.clientEndedAt - record.droppedAt;
  if (record.connects.length === 0 && after >= RECONNECT_PATIENCE_MS)
    return judged(
      [{ at: record.droppedAt, text: `connection dropped (${record.dropped})` }],
      [
        {
          item: { at: record.droppedAt, text: 'connection dropped' },
          reason: `the client never reconnected in the ${Math.round(after / 1000)} s after its connection was dropped`,
        },
      ],
    );
  return notApplicable(
    `${record.connects.length} of the ${REFUSED_CONNECTS + 1} connects judged came in the ${Math.round(after / 1000)} s the session had after the drop: give a longer --duration`,
  );
}

/**
 * How much longer the last two reconnect delays must be than the first two, on average: growing,
 * not flat.
 */
const BACKOFF_GROWTH = 1.5;

/**
 * A client that has not reconnected at all this long after the drop never will, for the
 * certificate.
 */
const RECONNECT_PATIENCE_MS = 30_000;

function delayObservations(record: ReconnectRecord): Observation[] {
  return reconnectDelays(record).map((delay, index) => ({
    at: record.connects[index]!,
    text: `CONNECT ${index + 1} after the drop, ${delay} ms after the ${index === 0 ? 'drop' : 'previous one'}${index < REFUSED_CONNECTS ? ' (closed without CONNACK)' : ' (accepted)'}`,
  }));
}

const backoff: Check = (input) => {
  const missing = reconnectsMissing(input);
  if (missing) return missing;
  const record = input.overTime!.reconnect!;
  const delays = reconnectDelays(record);
  const times = [record.droppedAt!, ...record.connects];
  const early = (delays[0]! + delays[1]!) / 2;
  const late = (delays.at(-1)! + delays.at(-2)!) / 2;
  // two delays in a row are the time between their outer events: a stall between those does not
  // change their sum, only the harness seeing an outer event late does, by at most the worst stall
  // of the side's own window (a stall elsewhere in the session, or in the other side's window,
  // explains nothing here)
  const earlyMargin = input.stall(times[0]!, times[2]!) + RESOLUTION_MS;
  const lateMargin = input.stall(times.at(-3)!, times.at(-1)!) + RESOLUTION_MS;
  const margin = Math.ceil((lateMargin + BACKOFF_GROWTH * earlyMargin) / 2);
  const observations = delayObservations(record);
  // growing: the last two delays average at least BACKOFF_GROWTH times the first two, off by the
  // margin at most
  const excess = late - BACKOFF_GROWTH * early;
  if (excess > margin) return judged(observations, []);
  if (excess >= -margin)
    return {
      inconclusive: `the last two reconnect delays average ${late} ms, the first two ${early} ms: within the ${margin} ms the harness's stalls could move it of ${BACKOFF_GROWTH} times`,
    };
  return judged(observations, [
    {
      item: observations.at(-1)!,
      reason: `no backoff: the reconnect delays were ${delays.join(', ')} ms (the last two average ${late} ms, less than ${BACKOFF_GROWTH} times the first two's ${early} ms)`,
    },
  ]);
};

/**
 * Delays within this fraction of a fixed schedule (one ratio between successive delays) are that
 * schedule.
 */
const JITTER_SPREAD = 0.1;

const jitter: Check = (input) => {
  const missing = reconnectsMissing(input);
  if (missing) return missing;
  const record = input.overTime!.reconnect!;
  const delays = reconnectDelays(record);
  const starts = [record.droppedAt!, ...record.connects];
  // each delay's own margin: the harness's worst stall within that delay's window
  const margins = delays.map(
    (_, index) => input.stall(starts[index]!, starts[index + 1]!) + RESOLUTION_MS,
  );
  const ratios = delays.slice(1).map((delay, index) => delay / Math.max(1, delays[index]!));
  // a fixed schedule (constant, or growing by a constant factor) is each delay its predecessor
  // times one ratio: how far each delay is from the schedule that fits best (the median ratio),
  // against its own margin
  const sorted = [...ratios].sort((a, b) => a - b);
  const ratio =
    (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) /
    2;
  const residuals = delays.slice(1).map((delay, index) => ({
    off: Math.abs(delay - ratio * delays[index]!),
    delay,
    margin: margins[index + 1]! + ratio * margins[index]!,
  }));
  const observations = delayObservations(record);
  const shown = `delays ${delays.join(', ')} ms, ratios ${ratios.map((r) => r.toFixed(2)).join(', ')}`;
  const beyond = (residual: (typeof residuals)[number]) =>
    residual.off > JITTER_SPREAD * residual.delay;
  if (residuals.some((residual) => beyond(residual) && residual.off > residual.margin))
    return judged(observations, []);
  // timing only moves a delay by its margin: a schedule this regular has no jitter, whatever the
  // harness did
  if (!residuals.some(beyond))
    return judged(observations, [
      {
        item: observations.at(-1)!,
        reason: `no jitter: ${shown} (each delay within ${JITTER_SPREAD * 100} % of ${ratio.toFixed(2)} times the one before, a fixed schedule)`,
      },
    ]);
  return {
    inconclusive: `${shown}: the delays leave the fixed schedule ${ratio.toFixed(2)} by no more than the harness's stalls (up to ${Math.max(...margins)} ms) could explain`,
  };
};

const resentWithDup: Check = (input) => {
  const missing = reconnectsMissing(input);
  if (missing && !('exercised' in missing && missing.exercised)) return missing;
  const record = input.overTime?.reconnect;
  if (!record?.withheld)
    return notApplicable(
      'the client sent no QoS 1 PUBLISH after the steps that could be left unacknowledged',
    );
  if (!record.accepted)
    return notApplicable('the client was not reconnected, so it had no occasion to send it again');
  const withheld = record.withheld;
  // the same message: its topic and payload, and its packet id when it had one (a later message of
  // the same payload, periodic telemetry, is not the message sent again)
  const after = sent(input.packets, 'publish').filter(
    (observed) =>
      observed.at >= record.accepted!.at &&
      observed.packet.topic === withheld.topic &&
      payloadOf(observed.packet) === withheld.payload,
  );
  const withDup = after.find((observed) => observed.packet.dup);
  const sameId = after.filter(
    (observed) =>
      withheld.messageId !== undefined && observed.packet.messageId === withheld.messageId,
  );
  const observation = {
    at: record.droppedAt!,
    text: `PUBLISH ${withheld.topic} ${withheld.payload.slice(0, 120)} (QoS 1, packet id ${withheld.messageId}) never acknowledged, its connection dropped`,
  };
  if (withDup)
    return judged(
      [
        observation,
        {
          at: withDup.at,
          text: `sent again with DUP on connection ${withDup.connection} (packet id ${withDup.packet.messageId})`,
        },
      ],
      [],
    );
  return judged(
    [observation],
    [
      {
        item: observation,
        reason: sameId.length
          ? `sent again after the reconnect under its packet id ${withheld.messageId} without the DUP flag`
          : 'never sent again with DUP after the reconnect (no PUBLISH of its topic and payload carried the DUP flag)',
      },
    ],
  );
};

interface AcceptedConnection {
  connection: number;
  keepalive: number;
  from: number;
  /** The client's DISCONNECT, the connection's close, or the client's end. */
  to: number;
  /** When the client sent each packet on it. */
  sends: number[];
  /** It ended with the client's DISCONNECT. */
  disconnected: boolean;
}

/**
 * How much sooner than 1.5 keep-alive periods the reference's own close may come (its timer's
 * granularity).
 */
const PLATFORM_CLOSE_SLACK_MS = 100;

function acceptedConnections(input: BehaviourInput): AcceptedConnection[] {
  const connacks = input.packets.filter(
    (observed) =>
      observed.direction === 'out' &&
      observed.packet.cmd === 'connack' &&
      ((observed.packet as { returnCode?: number }).returnCode ??
        (observed.packet as { reasonCode?: number }).reasonCode ??
        0) === 0,
  );
  return connacks.flatMap((connack) => {
    const own = input.packets.filter((observed) => observed.connection === connack.connection);
    const connect = own.find((observed) => observed.packet.cmd === 'connect');
    // a provisioning session is no connection of the device (it has no token yet): none of these
    // judge it
    if (connect && isProvisioningConnect(connect.packet)) return [];
    const disconnect = own.find(
      (observed) => observed.direction === 'in' && observed.packet.cmd === 'disconnect',
    );
    const to = Math.min(
      disconnect?.at ?? Number.POSITIVE_INFINITY,
      input.closedAt.get(connack.connection) ?? input.clientEndedAt,
    );
    return {
      connection: connack.connection,
      keepalive: (connect?.packet as { keepalive?: number } | undefined)?.keepalive ?? 0,
      from: connack.at,
      to,
      disconnected: disconnect !== undefined,
      sends: own
        .filter((observed) => observed.direction === 'in' && observed.at >= connack.at)
        .map((observed) => observed.at),
    };
  });
}

const keepAlive: Check = (input) => {
  const over = input.overTime;
  if (!over) return notApplicable('behaviour over time is judged with --duration');
  const violations: Violation<Observation>[] = [];
  const observations: Observation[] = [];
  const asked = over.startedAt + over.durationMs;
  if (over.endedByItself !== undefined && input.clientEndedAt < asked) {
    const item = { at: input.clientEndedAt, text: `the client ended: ${over.endedByItself}` };
    observations.push(item);
    violations.push({
      item,
      reason: `the client ended by itself (${over.endedByItself}) ${((input.clientEndedAt - over.startedAt) / 1000).toFixed(1)} s into the ${(over.durationMs / 1000).toFixed(1)} s session asked (--duration)`,
    });
  }
  const connections = acceptedConnections(input).filter(
    (connection) =>
      connection.keepalive > 0 &&
      connection.to - connection.from > 1.5 * connection.keepalive * 1000 - PLATFORM_CLOSE_SLACK_MS,
  );
  let inconclusive: string | undefined;
  for (const connection of connections) {
    const limit = 1.5 * connection.keepalive * 1000;
    const times = [connection.from, ...connection.sends, connection.to];
    observations.push({
      at: connection.from,
      text: `connection ${connection.connection}: keep alive ${connection.keepalive} s, ${((connection.to - connection.from) / 1000).toFixed(1)} s, ${connection.sends.length} packets sent`,
    });
    // the reference ends a connection silent for 1.5 keep-alive periods itself: a close without the
    // client's DISCONNECT that far after its last packet is that limit reached, whatever the
    // timer's precision
    const closedByPlatform = input.closedAt.has(connection.connection) && !connection.disconnected;
    for (let index = 1; index < times.length; index += 1) {
      const gap = times[index]! - times[index - 1]!;
      const tail = index === times.length - 1 && closedByPlatform;
      if (gap <= (tail ? limit - PLATFORM_CLOSE_SLACK_MS : limit)) continue;
      if (tail) {
        const item = {
          at: times[index - 1]!,
          text: `connection ${connection.connection}: silent ${gap} ms, then closed`,
        };
        violations.push({
          item,
          reason: `connection ${connection.connection} (keep alive ${connection.keepalive} s) sent nothing for ${gap} ms until the platform ended it for 1.5 keep-alive periods of silence`,
        });
        break;
      }
      const margin = input.stall(times[index - 1]!, times[index]!) + RESOLUTION_MS;
      if (gap <= limit + margin) {
        inconclusive ??= `connection ${connection.connection}: ${gap} ms without a packet, over the ${limit} ms limit by less than the ${margin} ms the harness stalled`;
        continue;
      }
      const item = {
        at: times[index - 1]!,
        text: `connection ${connection.connection}: silent ${gap} ms`,
      };
      violations.push({
        item,
        reason: `connection ${connection.connection} (keep alive ${connection.keepalive} s) sent nothing for ${gap} ms, more than 1.5 keep-alive periods (${limit} ms)${index === times.length - 1 ? ' before it ended' : ''}`,
      });
      break;
    }
  }
  if (violations.length) return judged(observations, violations);
  if (inconclusive) return { inconclusive };
  if (connections.length === 0)
    return notApplicable(
      `no connection with a keep alive lasted 1.5 keep-alive periods, the most it may be silent (${
        acceptedConnections(input)
          .map((c) => `keep alive ${c.keepalive} s for ${((c.to - c.from) / 1000).toFixed(1)} s`)
          .join('; ') || 'no connection accepted'
      }): give a longer --duration`,
    );
  return judged(observations, []);
};

const oneConnection: Check = (input) => {
  if (input.transport !== 'mqtt') return notApplicable('an MQTT client');
  const connections = acceptedConnections(input);
  if (connections.length === 0)
    return { exercised: false, reason: 'no connection of the client was accepted' };
  const observations = connections.map((connection) => ({
    at: connection.from,
    text: `connection ${connection.connection} accepted, in use until ${new Date(connection.to).toISOString()}`,
  }));
  const violations: Violation<Observation>[] = [];
  // by the order of events, not by clock: which accepted connection was still open when another
  // connected
  for (const later of connections) {
    const connectedAt =
      input.packets.find(
        (observed) => observed.connection === later.connection && observed.packet.cmd === 'connect',
      )?.at ?? later.from;
    for (const other of input.openAtConnect.get(later.connection) ?? []) {
      const earlier = connections.find((connection) => connection.connection === other);
      // a connection the client had ended with DISCONNECT was no longer in use
      if (!earlier || (earlier.disconnected && earlier.to <= connectedAt)) continue;
      violations.push({
        item: observations[connections.indexOf(later)]!,
        reason: `connection ${later.connection} connected while connection ${earlier.connection} of the same device was still open${input.closedAt.has(earlier.connection) ? ' (the platform ended it to take the new one over)' : ''}`,
      });
    }
  }
  return judged(observations, violations);
};

/** More GETs of one resource than this starting within a second is tight polling. */
const POLLS_PER_SECOND = 5;

const noTightPolling: Check = (input) => {
  if (input.transport !== 'http') return notApplicable('an HTTP client');
  const gets = input.exchanges.filter((exchange) => exchange.method === 'GET');
  if (gets.length === 0) return notApplicable('the device sent no GET request');
  const byResource = new Map<string, ObservedExchange[]>();
  for (const exchange of gets) {
    const path = exchange.url.split('?')[0]!;
    byResource.set(path, [...(byResource.get(path) ?? []), exchange]);
  }
  const observations = gets.map((exchange) => ({
    at: exchange.receivedAt,
    text: `GET ${exchange.url.split('?')[0]} answered ${exchange.status}`,
  }));
  const violations: Violation<Observation>[] = [];
  for (const [path, requests] of byResource) {
    const times = requests.map((request) => request.receivedAt).sort((a, b) => a - b);
    for (let index = POLLS_PER_SECOND; index < times.length; index += 1) {
      const span = times[index]! - times[index - POLLS_PER_SECOND]!;
      if (span >= 1000) continue;
      if (input.stall(times[index - POLLS_PER_SECOND]!, times[index]!) > 1000 - span) continue;
      violations.push({
        item: { at: times[index]!, text: `GET ${path}` },
        reason: `${POLLS_PER_SECOND + 1} GET requests of ${path.replace(/\/api\/v1\/[^/]+\//, '/api/v1/{token}/')} started within ${span} ms`,
      });
      break;
    }
  }
  return judged(observations, violations);
};

export const CLIENT_BEHAVIOUR_CHECK_OF: Record<string, Check> = {
  'CLI-TLS-01': sessionHandshake,
  'CLI-TLS-02': probeCheck('untrusted'),
  'CLI-TLS-03': probeCheck('wrong-name'),
  'CLI-TLS-04': probeCheck('expired'),
  'CLI-TLS-05': probeCheck('large-chain'),
  'CLI-BEH-01': backoff,
  'CLI-BEH-02': jitter,
  'CLI-BEH-03': resentWithDup,
  'CLI-BEH-04': keepAlive,
  'CLI-BEH-05': oneConnection,
  'CLI-BEH-06': noTightPolling,
};

/**
 * Which of these requirements a certification judges: TLS when asked, over time with --duration, by
 * transport.
 */
export function behaviourRequirementApplies(
  id: string,
  certification: { transport: 'http' | 'mqtt'; tls: boolean; overTime: boolean },
): boolean {
  if (id.startsWith('CLI-TLS-')) return certification.tls;
  if (id === 'CLI-BEH-06') return certification.transport === 'http';
  if (id === 'CLI-BEH-05') return certification.transport === 'mqtt';
  return certification.transport === 'mqtt' && certification.overTime;
}

const OBSERVATION_EVIDENCE = {
  noun: 'observation',
  exchange: (item: Observation): MqttExchange => ({
    protocol: 'mqtt',
    via: 'client under test',
    request: { packet: 'OTHER', payload: `${new Date(item.at).toISOString()} ${item.text}` },
    response: { result: 'sent' },
    elapsedMs: 0,
  }),
};

/**
 * The verdicts of these requirements; INCONCLUSIVE where a harness stall explains a timing verdict.
 */
export function clientBehaviourVerdicts(
  catalogue: readonly Requirement[],
  input: BehaviourInput,
  certification: 'device' | 'gateway',
): DeviceVerdicts {
  const inconclusive = new Map<string, string>();
  const checks = new Map(
    catalogue.map((requirement) => [
      requirement.id,
      (given: BehaviourInput): CheckOutcome<Observation> => {
        const check = CLIENT_BEHAVIOUR_CHECK_OF[requirement.id];
        if (!check) return { exercised: false, reason: 'no check of it yet' };
        const outcome = check(given);
        if ('inconclusive' in outcome) {
          inconclusive.set(requirement.id, outcome.inconclusive);
          return { exercised: false, reason: outcome.inconclusive };
        }
        return outcome;
      },
    ]),
  );
  const verdicts = deviceVerdicts(catalogue, checks, input, OBSERVATION_EVIDENCE, certification);
  const scenarios: ScenarioResult[] = [...verdicts.scenarios];
  const requirements = verdicts.requirements.map((result): RequirementResult => {
    const why = inconclusive.get(result.id);
    if (!why) return result;
    const scenario: ScenarioResult = {
      name: `${result.id}: the timing could not be decided`,
      location: `iotc certify ${certification} ${result.id}`,
      tags: [`@${result.id}`],
      status: 'INCONCLUSIVE',
      durationMs: 0,
      error: `${INCONCLUSIVE_PREFIX} ${HARNESS_STARVED}: ${why}`,
      evidence: [],
      exchanges: [],
    };
    scenarios.push(scenario);
    const { tags: _tags, evidence: _evidence, ...decided } = scenario;
    return { ...result, verdict: 'INCONCLUSIVE', reason: why, scenarios: [decided] };
  });
  return { requirements, scenarios };
}
