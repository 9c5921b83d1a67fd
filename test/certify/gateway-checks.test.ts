/**
 * The gateway checks on recorded packets: the edges the certification test's gateway does not reach
 * (a reply naming another device, a claim after the device's disconnect, a QoS 0 connect, an RPC
 * reply before the connect's PUBACK, docs/reference/interfaces.md's attribute-request shape against
 * ThingsBoard's), and the gateway as a device (the topics of both APIs, NOT APPLICABLE only for
 * what it never took up). The whole path is certify-gateway.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet } from 'mqtt-packet';
import { GATEWAY_CHECKS, gatewayChecks } from '../../src/certify/gateway-checks';
import type { ObservedPacket } from '../../src/certify/mqtt-packets';

let clock = 1_795_000_000_000;
function observed(packet: Packet, direction: 'in' | 'out' = 'in'): ObservedPacket {
  clock += 10;
  return { at: clock, direction, connection: 1, packet };
}
const publish = (
  topic: string,
  document: unknown,
  direction: 'in' | 'out' = 'in',
  qos: 0 | 1 = 1,
  messageId = 1,
) =>
  observed(
    {
      cmd: 'publish',
      topic,
      payload: Buffer.from(JSON.stringify(document)),
      qos,
      dup: false,
      retain: false,
      messageId,
    },
    direction,
  );
const puback = (messageId: number) => observed({ cmd: 'puback', messageId }, 'out');

function judge(id: string, packets: ObservedPacket[]) {
  const check = GATEWAY_CHECKS.get(id);
  assert.ok(check, id);
  return check({ token: 'T', packets, rpcs: [] });
}
function violations(id: string, packets: ObservedPacket[]): string[] {
  const outcome = judge(id, packets);
  assert.ok(outcome.exercised, `${id} was not exercised`);
  return outcome.violations.map((violation) => violation.reason);
}

test('GW-RPC-03: a reply with the right id for another device fails', () => {
  const request = publish(
    'v1/gateway/rpc',
    { device: 'a', data: { id: 5, method: 'm', params: {} } },
    'out',
  );
  assert.deepEqual(
    violations('GW-RPC-03', [request, publish('v1/gateway/rpc', { device: 'a', id: 5, data: {} })]),
    [],
  );
  assert.equal(
    violations('GW-RPC-03', [request, publish('v1/gateway/rpc', { device: 'b', id: 5, data: {} })])
      .length,
    1,
  );
});

test('GW-RULE-03-CLAIM: a claim after the device was disconnected fails', () => {
  assert.equal(
    violations('GW-RULE-03-CLAIM', [
      publish('v1/gateway/connect', { device: 'a' }),
      publish('v1/gateway/disconnect', { device: 'a' }),
      publish('v1/gateway/claim', { a: {} }),
    ]).length,
    1,
  );
});

test('GW-RULE-04-WAIT: a QoS 0 connect is not judged; an RPC reply before the PUBACK is no fault; data is', () => {
  assert.equal(
    judge('GW-RULE-04-WAIT', [publish('v1/gateway/connect', { device: 'a' }, 'in', 0)]).exercised,
    false,
  );
  const connect = publish('v1/gateway/connect', { device: 'a' }, 'in', 1, 7);
  assert.deepEqual(
    violations('GW-RULE-04-WAIT', [
      connect,
      publish('v1/gateway/rpc', { device: 'a', id: 1, data: {} }),
      puback(7),
    ]),
    [],
  );
  assert.equal(
    violations('GW-RULE-04-WAIT', [
      connect,
      publish('v1/gateway/attributes', { a: { k: 1 } }),
      puback(7),
    ]).length,
    1,
  );
  assert.deepEqual(
    violations('GW-RULE-04-WAIT', [
      connect,
      puback(7),
      publish('v1/gateway/attributes', { a: { k: 1 } }),
    ]),
    [],
  );
});

test("GW-CLI-02: ThingsBoard's attribute-request shape is not docs/reference/interfaces.md's", () => {
  assert.deepEqual(
    violations('GW-CLI-02', [
      publish('v1/gateway/attributes/request', { id: 1, device: 'a', client: ['k'] }),
    ]),
    [],
  );
  assert.equal(
    violations('GW-CLI-02', [
      publish('v1/gateway/attributes/request', { id: 1, device: 'a', client: true, key: 'k' }),
    ]).length,
    1,
  );
});

test('MQTT-DEV-02 for a gateway: the topics of both APIs pass, a topic of neither fails', () => {
  assert.deepEqual(
    violations('MQTT-DEV-02', [
      publish('v1/gateway/telemetry', { a: [{ values: { k: 1 } }] }),
      publish('v1/devices/me/telemetry', { k: 1 }),
      publish('v1/devices/me/rpc/request/3', { method: 'getSessionLimits', params: {} }),
    ]),
    [],
  );
  assert.deepEqual(
    violations('MQTT-DEV-02', [
      publish('v1/gateway/telemetry', { a: [{ values: { k: 1 } }] }),
      publish('v1/gateway/telemetries', { a: [{ values: { k: 1 } }] }),
    ]),
    [
      'PUBLISH on v1/gateway/telemetries: not a topic of the MQTT device API or the MQTT gateway API',
    ],
  );
});

test('a device requirement the gateway never took up is NOT APPLICABLE, one it took up is judged', () => {
  const gatewayOnly = [publish('v1/gateway/telemetry', { a: [{ ts: clock, values: { k: 1 } }] })];
  for (const id of ['MQTT-DEV-03', 'MQTT-DEV-04', 'MQTT-DEV-05', 'MQTT-DEV-06', 'MQTT-DEV-07']) {
    const outcome = judge(id, gatewayOnly);
    assert.ok(!outcome.exercised && outcome.notApplicable, id);
    assert.match(outcome.reason, /^the gateway /, id);
  }
  // its own telemetry in seconds fails the device requirement, not GW-CLI-03 (which has no gateway
  // telemetry here)
  const own = [publish('v1/devices/me/telemetry', { ts: 1_795_000_000, values: { k: 1 } })];
  assert.equal(violations('MQTT-DEV-04', own).length, 1);
  assert.equal(judge('GW-CLI-03', own).exercised, false);
});

test('MQTT-DEV-07 and -08: a gateway that took its own RPCs but was sent none is NOT TESTED, not NOT APPLICABLE', () => {
  const subscribed = observed({
    cmd: 'subscribe',
    messageId: 2,
    subscriptions: [{ topic: 'v1/devices/me/rpc/request/+', qos: 1 }],
  });
  for (const id of ['MQTT-DEV-07', 'MQTT-DEV-08']) {
    const outcome = judge(id, [subscribed]);
    assert.equal(outcome.exercised, false, id);
    assert.equal('notApplicable' in outcome, false, id);
  }
  // a filter the platform refuses (only v1/devices/me/rpc/request/+ is granted) brings no RPC: not
  // taken up
  const refused = observed({
    cmd: 'subscribe',
    messageId: 3,
    subscriptions: [{ topic: '#', qos: 1 }],
  });
  const outcome = judge('MQTT-DEV-08', [refused]);
  assert.ok(!outcome.exercised && outcome.notApplicable);
  const request = publish('v1/devices/me/rpc/request/4', { method: 'm', params: {} }, 'out');
  assert.equal(
    violations('MQTT-DEV-07', [subscribed, request, publish('v1/devices/me/rpc/response/5', {})])
      .length,
    1,
  );
});

test("GW-RPC-03: a reply without device but with the right id is the shape's failure (GW-CLI-02) alone (issue 28)", () => {
  const request = publish(
    'v1/gateway/rpc',
    { device: 'a', data: { id: 5, method: 'm', params: {} } },
    'out',
  );
  const reply = publish('v1/gateway/rpc', { id: 5, data: {} });
  assert.deepEqual(violations('GW-RPC-03', [request, reply]), []);
  assert.equal(violations('GW-CLI-02', [request, reply]).length, 1);
  assert.equal(
    violations('GW-RPC-03', [request, publish('v1/gateway/rpc', { id: 6, data: {} })]).length,
    1,
  );
});

test("GW-CLI-02 in mode thingsboard-4.3: ThingsBoard's attribute request passes, the specification's shape fails as GW-ATTRREQ-01", () => {
  const check = gatewayChecks('thingsboard-4.3').get('GW-CLI-02');
  assert.ok(check);
  const reasons = (document: unknown) => {
    const outcome = check({
      token: 'T',
      packets: [publish('v1/gateway/attributes/request', document)],
      rpcs: [],
    });
    assert.ok(outcome.exercised);
    return outcome.violations.map((violation) => violation.reason);
  };
  assert.deepEqual(reasons({ id: 1, device: 'a', client: true, key: 'k' }), []);
  assert.deepEqual(reasons({ id: 2, device: 'a', client: false, keys: ['k', 'l'] }), []);
  const [spec] = reasons({ id: 3, device: 'a', client: ['k'] });
  assert.match(spec, /GW-ATTRREQ-01/);
  // neither shape: the schema's own reasons
  assert.equal(reasons({ id: 4, device: 'a', client: 'k' }).length, 1);
  // the other gateway topics are judged as in mode spec
  const entryWithoutValues = publish('v1/gateway/telemetry', { a: [{ ts: 1 }] });
  const inMode = check({ token: 'T', packets: [entryWithoutValues], rpcs: [] });
  const inSpec = GATEWAY_CHECKS.get('GW-CLI-02')!({
    token: 'T',
    packets: [entryWithoutValues],
    rpcs: [],
  });
  assert.ok(inMode.exercised && inSpec.exercised);
  assert.deepEqual(inMode.violations, inSpec.violations);
  assert.equal(inMode.violations.length, 1);
});

/** A packet on another connection than the helpers' 1. */
function on(connection: number, packet: ObservedPacket): ObservedPacket {
  return { ...packet, connection };
}
const connectPacket = (connection: number) =>
  on(
    connection,
    observed({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: 'g',
      keepalive: 60,
      username: 'T',
    }),
  );
const connack = (connection: number, returnCode = 0) =>
  on(connection, observed({ cmd: 'connack', returnCode, sessionPresent: false }, 'out'));

test('GW-CLI-07: a second connection while the first is open fails; a reconnect after a close or a DISCONNECT, or a refused CONNECT, does not (issue 28)', () => {
  const first = [connectPacket(1), connack(1), publish('v1/gateway/connect', { device: 'a' })];
  const second = [connectPacket(2), connack(2)];
  const withCloses = (packets: ObservedPacket[], closed: Map<number, number>) =>
    GATEWAY_CHECKS.get('GW-CLI-07')!({ token: 'T', packets, rpcs: [], closed });
  // taken over: the first closes only after the second's CONNECT
  const overlap = withCloses([...first, ...second], new Map([[1, 5]]));
  assert.ok(overlap.exercised && overlap.violations.length === 1);
  assert.match(overlap.violations[0]!.reason, /connection 2 was opened while connection 1/);
  // a reconnect after the first closed
  const reconnect = withCloses([...first, ...second], new Map([[1, 3]]));
  assert.ok(reconnect.exercised && reconnect.violations.length === 0);
  // the first ended by the gateway's DISCONNECT (its close may be seen later)
  const ended = [...first, on(1, observed({ cmd: 'disconnect' })), ...second];
  const disconnected = withCloses(ended, new Map([[1, 6]]));
  assert.ok(disconnected.exercised && disconnected.violations.length === 0);
  // a refused CONNECT opens nothing
  const refused = [connectPacket(3), connack(3, 4), ...first];
  assert.deepEqual(violations('GW-CLI-07', refused), []);
});

test('GW-RULE-01-UPD: v1/gateway/attributes subscribed after a connect fails, before passes; never subscribed is NOT APPLICABLE (issue 28)', () => {
  const subscribe = () =>
    observed({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: 'v1/gateway/attributes', qos: 1 }],
    });
  const connect = () => publish('v1/gateway/connect', { device: 'a' });
  assert.deepEqual(violations('GW-RULE-01-UPD', [subscribe(), connect()]), []);
  assert.equal(violations('GW-RULE-01-UPD', [connect(), subscribe()]).length, 1);
  const never = judge('GW-RULE-01-UPD', [connect()]);
  assert.ok(!never.exercised && never.notApplicable);
});

test('GW-RULE-03-RPC: the device disconnected, or connected only on a connection no longer in use, when the RPC is sent fails (issue 28)', () => {
  const rpcAfter = (packets: ObservedPacket[]) =>
    GATEWAY_CHECKS.get('GW-RULE-03-RPC')!({
      token: 'T',
      packets,
      rpcs: [{ method: 'iotcCertifyPing', device: 'a', sentAt: clock + 5, timeoutMs: 5000 }],
    });
  const connected = [connectPacket(1), connack(1), publish('v1/gateway/connect', { device: 'a' })];
  const ok = rpcAfter([...connected]);
  assert.ok(ok.exercised && ok.violations.length === 0);
  const disconnected = rpcAfter([...connected, publish('v1/gateway/disconnect', { device: 'a' })]);
  assert.ok(disconnected.exercised);
  assert.match(disconnected.violations[0]!.reason, /after the gateway disconnected it/);
  const reconnected = rpcAfter([...connected, connectPacket(2), connack(2)]);
  assert.ok(reconnected.exercised);
  assert.match(reconnected.violations[0]!.reason, /connected on connection 1 only/);
  const again = rpcAfter([
    ...connected,
    connectPacket(2),
    connack(2),
    on(2, publish('v1/gateway/connect', { device: 'a' })),
  ]);
  assert.ok(again.exercised && again.violations.length === 0);
});

test('never taken up: no claim, no ts, no attribute request, a QoS 0 connect are NOT APPLICABLE, so an ordinary gateway can be CONFORMANT (issue 28)', () => {
  const packets = [publish('v1/gateway/connect', { device: 'a' }, 'in', 0)];
  for (const id of ['GW-RULE-03-CLAIM', 'GW-CLI-03', 'GW-CLI-04', 'GW-RULE-04-WAIT']) {
    const outcome = judge(id, packets);
    assert.ok(!outcome.exercised && outcome.notApplicable, id);
  }
});
