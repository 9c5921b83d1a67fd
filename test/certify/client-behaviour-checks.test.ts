/**
 * The checks beyond the interfaces (src/certify/client-behaviour-checks.ts) on made-up
 * observations: the TLS checks read the probes' outcomes, reconnect delays give backoff and jitter
 * verdicts (a fixed schedule FAILs jitter whatever the stalls; a spread the stalls could explain is
 * INCONCLUSIVE), keep-alive is NOT APPLICABLE without the occasion, one connection is judged by the
 * order of events, tight polling by the count per second; and a FAIL of a SHOULD alone makes the
 * overall verdict PASS WITH WARNINGS. The real sessions are the kill matrix's
 * (faults/client-catalogue.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet } from 'mqtt-packet';
import {
  type BehaviourInput,
  CLIENT_BEHAVIOUR_CHECK_OF,
} from '../../src/certify/client-behaviour-checks';
import { BehaviourPhase } from '../../src/certify/behaviour-phase';
import type { ObservedPacket } from '../../src/certify/mqtt-packets';
import { overallVerdict } from '../../src/report/overall';

function input(given: Partial<BehaviourInput>): BehaviourInput {
  return {
    transport: 'mqtt',
    packets: [],
    exchanges: [],
    closedAt: new Map(),
    openAtConnect: new Map(),
    clientEndedAt: 100_000,
    stall: () => 0,
    ...given,
  };
}

function check(id: string, given: BehaviourInput) {
  return CLIENT_BEHAVIOUR_CHECK_OF[id]!(given);
}

/**
 * A session whose connection was dropped at 1000 and whose next CONNECTs came after these delays.
 */
function reconnects(delays: number[], stall = 0): BehaviourInput {
  const connects: number[] = [];
  for (const delay of delays) connects.push((connects.at(-1) ?? 1000) + delay);
  return input({
    overTime: {
      durationMs: 60_000,
      startedAt: 0,
      reconnect: {
        droppedAt: 1000,
        dropped: 'idle',
        connects,
        accepted: { connection: 9, at: connects.at(-1)! },
      },
    },
    stall: () => stall,
  });
}

const failed = (outcome: unknown) =>
  (outcome as { exercised?: boolean; violations?: unknown[] }).violations?.length ?? -1;

test('TLS: a certificate accepted that should be refused fails; the large chain must be accepted', () => {
  const tls = {
    probes: [
      { kind: 'untrusted' as const, result: 'accepted' as const, at: 1, what: 'an MQTT CONNECT' },
      { kind: 'expired' as const, result: 'refused' as const, at: 2, how: 'alert' },
      { kind: 'large-chain' as const, result: 'refused' as const, at: 3, how: 'closed' },
    ],
    missing: { 'wrong-name': "the operator's certificate" },
    handshakes: [{ at: 1, server: 'mqtts' as const, protocol: 'TLSv1.3' }],
  };
  assert.equal(failed(check('CLI-TLS-02', input({ tls }))), 1);
  assert.equal(failed(check('CLI-TLS-04', input({ tls }))), 0);
  assert.equal(failed(check('CLI-TLS-05', input({ tls }))), 1);
  assert.deepEqual(check('CLI-TLS-03', input({ tls })), {
    exercised: false,
    reason: "the operator's certificate",
  });
  assert.equal(failed(check('CLI-TLS-01', input({ tls }))), 0);
  assert.equal((check('CLI-TLS-01', input({})) as { notApplicable?: boolean }).notApplicable, true);
  // refused twice while the harness was starved (TlsWatch.check): INCONCLUSIVE, never FAIL
  const starved = {
    ...tls,
    probes: [{ kind: 'large-chain' as const, result: 'inconclusive' as const, why: 'starved' }],
  };
  assert.ok('inconclusive' in check('CLI-TLS-05', input({ tls: starved })));
});

test('reconnects: backoff and jitter, a fixed schedule, no growth, a stall that explains the spread', () => {
  const jittered = reconnects([360, 480, 1380, 2040, 5280]);
  assert.equal(failed(check('CLI-BEH-01', jittered)), 0);
  assert.equal(failed(check('CLI-BEH-02', jittered)), 0);
  const doubling = reconnects([1006, 2005, 4005, 8021, 16006], 80);
  assert.equal(failed(check('CLI-BEH-01', doubling)), 0);
  assert.equal(failed(check('CLI-BEH-02', doubling)), 1, 'a fixed schedule, stalls or not');
  const flat = reconnects([540, 360, 517, 382, 495]);
  assert.equal(failed(check('CLI-BEH-01', flat)), 1);
  assert.equal(failed(check('CLI-BEH-02', flat)), 0);
  assert.ok('inconclusive' in check('CLI-BEH-02', reconnects([120, 160, 460, 680, 1760], 200)));
  // a stall between the two sides' windows moves neither side's sum: the flat schedule still fails
  // (it was INCONCLUSIVE when the margin was the worst stall of the whole window); one in a side's
  // window can explain it
  const stalledAt = (endedAt: number, ms: number) => (from: number, to: number) =>
    endedAt >= from && endedAt - ms <= to ? ms : 0;
  const flatDelays = [540, 360, 517, 382, 495];
  const between = { ...reconnects(flatDelays), stall: stalledAt(2200, 150) };
  assert.equal(failed(check('CLI-BEH-01', between)), 1);
  const late = { ...reconnects(flatDelays), stall: stalledAt(3000, 500) };
  assert.ok('inconclusive' in check('CLI-BEH-01', late));
  const few = reconnects([1000, 2000]);
  assert.equal((check('CLI-BEH-01', few) as { notApplicable?: boolean }).notApplicable, true);
});

function packet(
  at: number,
  connection: number,
  direction: 'in' | 'out',
  value: object,
): ObservedPacket {
  return { at, connection, direction, packet: value as Packet };
}

test('keep-alive: NOT APPLICABLE without a long enough connection; a silence closed by the platform fails', () => {
  const connect = (at: number, connection: number) => [
    packet(at, connection, 'in', { cmd: 'connect', keepalive: 2 }),
    packet(at, connection, 'out', { cmd: 'connack', returnCode: 0 }),
  ];
  const overTime = { durationMs: 10_000, startedAt: 0 };
  const short = input({ packets: connect(0, 1), clientEndedAt: 1000, overTime });
  assert.equal((check('CLI-BEH-04', short) as { notApplicable?: boolean }).notApplicable, true);
  const silent = input({
    packets: [...connect(0, 1), packet(500, 1, 'in', { cmd: 'pingreq' })],
    closedAt: new Map([[1, 3500]]),
    clientEndedAt: 10_000,
    overTime,
  });
  assert.equal(failed(check('CLI-BEH-04', silent)), 1);
  const pinging = input({
    packets: [
      ...connect(0, 1),
      ...[2000, 4000, 6000, 8000].map((at) => packet(at, 1, 'in', { cmd: 'pingreq' })),
    ],
    clientEndedAt: 10_000,
    overTime,
  });
  assert.equal(failed(check('CLI-BEH-04', pinging)), 0);
  const early = input({
    ...pinging,
    clientEndedAt: 5000,
    overTime: { ...overTime, endedByItself: '0' },
  });
  assert.equal(failed(check('CLI-BEH-04', early)), 1, 'ended before the duration asked');
});

test('one connection: a CONNECT while an accepted connection is open fails, one after its DISCONNECT does not', () => {
  const accepted = (at: number, connection: number) => [
    packet(at, connection, 'in', { cmd: 'connect', keepalive: 60 }),
    packet(at, connection, 'out', { cmd: 'connack', returnCode: 0 }),
  ];
  const packets = [...accepted(0, 1), ...accepted(10, 2)];
  const taken = input({
    packets,
    openAtConnect: new Map([[2, [1]]]),
    closedAt: new Map([[1, 10]]),
  });
  assert.equal(failed(check('CLI-BEH-05', taken)), 1);
  const sequential = input({
    packets: [...accepted(0, 1), packet(5, 1, 'in', { cmd: 'disconnect' }), ...accepted(10, 2)],
    openAtConnect: new Map([[2, [1]]]),
  });
  assert.equal(failed(check('CLI-BEH-05', sequential)), 0);
});

test('one connection: a provisioning session (user name provision) is no connection of the device', () => {
  const accepted = (at: number, connection: number, username: string) => [
    packet(at, connection, 'in', { cmd: 'connect', keepalive: 60, username }),
    packet(at, connection, 'out', { cmd: 'connack', returnCode: 0 }),
  ];
  // positive control: the same order with the token on both fails
  const packets = (first: string) => [...accepted(0, 1, first), ...accepted(10, 2, 'token')];
  const openAtConnect = new Map([[2, [1]]]);
  assert.equal(failed(check('CLI-BEH-05', input({ packets: packets('token'), openAtConnect }))), 1);
  assert.equal(
    failed(check('CLI-BEH-05', input({ packets: packets('provision'), openAtConnect }))),
    0,
  );
  // the phase neither counts it open when the device connects nor provokes it
  const phase = new BehaviourPhase();
  const close = () => {};
  phase.intercept({
    connection: 1,
    packet: { cmd: 'connect', username: 'provision' } as Packet,
    close,
  });
  phase.intercept({
    connection: 2,
    packet: { cmd: 'connect', username: 'token' } as Packet,
    close,
  });
  assert.deepEqual(phase.openAtConnect.get(2), []);
  phase.arm();
  const publish = { cmd: 'publish', qos: 1, topic: '/provision/request', payload: '{}' } as Packet;
  assert.equal(phase.intercept({ connection: 1, packet: publish, close }), 'handle');
  assert.equal(phase.hasDropped, false);
});

test('HTTP polling: six GETs of one resource within a second fail; long-polls do not', () => {
  const get = (at: number) => ({
    receivedAt: at,
    method: 'GET',
    url: '/api/v1/T/attributes?sharedKeys=a',
    requestBody: '',
    status: 200,
    responseBody: '{}',
  });
  const tight = input({ transport: 'http', exchanges: [0, 50, 100, 150, 200, 250].map(get) });
  assert.equal(failed(check('CLI-BEH-06', tight)), 1);
  const relaxed = input({ transport: 'http', exchanges: [0, 20_000, 40_000].map(get) });
  assert.equal(failed(check('CLI-BEH-06', relaxed)), 0);
});

test('overall: a FAIL of a SHOULD alone is PASS WITH WARNINGS, one of a MUST NOT CONFORMANT', () => {
  const report = (level: string) => ({
    run: {},
    requirements: [
      { testable: true, verdict: 'PASS' as const, level: 'MUST' },
      { testable: true, verdict: 'FAIL' as const, level },
    ],
  });
  assert.equal(overallVerdict(report('SHOULD')), 'PASS WITH WARNINGS');
  assert.equal(overallVerdict(report('MUST')), 'NOT CONFORMANT');
});

test("the phase leaves a gateway's device connect alone (its PUBACK is GW-RULE-04-WAIT's) and takes the next QoS 1 PUBLISH", () => {
  const phase = new BehaviourPhase();
  let closed = 0;
  const close = () => {
    closed += 1;
  };
  phase.intercept({
    connection: 1,
    packet: { cmd: 'connect', username: 'token' } as Packet,
    close,
  });
  phase.arm();
  const publish = (topic: string) =>
    ({ cmd: 'publish', qos: 1, topic, payload: '{}', messageId: 1 }) as Packet;
  assert.equal(
    phase.intercept({ connection: 1, packet: publish('v1/gateway/connect'), close }),
    'handle',
  );
  assert.equal(phase.hasDropped, false);
  // positive control: the gateway's telemetry is taken
  assert.equal(
    phase.intercept({ connection: 1, packet: publish('v1/gateway/telemetry'), close }),
    'close',
  );
  assert.equal(phase.record.withheld?.topic, 'v1/gateway/telemetry');
  assert.equal(closed, 0);
});
