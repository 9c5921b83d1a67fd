/**
 * The fault catalogue against the requirement catalogue and the code: every fault names a testable
 * requirement, ids are unique, every fault is switched somewhere in the reference, and nothing
 * switches a fault the catalogue does not declare. Switching faults on and off changes only what
 * faultActive answers.
 */
import { deviceHandlerFaults } from '../../simulators/platform/mqtt/device-topics';
import { gatewayHandlerFaults } from '../../simulators/platform/mqtt/gateway-topics';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import {
  FAULT_CATALOGUE,
  UnknownFaultError,
  activeFaults,
  faultRequirement,
  setActiveFaults,
} from '../../faults';

const ROOT = join(__dirname, '..', '..');
const requirements = (
  JSON.parse(readFileSync(join(ROOT, 'features', 'requirements.json'), 'utf8')) as {
    requirements: Array<{ id: string; testable: boolean }>;
  }
).requirements;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

test('every fault names a testable requirement of the catalogue, once', () => {
  const testable = new Set(requirements.filter((r) => r.testable).map((r) => r.id));
  const ids = FAULT_CATALOGUE.map((fault) => fault.id);
  assert.equal(new Set(ids).size, ids.length, 'fault ids are unique');
  for (const fault of FAULT_CATALOGUE) {
    assert.match(fault.id, /^[A-Z]+(-[A-Z0-9]+)+:[a-z0-9-]+$/, fault.id);
    assert.ok(testable.has(faultRequirement(fault.id)), `${fault.id}: no testable requirement`);
    assert.ok(fault.breaks.length > 10, `${fault.id} says what it breaks`);
  }
});

test('every declared fault is switched in the reference (or is an entry of a fault table), and only declared faults are', () => {
  const declared = new Set<string>(FAULT_CATALOGUE.map((fault) => fault.id));
  const used = new Map<string, string>();
  for (const dir of ['simulators', 'src', 'lib']) {
    for (const file of sources(join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/faultActive\(\s*'([^']+)'/g)) {
        used.set(match[1]!, relative(ROOT, file));
      }
      // a fault as data: an entry of a table keyed by FaultId
      // (simulators/connector/config-faults.ts, step-faults.ts)
      for (const match of text.matchAll(/^\s*'([A-Z]+(?:-[A-Z0-9]+)+:[a-z0-9-]+)': /gm)) {
        used.set(match[1]!, relative(ROOT, file));
      }
    }
  }
  // a topic handler's faults are placed wrappers of its steps (faults/steps.ts placedFaults), not
  // faultActive calls
  for (const { id } of gatewayHandlerFaults())
    used.set(id, 'simulators/platform/mqtt/gateway-topics.ts');
  for (const { id } of deviceHandlerFaults())
    used.set(id, 'simulators/platform/mqtt/device-topics.ts');
  for (const [id, file] of used)
    assert.ok(declared.has(id), `${file} switches ${id}, not declared`);
  for (const id of declared) assert.ok(used.has(id), `${id} is declared but switched nowhere`);
});

test('faults are off by default, on when set, and an unknown fault is refused', () => {
  setActiveFaults([]);
  assert.deepEqual(activeFaults(), []);
  assert.throws(() => setActiveFaults(['HTTP-TEL-01:no-such-fault']), UnknownFaultError);
  const first = FAULT_CATALOGUE[0];
  if (first) {
    setActiveFaults([first.id]);
    assert.deepEqual(activeFaults(), [first.id]);
    setActiveFaults([]);
  }
});
