/**
 * Issue 30 items 1 and 3: each MQTT interface's topics are written once, in its protocol table (schemas/gateway.ts
 * GATEWAY_API, schemas/device-mqtt.ts DEVICE_MQTT_API), and the gateway and device topic handlers hold only behaviour (their
 * planted faults are wrappers registered at the handler's entry, faults/steps.ts).
 * A failure names the file and line.
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
} from '../../schemas';
import { ROOT } from '../support/children';

const TABLES = new Set(['schemas/gateway.ts', 'schemas/device-mqtt.ts']);
/** A topic string in code: a quote or backtick, then v1/gateway/ or v1/devices/me/. */
const TOPIC_LITERAL = /['"`]v1\/(gateway|devices\/me)\//;

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules') return [];
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

test('no MQTT topic string outside its protocol table (schemas/gateway.ts, schemas/device-mqtt.ts)', () => {
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

test('the gateway and device topic handlers ask no fault themselves: their faults wrap a named step', () => {
  for (const file of ['gateway-topics.ts', 'device-topics.ts']) {
    const text = readFileSync(join(ROOT, 'simulators/platform/mqtt', file), 'utf8');
    assert.equal(text.match(/faultActive\(/g)?.length ?? 0, 0, file);
  }
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
