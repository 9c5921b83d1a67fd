/**
 * Issue 30 items 1 and 3: each MQTT interface's topics are written once, in its protocol table
 * (schemas/gateway.ts GATEWAY_API, schemas/device-mqtt.ts DEVICE_MQTT_API, schemas/ota-mqtt.ts
 * OTA_MQTT_API, schemas/provision-mqtt.ts PROVISION_MQTT_API), and the platform's MQTT handlers and
 * core operations hold only behaviour (their planted faults are wrappers of named steps,
 * faults/steps.ts). A failure names the file and line.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import {
  DEVICE_MQTT_API,
  deviceTopic,
  deviceTopicRole,
  GATEWAY_API,
  GATEWAY_TOPIC_PREFIX,
  gatewayTopicRole,
  OTA_KINDS,
  OTA_MQTT_API,
  otaChunkRequest,
  otaTopic,
  otaTopicFilter,
  otaTopicPattern,
  PROVISION_MQTT_API,
} from '../../schemas';
import { ROOT } from '../support/children';

const TABLES = new Set([
  'schemas/gateway.ts',
  'schemas/device-mqtt.ts',
  'schemas/ota-mqtt.ts',
  'schemas/provision-mqtt.ts',
]);
/**
 * A topic string in code: a quote or backtick, then v1/gateway/ or v1/devices/me/ (the gateway and
 * device APIs), v2/fw/ or v2/sw/ (firmware and software download), or /provision/ (MQTT
 * provisioning).
 */
const TOPIC_LITERAL = /['"`](v1\/(gateway|devices\/me)\/|v2\/(fw|sw)\/|\/provision\/)/;

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('no MQTT topic string outside its protocol table (schemas/gateway.ts, device-mqtt.ts, ota-mqtt.ts, provision-mqtt.ts)', () => {
  const found: string[] = [];
  for (const folder of ['simulators', 'src', 'steps', 'schemas', 'lib', 'load'])
    for (const path of sources(folder)) {
      const file = relative(ROOT, join(ROOT, path));
      if (TABLES.has(file)) continue;
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (TOPIC_LITERAL.test(line) && !/^\s*(\*|\/\/)/.test(line))
            found.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
  assert.deepEqual(found, [], 'write the topic in the table and read it from there');
});

test('the MQTT transport and the core operations ask no fault themselves: their faults wrap a named step', () => {
  const files = ['simulators/platform/mqtt', 'simulators/platform/core'].flatMap(sources);
  assert.ok(files.length > 20, 'the folders are read');
  const asking = files.filter((file) =>
    /faultActive\(/.test(readFileSync(join(ROOT, file), 'utf8')),
  );
  assert.deepEqual(asking, [], 'declare the fault as a wrapper of a named step (faults/steps.ts)');
});

test('the tables answer their own topics: every gateway topic starts with the prefix and has its role', () => {
  for (const [role, rule] of Object.entries(GATEWAY_API)) {
    assert.ok(rule.topic.startsWith(GATEWAY_TOPIC_PREFIX), rule.topic);
    assert.equal(gatewayTopicRole(rule.topic), role);
  }
  for (const role of Object.keys(DEVICE_MQTT_API) as Array<keyof typeof DEVICE_MQTT_API>) {
    const topic = deviceTopic(role, 42);
    const id = DEVICE_MQTT_API[role].topic.includes('{id}') ? '42' : undefined;
    assert.deepEqual(deviceTopicRole(topic), { role, id });
  }
  assert.equal(deviceTopicRole(`${deviceTopic('rpcRequest', '')}x`), undefined);
});

test('the firmware and provisioning tables answer their own topics', () => {
  for (const kind of OTA_KINDS) {
    const request = otaTopic('chunkRequest', { kind, id: 7, chunk: 3 });
    assert.deepEqual(otaChunkRequest(request), { kind, id: '7', chunk: 3 });
    for (const role of Object.keys(OTA_MQTT_API) as Array<keyof typeof OTA_MQTT_API>) {
      const topic = otaTopic(role, { kind, id: 7, chunk: 3 });
      assert.match(topic, otaTopicPattern(role), topic);
      assert.ok(!topic.includes('{'), topic);
      assert.ok(!otaTopicFilter(role, kind).includes('{'), role);
    }
  }
  assert.equal(otaChunkRequest(otaTopic('chunkResponse', { id: 7, chunk: 3 })), undefined);
  assert.equal(otaChunkRequest(otaTopic('chunkRequest', { id: 'x', chunk: 3 })), undefined);
  for (const rule of Object.values(PROVISION_MQTT_API))
    assert.ok(rule.topic.startsWith('/provision/'));
});
