/**
 * The checks of a client's MQTT packets, on recorded packets: the edges the certification test's
 * client does not reach (provisioning's user name, a subscription on another connection, a wildcard
 * filter, a non-integer request id and key lists that are arrays, a QoS 2 publish, a reply from a
 * second connection, the shapes of claims and provisioning, JSON replies and client-side RPCs, NOT
 * APPLICABLE for what the client never did). The whole path is certify-mqtt-device.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet } from 'mqtt-packet';
import { MQTT_DEVICE_CHECKS } from '../../src/certify/mqtt-device-checks';
import type { ObservedPacket } from '../../src/certify/mqtt-packets';

const TOKEN = 'T0KEN';
let clock = 1_795_000_000_000;

function observed(packet: Packet, connection = 1, direction: 'in' | 'out' = 'in'): ObservedPacket {
  clock += 10;
  return { at: clock, direction, connection, packet };
}
const connect = (username: string | undefined, connection = 1) =>
  observed(
    {
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: 'c',
      keepalive: 60,
      username,
    },
    connection,
  );
const publish = (
  topic: string,
  payload: string,
  connection = 1,
  direction: 'in' | 'out' = 'in',
  qos: 0 | 1 | 2 = 1,
) =>
  observed(
    {
      cmd: 'publish',
      topic,
      payload: Buffer.from(payload),
      qos,
      dup: false,
      retain: false,
      messageId: 1,
    },
    connection,
    direction,
  );
const subscribe = (topic: string, connection = 1) =>
  observed({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic, qos: 1 }] }, connection);

function violations(id: string, packets: ObservedPacket[]): string[] {
  const check = MQTT_DEVICE_CHECKS.get(id);
  assert.ok(check, id);
  const outcome = check({ token: TOKEN, packets, rpcs: [] });
  assert.ok(outcome.exercised, `${id} was not exercised`);
  return outcome.violations.map((violation) => violation.reason);
}

test('MQTT-DEV-01: provisioning connects as provision; no user name or another one fails', () => {
  assert.deepEqual(violations('MQTT-DEV-01', [connect('provision'), connect(TOKEN)]), []);
  // the token provisioning handed out is the device's own from then on, not before
  const provisioned = () =>
    publish('/provision/response', '{"status":"SUCCESS","credentialsValue":"NEW"}', 1, 'out');
  assert.deepEqual(violations('MQTT-DEV-01', [provisioned(), connect('NEW', 2)]), []);
  const early = connect('NEW', 2);
  assert.equal(violations('MQTT-DEV-01', [early, provisioned()]).length, 1);
  assert.equal(violations('MQTT-DEV-01', [connect(undefined), connect('OTHER')]).length, 2);
});

test('MQTT-DEV-02: firmware, short v2 and provisioning topics are the API; an unknown one is not', () => {
  assert.deepEqual(
    violations('MQTT-DEV-02', [
      publish('v2/fw/request/7/chunk/0', '16384'),
      publish('v2/t', '{}'),
      publish('/provision/request', '{}'),
      publish('v1/devices/me/rpc/response/12', 'ok'),
    ]),
    [],
  );
  // a non-integer id of an attribute request or an RPC reply is MQTT-DEV-06's or -07's failure, not
  // the topic's (one defect, one FAIL); a client-side RPC's id has no requirement of its own
  assert.deepEqual(
    violations('MQTT-DEV-02', [
      publish('v1/devices/me/rpc/response/x', '{}'),
      publish('v1/devices/me/attributes/request/abc', '{}'),
    ]),
    [],
  );
  assert.equal(
    violations('MQTT-DEV-02', [
      publish('v1/devices/me/rpc/request/x', '{}'),
      publish('v1/devices/me', '{}'),
    ]).length,
    2,
  );
});

test('MQTT-DEV-05: a wildcard filter counts; a subscription of another connection does not', () => {
  assert.deepEqual(
    violations('MQTT-DEV-05', [
      subscribe('v1/devices/me/#'),
      publish('v1/devices/me/attributes/request/1', '{}'),
    ]),
    [],
  );
  assert.equal(
    violations('MQTT-DEV-05', [
      subscribe('v1/devices/me/rpc/response/+', 2),
      publish('v1/devices/me/rpc/request/1', '{"method":"getSessionLimits","params":{}}'),
    ]).length,
    1,
  );
});

test('MQTT-DEV-06: a non-integer id, an array of keys and an empty payload fail; ids of another connection are free', () => {
  const subscribed = [
    subscribe('v1/devices/me/attributes/response/+'),
    subscribe('v1/devices/me/attributes/response/+', 2),
  ];
  assert.deepEqual(
    violations('MQTT-DEV-06', [
      ...subscribed,
      publish('v1/devices/me/attributes/request/1', '{"clientKeys":"a,b"}'),
      publish('v1/devices/me/attributes/request/1', '{}', 2),
    ]),
    [],
  );
  assert.equal(
    violations('MQTT-DEV-06', [
      publish('v1/devices/me/attributes/request/one', '{}'),
      publish('v1/devices/me/attributes/request/2', '{"sharedKeys":["a"]}'),
      publish('v1/devices/me/attributes/request/3', ''),
    ]).length,
    3,
  );
});

test('MQTT-DEV-07: a reply from a second connection of the device answers its request, as ThingsBoard matches by id (issue 28); an id never delivered fails', () => {
  const request = publish('v1/devices/me/rpc/request/4', '{"method":"m","params":{}}', 1, 'out');
  assert.deepEqual(
    violations('MQTT-DEV-07', [request, publish('v1/devices/me/rpc/response/4', '{}')]),
    [],
  );
  assert.deepEqual(
    violations('MQTT-DEV-07', [request, publish('v1/devices/me/rpc/response/4', '{}', 2)]),
    [],
  );
  // MQTT-DEV-08 matches it too: the reply came, in time
  const check = MQTT_DEVICE_CHECKS.get('MQTT-DEV-08')!;
  const timed = check({
    token: TOKEN,
    packets: [request, publish('v1/devices/me/rpc/response/4', '{}', 2)],
    rpcs: [{ method: 'm', sentAt: request.at - 5, timeoutMs: 10_000 }],
  });
  assert.ok(timed.exercised && timed.violations.length === 0);
  assert.deepEqual(
    violations('MQTT-DEV-07', [request, publish('v1/devices/me/rpc/response/5', '{}', 2)]),
    ['a reply on v1/devices/me/rpc/response/5, but the requests delivered before it were 4'],
  );
});

test('MQTT-DEV-10..13: claim and provisioning shapes, JSON replies and client-side RPCs; NOT APPLICABLE when never done', () => {
  assert.deepEqual(violations('MQTT-DEV-10', [publish('v1/devices/me/claim', '{}')]), []);
  assert.equal(
    violations('MQTT-DEV-10', [publish('v1/devices/me/claim', '{"durationMs":1.5}')]).length,
    1,
  );
  assert.equal(
    violations('MQTT-DEV-11', [
      publish('/provision/request', '{"deviceName":"d","provisionDeviceKey":"k"}'),
    ]).length,
    1,
  );
  const request = publish('v1/devices/me/rpc/request/4', '{"method":"m"}', 1, 'out');
  assert.equal(
    violations('MQTT-DEV-12', [request, publish('v1/devices/me/rpc/response/4', 'pong')]).length,
    1,
  );
  assert.equal(violations('MQTT-DEV-13', [publish('v1/devices/me/rpc/request/1', 'x')]).length, 1);
  for (const id of [
    'MQTT-DEV-04',
    'MQTT-DEV-05',
    'MQTT-DEV-06',
    'MQTT-DEV-10',
    'MQTT-DEV-11',
    'MQTT-DEV-13',
  ]) {
    const outcome = MQTT_DEVICE_CHECKS.get(id)!({
      token: TOKEN,
      packets: [connect(TOKEN)],
      rpcs: [],
    });
    assert.ok(!outcome.exercised && outcome.notApplicable, id);
  }
  // the reply is provoked by the certification's RPC: never answered is NOT TESTED
  const reply = MQTT_DEVICE_CHECKS.get('MQTT-DEV-12')!({
    token: TOKEN,
    packets: [connect(TOKEN)],
    rpcs: [],
  });
  assert.ok(!reply.exercised && !reply.notApplicable);
});

test('MQTT-DEV-09: a QoS 2 publish fails', () => {
  assert.match(
    violations('MQTT-DEV-09', [publish('v1/devices/me/telemetry', '{}', 1, 'in', 2)])[0],
    /QoS 2/,
  );
});

test('MQTT-DEV-01: a CONNECT of another protocol level than the one asked fails, with the levels named (issue 28)', () => {
  const check = MQTT_DEVICE_CHECKS.get('MQTT-DEV-01');
  assert.ok(check);
  const v5 = {
    ...connect(TOKEN),
    packet: { ...connect(TOKEN).packet, protocolVersion: 5 as const },
  };
  const reasons = (outcome: ReturnType<typeof check>) => {
    assert.ok(outcome.exercised);
    return outcome.violations.map((violation) => violation.reason);
  };
  const judged = (protocolLevel: 4 | 5) =>
    reasons(check({ token: TOKEN, packets: [connect(TOKEN), v5], rpcs: [], protocolLevel }));
  assert.deepEqual(judged(4), [
    'CONNECT protocol level 5 (MQTT 5), but the client was asked to speak MQTT 3.1.1 (level 4)',
  ]);
  assert.equal(judged(5).length, 1);
  // not asked (the check's callers that do not know): not judged
  assert.deepEqual(reasons(check({ token: TOKEN, packets: [v5], rpcs: [] })), []);
});

test('MQTT-DEV-04: a ts sent as a string is the shape\'s failure (MQTT-DEV-03), not "not milliseconds" (issue 28)', () => {
  const stringTs = publish(
    'v1/devices/me/telemetry',
    JSON.stringify({ ts: String(clock), values: { a: 1 } }),
  );
  const check = MQTT_DEVICE_CHECKS.get('MQTT-DEV-04');
  assert.ok(check);
  assert.equal(check({ token: TOKEN, packets: [stringTs], rpcs: [] }).exercised, false);
  assert.equal(violations('MQTT-DEV-03', [stringTs]).length, 1);
  const numeric = publish('v1/devices/me/telemetry', JSON.stringify({ ts: 5, values: { a: 1 } }));
  assert.equal(violations('MQTT-DEV-04', [stringTs, numeric]).length, 1);
});
