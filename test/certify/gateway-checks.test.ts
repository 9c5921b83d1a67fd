/**
 * The gateway checks on recorded packets: the edges the certification test's gateway does not reach (a reply naming
 * another device, a claim after the device's disconnect, a QoS 0 connect, an RPC reply before the connect's PUBACK,
 * docs/reference/interfaces.md's attribute-request shape against ThingsBoard's), and the gateway as a device (the topics of both
 * APIs, NOT APPLICABLE only for what it never took up). The whole path is certify-gateway.test.ts.
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
  // its own telemetry in seconds fails the device requirement, not GW-CLI-03 (which has no gateway telemetry here)
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
  // a filter the platform refuses (only v1/devices/me/rpc/request/+ is granted) brings no RPC: not taken up
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
